package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolbox/web"
)

// A server is a test HTTP server on 127.0.0.1 that counts its requests.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.Handler) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// addr returns the server's address.
func (s *server) addr() netip.AddrPort {
	return netip.MustParseAddrPort(s.Listener.Addr().String())
}

// port returns the server's port.
func (s *server) port() string {
	return fmt.Sprint(s.addr().Port())
}

// only returns options whose guard lets through exactly these servers'
// addresses and stays on for every other address, loopback ones included.
func only(opts *web.FetchOptions, servers ...*server) *web.FetchOptions {
	if opts == nil {
		opts = &web.FetchOptions{}
	}
	for _, s := range servers {
		opts.Allow = append(opts.Allow, s.addr().String())
	}
	return opts
}

func fetch(t *testing.T, f *tool.Tool[web.FetchArgs, string], u string) (string, error) {
	t.Helper()
	return f.CallJSON(t.Context(), json.RawMessage(fmt.Sprintf(`{"url":%q}`, u)))
}

const page = `<!doctype html>
<html><head><title>Ignored title</title><style>p { color: red }</style><script>alert("x")</script></head>
<body>
<h1>Release notes</h1>
<p>Version <strong>2.0</strong> is <em>out</em>. See <a href="/docs/intro">the intro</a>.</p>
<ul><li>faster</li><li>smaller</li></ul>
<table><tr><th>OS</th><th>Status</th></tr><tr><td>Linux</td><td>ok</td></tr></table>
</body></html>`

