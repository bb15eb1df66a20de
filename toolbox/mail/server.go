package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/toolbox/netguard"
)

// A security is how a connection to a mail server is protected.
type security int

const (
	startTLS    security = iota // plain text, then STARTTLS, which the server must offer
	implicitTLS                 // TLS from the first byte
	noTLS                       // plain text throughout: ?tls=none
)

// A server is a mail server the operator configured, read from its URL.
type server struct {
	scheme   string // smtp, smtps, imap or imaps
	host     string // the host name or IP address, without brackets
	addr     string // host:port
	security security
	user     string
	password string // never in a message
	folder   string // IMAP: the folder of the URL's path, "" for INBOX
}

// Default ports of the schemes.
var defaultPorts = map[string]string{"smtp": "587", "smtps": "465", "imap": "143", "imaps": "993"}

// parseServer reads the URL of a mail server of one of the given schemes:
// SCHEME://USER:PASSWORD@HOST:PORT[/FOLDER][?tls=none]. Its errors hide
// the password.
func parseServer(raw string, schemes ...string) (*server, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("mail server %s: "+format, append([]any{redact.URL(raw)}, args...)...)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fail("not a URL; write %s://USER:PASSWORD@HOST:PORT", schemes[0])
	}
	s := &server{scheme: strings.ToLower(u.Scheme)}
	ok := false
	for _, sc := range schemes {
		ok = ok || s.scheme == sc
	}
	if !ok {
		return nil, fail("the scheme is %q; it is one of %s", u.Scheme, strings.Join(schemes, ", "))
	}
	s.host = u.Hostname()
	if s.host == "" {
		return nil, fail("no host; write %s://USER:PASSWORD@HOST:PORT", s.scheme)
	}
	port := u.Port()
	if port == "" {
		port = defaultPorts[s.scheme]
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	s.security = startTLS
	if strings.HasSuffix(s.scheme, "s") {
		s.security = implicitTLS
	}
	for k, v := range u.Query() {
		switch {
		case k == "tls" && len(v) == 1 && v[0] == "none" && s.security == startTLS:
			s.security = noTLS
		case k == "tls":
			return nil, fail("tls=%s: the one value is none, with %s:// (plain text; %ss:// is TLS from the start, %[2]s:// uses STARTTLS)", strings.Join(v, ","), s.scheme, strings.TrimSuffix(s.scheme, "s"))
		default:
			return nil, fail("unknown parameter %q; the one parameter is tls=none", k)
		}
	}
	if s.security == noTLS && s.password != "" && !isLoopback(s.host) {
		return nil, fail("tls=none would send the password in plain text to %s; plain text with a password is allowed only to a loopback address (use %ss:// or %[3]s:// with STARTTLS)", s.host, strings.TrimSuffix(s.scheme, "s"), strings.TrimSuffix(s.scheme, "s"))
	}
	if strings.HasPrefix(s.scheme, "imap") {
		s.folder = strings.TrimPrefix(u.Path, "/")
		if u.RawFragment != "" || u.Fragment != "" {
			return nil, fail("a fragment (#…) is not part of a mail server's URL")
		}
	} else if u.Path != "" && u.Path != "/" {
		return nil, fail("an SMTP server's URL has no path")
	}
	return s, nil
}

// isLoopback reports whether host is "localhost" or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// A dialer connects to a configured server through the address guard,
// which trusts the server's exact endpoint, and with the TLS settings of
// the tool.
type dialer struct {
	srv   *server
	guard *netguard.Guard
	tls   *tls.Config
}

// newDialer returns the dialer of srv: guard (nil: the public internet
// only) plus srv's endpoint, and TLS that verifies srv's host against
// roots (nil: the system's pool).
func newDialer(srv *server, guard *netguard.Guard, roots *x509.CertPool) (*dialer, error) {
	g, err := guard.Trust(srv.addr)
	if err != nil {
		return nil, fmt.Errorf("mail server %s: %w", srv.addr, err)
	}
	return &dialer{srv: srv, guard: g, tls: &tls.Config{ServerName: srv.host, RootCAs: roots, MinVersion: tls.VersionTLS12}}, nil
}

// dial connects to the server: with implicit TLS, the handshake is done.
// The connection is closed when ctx ends, which ends whatever the
// protocol's client was doing with it.
func (d *dialer) dial(ctx context.Context) (net.Conn, func(), error) {
	conn, err := d.guard.DialContext(ctx, "tcp", d.srv.addr)
	if err != nil {
		return nil, nil, err
	}
	if d.srv.security == implicitTLS {
		tc := tls.Client(conn, d.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("TLS with %s: %w", d.srv.addr, err)
		}
		conn = tc
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	return conn, func() { stop(); conn.Close() }, nil
}
