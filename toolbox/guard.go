package toolbox

import (
	"cmp"
	"fmt"
	"net/netip"
	"syscall"
)

// A BlockedError reports a connection that the address guard of
// fetch_markdown refused.
type BlockedError struct {
	// Addr is the address that was about to be dialed, after DNS
	// resolution.
	Addr netip.Addr
	// Reason names the kind of address, such as "loopback" or "private".
	Reason string
	// Setting names what an operator sets to allow such addresses
	// (FetchOptions.AllowPrivateSetting).
	Setting string
	// Err is ErrBlocked.
	Err error
}

// Error says which address was refused, why, and which setting would allow
// it.
func (e *BlockedError) Error() string {
	return fmt.Sprintf("toolbox: %s is a %s address; only public internet addresses may be fetched (the operator can allow others with %s)", e.Addr, e.Reason, e.Setting)
}

// Unwrap returns Err.
func (e *BlockedError) Unwrap() error { return e.Err }

// A guard decides which addresses fetch_markdown may connect to. It runs as
// the dialer's Control function, on the very address being dialed, so it
// sees the result of DNS resolution and covers every redirect.
type guard struct {
	// allow lets a test reach one of its own servers on a loopback
	// address. It is set only by tests, through export_test.go; nil in
	// every program.
	allow func(netip.AddrPort) bool
	// setting names the switch that turns the guard off, for refusals.
	setting string
}

// control is a net.Dialer Control function: it refuses to connect to an
// address that is not public.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrBlocked, address)
	}
	if g.allow != nil && g.allow(ap) {
		return nil
	}
	if reason := blockedReason(ap.Addr()); reason != "" {
		return &BlockedError{Addr: ap.Addr().Unmap(), Reason: reason, Setting: cmp.Or(g.setting, "FetchOptions.AllowPrivate"), Err: ErrBlocked}
	}
	return nil
}

// A rangeReason names a range of addresses that is not the public internet.
type rangeReason struct {
	prefix netip.Prefix
	reason string
}

// blockedRanges are the ranges beyond those the netip.Addr methods name.
var blockedRanges = []rangeReason{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// blockedReason returns the kind of a non-public address, or "" for an
// address on the public internet. IPv4 addresses written as IPv6 (mapped,
// NAT64, 6to4) are judged by the IPv4 address they hold.
func blockedReason(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		var v4 netip.Addr
		switch {
		case nat64.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[12:16]))
		case sixToFour.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if v4.IsValid() {
			if r := blockedReason(v4); r != "" {
				return r + " IPv4 address inside an IPv6"
			}
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}