func TestFetchMarkdown(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	for name, opts := range map[string]*web.FetchOptions{
		"AllowPrivate": {AllowPrivate: true},
		"guard":        only(nil, srv),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := fetch(t, web.FetchMarkdown(opts), srv.URL+"/notes")
			if err != nil {
				t.Fatalf("fetch_markdown = %v", err)
			}
			want := "# Release notes\n\n" +
				"Version **2.0** is *out*. See [the intro](" + srv.URL + "/docs/intro).\n\n" +
				"- faster\n- smaller\n\n" +
				"| OS | Status |\n|---|---|\n| Linux | ok |"
			if got != want {
				t.Errorf("fetch_markdown =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestFetchText(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "just <b>text</b>")
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a":1}`)
		case "/problem":
			w.Header().Set("Content-Type", "application/problem+json")
			fmt.Fprint(w, `{"title":"x"}`)
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("caf\xe9"))
		case "/untyped-text":
			w.Header()["Content-Type"] = nil // no sniffing by the server
			fmt.Fprint(w, "no type, but text")
		case "/untyped-html":
			w.Header()["Content-Type"] = nil
			fmt.Fprint(w, "<html><body><p>sniffed <em>html</em></p></body></html>")
		case "/empty":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body><script>1</script></body></html>")
		}
	}))
	f := web.FetchMarkdown(only(nil, srv))
	for _, tt := range []struct{ path, want string }{
		{"/plain", "just <b>text</b>"},
		{"/json", `{"a":1}`},
		{"/problem", `{"title":"x"}`},
		{"/latin1", "café"},
		{"/untyped-text", "no type, but text"},
		{"/untyped-html", "sniffed *html*"},
		{"/empty", "(the page has no text content)"},
	} {
		got, err := fetch(t, f, srv.URL+tt.path)
		if err != nil || got != tt.want {
			t.Errorf("fetch_markdown(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

// TestFetchRefusals has one row for each refusal of fetch_markdown.
func TestFetchRefusals(t *testing.T) {
	const maxBytes = 1 << 10
	var other *server // a second loopback server that the guard does not allow
	other = newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-other":
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, "http://localhost:"+other.port()+"/", http.StatusFound)
		case "/to-ipv6-loopback":
			http.Redirect(w, r, "http://[::1]:"+other.port()+"/", http.StatusFound)
		case "/to-mapped-loopback":
			http.Redirect(w, r, "http://[::ffff:127.0.0.1]:"+other.port()+"/", http.StatusFound)
		case "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/file", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		case "/pdf":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.7")
		case "/octet":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2})
		case "/sniffed-binary":
			w.Header()["Content-Type"] = nil
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", fmt.Sprint(maxBytes+1))
			w.Write([]byte(strings.Repeat("x", maxBytes+1)))
		case "/big-streamed":
			w.Header().Set("Content-Type", "text/plain")
			for range 4 {
				w.Write([]byte(strings.Repeat("x", maxBytes/2)))
				w.(http.Flusher).Flush()
			}
		case "/missing":
			http.NotFound(w, r)
		case "/error":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		}
	}))
	f := web.FetchMarkdown(only(&web.FetchOptions{MaxBytes: maxBytes, Timeout: time.Minute}, srv))
	short := web.FetchMarkdown(only(&web.FetchOptions{MaxBytes: maxBytes, Timeout: 300 * time.Millisecond}, srv)) // for /slow alone
	for _, tt := range []struct {
		name    string
		url     string
		wantErr error  // a sentinel, for a refusal of the handler
		path    string // "/url", for a validation error
	}{
		{name: "loopback server, guard on", url: other.URL + "/", wantErr: netguard.ErrBlocked},
		{name: "localhost resolves to loopback", url: "http://localhost:" + other.port() + "/", wantErr: netguard.ErrBlocked},
		{name: "IPv6 loopback", url: "http://[::1]:" + other.port() + "/", wantErr: netguard.ErrBlocked},
		{name: "redirect to a loopback server", url: srv.URL + "/to-other", wantErr: netguard.ErrBlocked},
		{name: "redirect to localhost", url: srv.URL + "/to-localhost", wantErr: netguard.ErrBlocked},
		{name: "redirect to IPv6 loopback", url: srv.URL + "/to-ipv6-loopback", wantErr: netguard.ErrBlocked},
		{name: "redirect to IPv4-mapped loopback", url: srv.URL + "/to-mapped-loopback", wantErr: netguard.ErrBlocked},
		{name: "redirect to ftp", url: srv.URL + "/to-ftp", wantErr: toolbox.ErrRedirect},
		{name: "redirect to file", url: srv.URL + "/to-file", wantErr: toolbox.ErrRedirect},
		{name: "too many redirects", url: srv.URL + "/loop", wantErr: toolbox.ErrRedirect},
		{name: "image", url: srv.URL + "/png", wantErr: toolbox.ErrContentType},
		{name: "pdf", url: srv.URL + "/pdf", wantErr: toolbox.ErrContentType},
		{name: "octet-stream", url: srv.URL + "/octet", wantErr: toolbox.ErrContentType},
		{name: "sniffed binary", url: srv.URL + "/sniffed-binary", wantErr: toolbox.ErrContentType},
		{name: "body over the limit, by its length", url: srv.URL + "/big", wantErr: toolbox.ErrTooLarge},
		{name: "body over the limit, streamed", url: srv.URL + "/big-streamed", wantErr: toolbox.ErrTooLarge},
		{name: "404", url: srv.URL + "/missing", wantErr: toolbox.ErrStatus},
		{name: "500", url: srv.URL + "/error", wantErr: toolbox.ErrStatus},
		{name: "timeout", url: srv.URL + "/slow", wantErr: context.DeadlineExceeded},
		{name: "ftp URL", url: "ftp://example.com/file", path: "/url"},
		{name: "file URL", url: "file:///etc/passwd", path: "/url"},
		{name: "javascript URL", url: "javascript:alert(1)", path: "/url"},
		{name: "not a URL", url: "example.com/page", path: "/url"},
		{name: "no host", url: "http:///page", path: "/url"},
		{name: "URL too long", url: "https://example.com/" + strings.Repeat("a", 2048), path: "/url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := other.hits.Load()
			fetcher := f
			if strings.HasSuffix(tt.url, "/slow") {
				fetcher = short
			}
			_, err := fetch(t, fetcher, tt.url)
			if tt.path != "" {
				verr, ok := errors.AsType[*tool.ValidationError](err)
				if !ok || len(verr.Issues) == 0 || verr.Issues[0].Path != tt.path {
					t.Errorf("fetch_markdown(%.80s) = %v, want a validation issue at %s", tt.url, err, tt.path)
				}
			} else if !errors.Is(err, tt.wantErr) {
				t.Errorf("fetch_markdown(%.80s) = %v, want %v", tt.url, err, tt.wantErr)
			}
			if n := other.hits.Load() - before; n != 0 {
				t.Errorf("fetch_markdown(%.80s) reached the unallowed server %d times", tt.url, n)
			}
		})
	}
}

