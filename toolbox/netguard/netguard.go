package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrBlocked reports a connection that a Guard refused.
var ErrBlocked = errors.New("netguard: address not allowed")

// A BlockedError reports a connection that a Guard refused: the address,
// why, and what an operator sets to allow it.
type BlockedError struct {
	// Addr is the address that was about to be dialed, after DNS
	// resolution.
	Addr netip.Addr
	// Port is the port that was about to be dialed.
	Port uint16
	// Reason names the kind of address, such as "loopback" or "private".
	Reason string
	// Setting names what an operator sets to allow such addresses
	// (Options.Setting).
	Setting string
	// Err is ErrBlocked.
	Err error
}

// Error says which address was refused, why, and which setting would allow
// it.
func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s is a %s address; only public internet addresses may be reached (the operator can allow it with %s)", e.Addr, e.Reason, e.Setting)
}

// Unwrap returns Err.
func (e *BlockedError) Unwrap() error { return e.Err }

// Options configure a Guard. The zero value allows the public internet
// only.
type Options struct {
	// AllowPrivate turns the guard off, so that loopback, private,
	// link-local (cloud metadata endpoints included) and every other
	// non-public address can be reached. Set it only for a trusted
	// network.
	AllowPrivate bool
	// Allow lists the endpoints, each an exact "host:port", that may be
	// reached although they are not public, so that one internal service
	// is open without opening every private address. A host is an IP
	// address (IPv6 in brackets) or a name: an IP entry matches the
	// address being dialed, after DNS resolution; a name entry matches the
	// name as the request wrote it, and whatever that name resolves to is
	// then trusted, since the operator named it. Names are matched without
	// regard to case, and a trailing dot is ignored.
	Allow []string
	// Setting names, in a refusal the model reads, what an operator sets
	// to allow an address, such as an environment variable. If empty,
	// "netguard.Options".
	Setting string
}

// A Guard decides which network addresses a tool may connect to. Its check
// runs in the dialer, on the very address being dialed, so it sees the
// result of DNS resolution and covers every redirect and every connection
// of a pool. A nil *Guard allows the public internet only.
//
// Every address that is not on the public internet is refused: the
// unspecified, loopback, private (RFC 1918, fc00::/7), link-local
// (169.254.0.0/16 with the cloud metadata address 169.254.169.254,
// fe80::/10), multicast, shared (100.64.0.0/10), reserved, documentation
// and benchmarking ranges, and IPv6 forms of these IPv4 addresses
// (IPv4-mapped, NAT64, 6to4) — unless Options.AllowPrivate is set, or the
// exact endpoint is in Options.Allow.
//
// # Configured backends
//
// A backend the operator configures (an SMTP or IMAP server, a search
// API, a service, a remote browser) is trusted at its configured address:
// Trust returns a guard that also allows that exact endpoint. What the
// backend returns — a redirect, a link — is guarded like any other
// address, unless it leads back to that same endpoint.
type Guard struct {
	allowPrivate bool
	addrs        map[netip.AddrPort]bool
	names        map[string]bool // "name:port", lower case, no trailing dot
	setting      string
}

