package netguard_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/toolbox/netguard"
)

// loopbackServer is a server on 127.0.0.1 that counts its requests and
// redirects /to?u=URL to URL.
type loopbackServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T) *loopbackServer {
	t.Helper()
	s := &loopbackServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if u := r.URL.Query().Get("u"); u != "" {
			http.Redirect(w, r, u, http.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *loopbackServer) hostPort() string { return strings.TrimPrefix(s.URL, "http://") }

func (s *loopbackServer) port() string {
	_, p, _ := net.SplitHostPort(s.hostPort())
	return p
}

func get(t *testing.T, g *netguard.Guard, u string) error {
	t.Helper()
	c := &http.Client{Transport: g.Transport(nil)}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// TestAllowExactEndpoints opens exactly the endpoints an operator lists:
// an IP and port, or a name and port; the same host on another port, and
// every other private address, stay closed.
func TestAllowExactEndpoints(t *testing.T) {
	a, b := newServer(t), newServer(t)
	for _, tt := range []struct {
		name     string
		allow    []string
		url      string
		wantOpen bool
	}{
		{"default refuses loopback", nil, a.URL, false},
		{"IP and port", []string{a.hostPort()}, a.URL, true},
		{"IP and port, another port", []string{a.hostPort()}, b.URL, false},
		{"name and port", []string{"localhost:" + a.port()}, "http://localhost:" + a.port() + "/", true},
		{"name and port, any case, trailing dot", []string{"LocalHost.:" + a.port()}, "http://localhost:" + a.port() + "/", true},
		{"name and port does not open the IP", []string{"localhost:" + a.port()}, a.URL, false},
		{"name and port, another port", []string{"localhost:" + a.port()}, "http://localhost:" + b.port() + "/", false},
		{"IPv4-mapped entry matches IPv4", []string{"[::ffff:127.0.0.1]:" + a.port()}, a.URL, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := netguard.New(netguard.Options{Allow: tt.allow, Setting: "HANDS_NET_ALLOW"})
			if err != nil {
				t.Fatal(err)
			}
			err = get(t, g, tt.url)
			if tt.wantOpen && err != nil {
				t.Fatalf("GET %s = %v, want it allowed", tt.url, err)
			}
			if !tt.wantOpen {
				berr, ok := errors.AsType[*netguard.BlockedError](err)
				if !ok || !errors.Is(err, netguard.ErrBlocked) || berr.Reason != "loopback" {
					t.Fatalf("GET %s = %v, want a loopback *BlockedError", tt.url, err)
				}
				if !strings.Contains(err.Error(), "HANDS_NET_ALLOW") {
					t.Errorf("refusal %q does not name the setting", err)
				}
			}
		})
	}
	if n := b.hits.Load(); n != 0 {
		t.Errorf("the server no entry allowed was reached %d times", n)
	}
}

// TestTrustConfiguredBackend trusts the endpoint an operator configured,
// and guards what it returns: a redirect to another private endpoint is
// refused, one back to itself is followed.
func TestTrustConfiguredBackend(t *testing.T) {
	backend, other := newServer(t), newServer(t)
	g, err := (*netguard.Guard)(nil).Trust(backend.hostPort())
	if err != nil {
		t.Fatal(err)
	}
	if err := get(t, g, backend.URL+"/"); err != nil {
		t.Fatalf("the configured backend was refused: %v", err)
	}
	if err := get(t, g, backend.URL+"/?u="+url.QueryEscape(backend.URL+"/again")); err != nil {
		t.Fatalf("a redirect back to the configured backend was refused: %v", err)
	}
	err = get(t, g, backend.URL+"/?u="+url.QueryEscape(other.URL+"/"))
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("a redirect from the backend to another loopback server = %v, want ErrBlocked", err)
	}
	if n := other.hits.Load(); n != 0 {
		t.Errorf("the redirect target was reached %d times", n)
	}
	// Trust copies: the guard it came from is unchanged.
	base, err := netguard.New(netguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := base.Trust(backend.hostPort()); err != nil {
		t.Fatal(err)
	}
	if err := get(t, base, backend.URL); !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("Trust changed the guard it was called on: GET = %v", err)
	}
}

// TestEndpoint makes a URL's port explicit as Trust wants it, and Trust
// takes what it returns.
func TestEndpoint(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://api.example.com/v1/search", "api.example.com:443"},
		{"http://api.example.com/v1", "api.example.com:80"},
		{"https://api.example.com:8443/", "api.example.com:8443"},
		{"http://10.0.0.5:8888/search", "10.0.0.5:8888"},
		{"https://[2001:db8::1]/", "[2001:db8::1]:443"},
		{"http://[::1]:8080/", "[::1]:8080"},
	} {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got := netguard.Endpoint(u)
		if got != tt.want {
			t.Errorf("Endpoint(%s) = %q, want %q", tt.url, got, tt.want)
		}
		if _, err := (*netguard.Guard)(nil).Trust(got); err != nil {
			t.Errorf("Trust(Endpoint(%s)): %v", tt.url, err)
		}
	}
	u, _ := url.Parse("ftp://files.example.com/")
	if got := netguard.Endpoint(u); got != "files.example.com" {
		t.Errorf("Endpoint(%s) = %q, want the host alone", u, got)
	}
	if _, err := (*netguard.Guard)(nil).Trust(netguard.Endpoint(u)); err == nil {
		t.Errorf("Trust(Endpoint(%s)) took an endpoint without a port", u)
	}
}

// TestAllowPrivate turns the guard off, and leaves nothing else changed.
func TestAllowPrivate(t *testing.T) {
	s := newServer(t)
	g, err := netguard.New(netguard.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := get(t, g, s.URL); err != nil {
		t.Fatalf("AllowPrivate: GET = %v", err)
	}
	if err := g.Check(netip.MustParseAddrPort("169.254.169.254:80")); err != nil {
		t.Errorf("AllowPrivate: Check(metadata) = %v", err)
	}
}

// TestParseList reads an operator's list and refuses what is not an
// endpoint, saying how to write one.
func TestParseList(t *testing.T) {
	got, err := netguard.ParseList(" 10.0.0.5:8080, [fd00::5]:443 ,,search.internal:443 ")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"10.0.0.5:8080", "[fd00::5]:443", "search.internal:443"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ParseList = %q, want %q", got, want)
	}
	for _, bad := range []string{"10.0.0.5", "search.internal", ":80", "host:0", "host:65536", "host:http", "http://host:80", "a b:80", "fd00::5:443"} {
		if _, err := netguard.ParseList(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseList(%q) = %v, want an error naming it", bad, err)
		}
		if _, err := netguard.New(netguard.Options{Allow: []string{bad}}); err == nil {
			t.Errorf("New(Allow: %q) = nil error", bad)
		}
	}
}

// FuzzParseList never panics, and what it accepts, New accepts.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"10.0.0.5:8080", "[fd00::5]:443,a:1", "host:", ":", "[::1%eth0]:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := netguard.ParseList(s)
		if err != nil {
			return
		}
		if _, err := netguard.New(netguard.Options{Allow: list}); err != nil {
			t.Fatalf("ParseList(%q) = %q, which New refuses: %v", s, list, err)
		}
	})
}
