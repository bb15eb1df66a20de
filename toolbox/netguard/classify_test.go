package netguard_test

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/hands-go/hands/toolbox/netguard"
)

// TestBlockedReason classifies addresses without any network: the guard
// refuses every kind of non-public address, in every form.
func TestBlockedReason(t *testing.T) {
	for _, tt := range []struct {
		addr    string
		blocked bool
	}{
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.215.14", false},
		{"2606:4700:4700::1111", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		{"2002:808:808::1", false},  // 6to4 of 8.8.8.8
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.32.0.1", false},

		{"0.0.0.0", true},
		{"::", true},
		{"0.1.2.3", true},
		{"127.0.0.1", true},
		{"127.255.0.9", true},
		{"::1", true},
		{"10.0.0.1", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"fc00::1", true},
		{"fd00:ec2::254", true}, // the IPv6 instance metadata address
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"febf:ffff::1", true},
		{"fec0::1", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"ff02::1", true},
		{"ff0e::1", true},
		{"100.64.0.1", true},
		{"100.100.100.200", true},
		{"100.127.255.255", true},
		{"255.255.255.255", true},
		{"240.0.0.1", true},
		{"192.0.0.8", true},
		{"198.18.0.1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.0.1", true},
		{"::ffff:0.0.0.0", true},
		{"::127.0.0.1", true},        // IPv4-compatible
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of 169.254.169.254
		{"64:ff9b::7f00:1", true},    // NAT64 of 127.0.0.1
		{"64:ff9b:1::1", true},
		{"2002:a00:1::", true},  // 6to4 of 10.0.0.1
		{"2002:7f00:1::", true}, // 6to4 of 127.0.0.1
		{"2001:db8::1", true},
	} {
		got := netguard.Reason(netip.MustParseAddr(tt.addr))
		if (got != "") != tt.blocked {
			t.Errorf("BlockedReason(%s) = %q, want blocked %v", tt.addr, got, tt.blocked)
		}
	}
}

// TestGuardControl runs the dialer's check on the addresses it is given,
// as host:port strings, without dialing.
func TestGuardControl(t *testing.T) {
	for _, tt := range []struct {
		address string
		reason  string // "" when allowed
	}{
		{"8.8.8.8:443", ""},
		{"[2606:4700:4700::1111]:443", ""},
		{"127.0.0.1:80", "loopback"},
		{"[::1]:80", "loopback"},
		{"[::ffff:127.0.0.1]:80", "loopback"},
		{"169.254.169.254:80", "link-local"},
		{"[::ffff:169.254.169.254]:80", "link-local"},
		{"[fe80::1%eth0]:80", "link-local"},
		{"10.1.2.3:8080", "private"},
		{"100.64.0.1:80", "shared (carrier-grade NAT)"},
		{"0.0.0.0:80", "unspecified"},
		{"not an address", "?"},
	} {
		err := control(tt.address)
		switch {
		case tt.reason == "":
			if err != nil {
				t.Errorf("guard(%s) = %v, want nil", tt.address, err)
			}
		case tt.reason == "?":
			if !errors.Is(err, netguard.ErrBlocked) {
				t.Errorf("guard(%s) = %v, want ErrBlocked", tt.address, err)
			}
		default:
			berr, ok := errors.AsType[*netguard.BlockedError](err)
			if !ok || berr.Reason != tt.reason || !errors.Is(err, netguard.ErrBlocked) {
				t.Errorf("guard(%s) = %v, want a %s *BlockedError", tt.address, err, tt.reason)
			}
		}
	}
}

// control checks address as the dialer's Control function does.
func control(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read %q", netguard.ErrBlocked, address)
	}
	return (*netguard.Guard)(nil).Check(ap)
}