// TestFetchGuardDefault checks the production default: no options, and a
// server on 127.0.0.1 is refused before any request reaches it.
func TestFetchGuardDefault(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	for _, u := range []string{srv.URL, "http://localhost:" + srv.port() + "/"} {
		_, err := fetch(t, web.FetchMarkdown(nil), u)
		berr, ok := errors.AsType[*netguard.BlockedError](err)
		if !ok || !errors.Is(err, netguard.ErrBlocked) || berr.Reason != "loopback" {
			t.Errorf("fetch_markdown(%s) = %v, want a loopback *BlockedError", u, err)
		}
	}
	// A caller's own *http.Transport gets the guard too.
	_, err := fetch(t, web.FetchMarkdown(&web.FetchOptions{Client: &http.Client{Transport: &http.Transport{}}}), srv.URL)
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("fetch_markdown with a caller's Transport = %v, want ErrBlocked", err)
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("the guarded tool reached the loopback server %d times", n)
	}
	res := tool.Run(t.Context(), web.FetchMarkdown(nil), tool.Call{Name: "fetch_markdown", Args: json.RawMessage(`{"url":"` + srv.URL + `"}`)})
	if !res.IsError || !strings.Contains(res.Content, "127.0.0.1 is a loopback address; only public internet addresses may be reached") {
		t.Errorf("Run = %+v, want an error result that names the loopback address", res)
	}
}

func TestFetchRedirects(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "arrived")
	}))
	f := web.FetchMarkdown(only(nil, srv))
	if got, err := fetch(t, f, fmt.Sprintf("%s/hop/%d", srv.URL, web.MaxRedirects)); err != nil || got != "arrived" {
		t.Errorf("fetch_markdown after %d redirects = %q, %v; want arrived", web.MaxRedirects, got, err)
	}
	if _, err := fetch(t, f, fmt.Sprintf("%s/hop/%d", srv.URL, web.MaxRedirects+1)); !errors.Is(err, toolbox.ErrRedirect) {
		t.Errorf("fetch_markdown after %d redirects = %v, want ErrRedirect", web.MaxRedirects+1, err)
	}
}

func TestFetchProgress(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>hi</p>")
	}))
	f := web.FetchMarkdown(only(nil, srv))
	var progress []any
	var result *tool.Result
	for ev := range f.Stream(t.Context(), tool.Call{Name: "fetch_markdown", Args: json.RawMessage(`{"url":"` + srv.URL + `/old"}`)}) {
		if ev.Result != nil {
			result = ev.Result
			continue
		}
		progress = append(progress, ev.Progress)
	}
	want := []any{"fetching " + srv.URL + "/old", "redirected to " + srv.URL + "/new", "converting 9 bytes of HTML"}
	if fmt.Sprint(progress) != fmt.Sprint(want) {
		t.Errorf("progress = %q, want %q", progress, want)
	}
	if result == nil || result.IsError || result.Content != "hi" {
		t.Errorf("result = %+v, want hi", result)
	}
}

// TestFetchCustomTransport checks that a RoundTripper the guard cannot
// wrap is refused, unless the guard is off.
func TestFetchCustomTransport(t *testing.T) {
	rt := roundTripper(func(r *http.Request) (*http.Response, error) { return nil, errors.New("unused") })
	func() {
		defer func() {
			if recover() == nil {
				t.Error("FetchMarkdown with a custom RoundTripper and the guard on did not panic")
			}
		}()
		web.FetchMarkdown(&web.FetchOptions{Client: &http.Client{Transport: rt}})
	}()
	web.FetchMarkdown(&web.FetchOptions{Client: &http.Client{Transport: rt}, AllowPrivate: true})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestFetchUserAgent(t *testing.T) {
	agents := make(chan string, 2)
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		fmt.Fprint(w, "ok")
	}))
	fetch(t, web.FetchMarkdown(only(nil, srv)), srv.URL)
	fetch(t, web.FetchMarkdown(only(&web.FetchOptions{UserAgent: "probe/2"}, srv)), srv.URL)
	if got := []string{<-agents, <-agents}; got[0] != web.DefaultUserAgent || got[1] != "probe/2" {
		t.Errorf("User-Agents = %q, want %q then probe/2", got, web.DefaultUserAgent)
	}
}

// TestFetchCanceled checks that the caller's cancellation is reported as
// such, not as the tool's timeout.
func TestFetchCanceled(t *testing.T) {
	started := make(chan struct{})
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	f := web.FetchMarkdown(only(nil, srv))
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := f.CallJSON(ctx, json.RawMessage(`{"url":"`+srv.URL+`"}`))
	if _, ok := errors.AsType[*tool.CanceledError](err); !ok || !errors.Is(err, context.Canceled) {
		t.Errorf("fetch_markdown(cancelled) = %v, want a *tool.CanceledError", err)
	}
}