// New returns a Guard with the given options. It fails if an entry of
// opts.Allow is not a host and a port.
func New(opts Options) (*Guard, error) {
	g := &Guard{allowPrivate: opts.AllowPrivate, setting: opts.Setting}
	for _, e := range opts.Allow {
		if err := g.add(e); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// ParseList splits a comma-separated list of endpoints, as an environment
// variable holds them ("10.0.0.5:8080,search.internal:443"), and checks
// each. Spaces around an entry are ignored, and so are empty entries.
func ParseList(s string) ([]string, error) {
	var list []string
	for e := range strings.SplitSeq(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if _, _, err := parseEndpoint(e); err != nil {
			return nil, err
		}
		list = append(list, e)
	}
	return list, nil
}

// parseEndpoint reads "host:port", returning either an address or a
// normalized name.
func parseEndpoint(e string) (netip.AddrPort, string, error) {
	host, port, err := net.SplitHostPort(e)
	if err != nil || host == "" || port == "" {
		return netip.AddrPort{}, "", fmt.Errorf("netguard: %q is not an endpoint: write host:port, as in 10.0.0.5:8080, [fd00::5]:443 or search.internal:443", e)
	}
	p, err := parsePort(port)
	if err != nil {
		return netip.AddrPort{}, "", fmt.Errorf("netguard: %q: the port %q is not a number from 1 to 65535", e, port)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return netip.AddrPortFrom(a.Unmap(), p), "", nil
	}
	name := normalName(host)
	if name == "" || strings.ContainsAny(name, "/?#@ %") {
		return netip.AddrPort{}, "", fmt.Errorf("netguard: %q: %q is neither an IP address nor a host name", e, host)
	}
	return netip.AddrPort{}, net.JoinHostPort(name, port), nil
}

func parsePort(s string) (uint16, error) {
	var p uint64
	if len(s) > 5 {
		return 0, errors.New("port too long")
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		p = p*10 + uint64(c-'0')
	}
	if p == 0 || p > 65535 {
		return 0, errors.New("out of range")
	}
	return uint16(p), nil
}

func normalName(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

func (g *Guard) add(e string) error {
	ap, name, err := parseEndpoint(e)
	if err != nil {
		return err
	}
	if name != "" {
		if g.names == nil {
			g.names = make(map[string]bool)
		}
		g.names[name] = true
		return nil
	}
	if g.addrs == nil {
		g.addrs = make(map[netip.AddrPort]bool)
	}
	g.addrs[ap] = true
	return nil
}

// Trust returns a copy of g that also allows endpoint, "host:port": the
// address of a backend the operator configured. A URL's host and port
// (url.URL.Host, with the scheme's default port made explicit) is such an
// endpoint.
func (g *Guard) Trust(endpoint string) (*Guard, error) {
	c := &Guard{}
	if g != nil {
		c.allowPrivate, c.setting = g.allowPrivate, g.setting
		c.addrs = make(map[netip.AddrPort]bool, len(g.addrs)+1)
		for k := range g.addrs {
			c.addrs[k] = true
		}
		c.names = make(map[string]bool, len(g.names)+1)
		for k := range g.names {
			c.names[k] = true
		}
	}
	if err := c.add(endpoint); err != nil {
		return nil, err
	}
	return c, nil
}

// Endpoint returns the endpoint Trust takes for the URL u: its host and
// port, with the port of its scheme made explicit when u names none (80
// for http, 443 for https). A URL of another scheme without a port gives
// its host alone, which Trust refuses for want of a port.
func Endpoint(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		default:
			return u.Host
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// AllowsPrivate reports whether the guard is off.
func (g *Guard) AllowsPrivate() bool { return g != nil && g.allowPrivate }

// Check reports whether the guard allows a connection to ap: nil, or a
// *BlockedError that wraps ErrBlocked.
func (g *Guard) Check(ap netip.AddrPort) error {
	if g != nil && (g.allowPrivate || g.addrs[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())]) {
		return nil
	}
	if reason := blockedReason(ap.Addr()); reason != "" {
		setting := "netguard.Options"
		if g != nil && g.setting != "" {
			setting = g.setting
		}
		return &BlockedError{Addr: ap.Addr().Unmap(), Port: ap.Port(), Reason: reason, Setting: setting, Err: ErrBlocked}
	}
	return nil
}

// trustsName reports whether the name and port of an address, as a
// request wrote it, are in the allowlist.
func (g *Guard) trustsName(address string) bool {
	if g == nil || len(g.names) == 0 {
		return false
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	return g.names[net.JoinHostPort(normalName(host), port)]
}

// control is a net.Dialer Control function: it refuses to connect to an
// address the guard does not allow.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrBlocked, address)
	}
	return g.Check(ap)
}

// Dialer returns a dialer whose every connection the guard checks, after
// DNS resolution. It does not know the name a request wrote, so a name in
// the allowlist counts only through DialContext.
func (g *Guard) Dialer() *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !g.AllowsPrivate() {
		d.Control = g.control
	}
	return d
}

// DialContext dials address ("host:port") if the guard allows it: a name
// in the allowlist is dialed as it is; any other address is checked after
// DNS resolution, on each address tried. A refusal is a *BlockedError.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if g.trustsName(address) {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		return d.DialContext(ctx, network, address)
	}
	c, err := g.Dialer().DialContext(ctx, network, address)
	if err != nil {
		if berr, ok := errors.AsType[*BlockedError](err); ok {
			return nil, berr // not the dialer's wrapping
		}
	}
	return c, err
}

// Transport returns a clone of base (http.DefaultTransport's settings if
// nil) whose connections the guard checks. It has no proxy, since a proxy
// would dial on the guard's behalf, and none of the dial hooks that could
// bypass it.
func (g *Guard) Transport(base *http.Transport) *http.Transport {
	var t *http.Transport
	if base == nil {
		t = http.DefaultTransport.(*http.Transport).Clone()
	} else {
		t = base.Clone()
	}
	t.Proxy = nil
	t.DialContext = g.DialContext
	t.DialTLSContext = nil
	// The deprecated hooks too, so that none of them bypasses the guard.
	t.Dial, t.DialTLS = nil, nil
	return t
}

// Reason returns the kind of a non-public address, such as "loopback" or
// "private", or "" for an address on the public internet.
func Reason(a netip.Addr) string { return blockedReason(a) }

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