// The listener addresses must be loopback ones: these tests never leave the
// machine.
func TestServersAreLocal(t *testing.T) {
	srv := newServer(t, http.NotFoundHandler())
	host, _, _ := net.SplitHostPort(srv.Listener.Addr().String())
	if u, _ := url.Parse(srv.URL); host != "127.0.0.1" || u.Hostname() != "127.0.0.1" {
		t.Errorf("test server listens on %s, want 127.0.0.1", host)
	}
}

// servePage returns a fetch_markdown tool and the URL of a server on
// 127.0.0.1 that serves page as HTML.
func servePage(t *testing.T, page []byte, opts *web.FetchOptions) (*tool.Tool[web.FetchArgs, string], string) {
	t.Helper()
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	return web.FetchMarkdown(only(opts, srv)), srv.URL + "/"
}

// TestFetchOutputLimit checks that a long page is cut at a character
// boundary, within the limit, with a note that says how much was cut.
func TestFetchOutputLimit(t *testing.T) {
	content := strings.Repeat("é", 3000) // 6000 bytes
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, content)
	}))
	note := regexp.MustCompile(`\n\n\[truncated: (\d+) more bytes; [^\]]*\]$`)
	for _, limit := range []int{2048, 2049, 4000, 5999} {
		f := web.FetchMarkdown(only(&web.FetchOptions{MaxOutputBytes: limit}, srv))
		out, err := fetch(t, f, srv.URL)
		if err != nil {
			t.Fatalf("fetch_markdown(limit %d) = %v", limit, err)
		}
		m := note.FindStringSubmatchIndex(out)
		if m == nil {
			t.Fatalf("fetch_markdown(limit %d) = %q, want a note at the end", limit, out[max(0, len(out)-200):])
		}
		kept := out[:m[0]]
		left, _ := strconv.Atoi(out[m[2]:m[3]])
		if len(out) > limit || !utf8.ValidString(kept) || !strings.HasPrefix(content, kept) || len(kept)+left != len(content) {
			t.Errorf("fetch_markdown(limit %d) returned %d bytes, kept %d valid=%v and said %d more; want at most %d bytes, a valid prefix and the rest counted",
				limit, len(out), len(kept), utf8.ValidString(kept), left, limit)
		}
	}
	f := web.FetchMarkdown(only(&web.FetchOptions{MaxOutputBytes: 6000}, srv))
	if out, err := fetch(t, f, srv.URL); err != nil || out != content {
		t.Errorf("fetch_markdown(limit = size) = %.40q…, %v; want the content whole", out, err)
	}
}

// TestFetchTimeoutCoversConversion checks that the timeout bounds the
// conversion too: a page that arrives in time but takes longer to convert
// ends the call at the deadline. The fetch must end before the deadline
// for that, so the timeout grows until it does.
func TestFetchTimeoutCoversConversion(t *testing.T) {
	page := []byte(strings.Repeat("<p>x<br>y", 35_000)) // a quarter of a second or more to convert
	for timeout := 50 * time.Millisecond; timeout < 2*time.Second; timeout *= 2 {
		f, u := servePage(t, page, &web.FetchOptions{Timeout: timeout})
		converting := false
		var res *tool.Result
		start := time.Now()
		for ev := range f.Stream(t.Context(), tool.Call{Name: "fetch_markdown", Args: json.RawMessage(fmt.Sprintf(`{"url":%q}`, u))}) {
			if s, ok := ev.Progress.(string); ok && strings.HasPrefix(s, "converting") {
				converting = true
			}
			if ev.Result != nil {
				res = ev.Result
			}
		}
		elapsed := time.Since(start)
		if !converting {
			continue // the fetch itself took the time; try a longer one
		}
		if res == nil || !errors.Is(res.Err, tool.ErrTimedOut) {
			t.Fatalf("fetch_markdown(slow conversion, timeout %v) = %v after %v, want a timeout", timeout, resultText(res), elapsed)
		}
		// The error shows the deadline cut the conversion (one that ran on
		// would have succeeded); the time only catches a call that waits
		// long past it, with a margin no load reaches.
		if elapsed > timeout+30*time.Second {
			t.Errorf("fetch_markdown(slow conversion, timeout %v) ended after %v", timeout, elapsed)
		}
		return
	}
	t.Skip("the fetch alone outlasted every timeout tried")
}

// resultText describes a result briefly, for a failure message.
func resultText(res *tool.Result) string {
	if res == nil {
		return "no result"
	}
	if res.IsError {
		return "error: " + res.Err.Error()
	}
	return fmt.Sprintf("%d bytes of content", len(res.Content))
}
