package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// post sends one JSON-RPC message to url as a streamable HTTP client does,
// and returns the response's status and body.
func post(t *testing.T, client *http.Client, url, session, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

func liveSessions(srv *mcpserver.Server) int {
	n := 0
	for range srv.MCP().Sessions() {
		n++
	}
	return n
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSessionFlood floods the server with bare initialize requests, which
// open sessions that are never used: the cap holds during the flood, and
// after the idle timeout every session is gone and the heap is back where
// it started. It runs in a synctest bubble, over net.Pipe: the flood takes
// no time on the bubble's clock, however busy the machine, so every request
// past the cap is refused, and the idle timeout passes exactly when the
// test sleeps past it. The flood comes twice, and the heap is measured
// around the second: the runtime keeps the descriptors of goroutines that
// have ended, for reuse, and after the first flood it has all it needs.
func TestSessionFlood(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const requests, workers, maxSessions = 3000, 8, 1000
		const idle = 2 * time.Second
		f := newFixture(t)
		srv := mcpserver.New(f.reg, nil)
		net := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{SessionTimeout: idle, MaxSessions: maxSessions}))

		for round := 1; round <= 2; round++ {
			before, goroutines := heapAlloc(), runtime.NumGoroutine()
			var opened, refused, other atomic.Int64
			var most atomic.Int64
			next := make(chan int)
			var wg sync.WaitGroup
			start := time.Now()
			for range workers {
				wg.Go(func() {
					for range next {
						code, _ := post(t, net.Client, net.URL, "", initialize)
						switch code {
						case http.StatusOK:
							opened.Add(1)
						case http.StatusServiceUnavailable:
							refused.Add(1)
						default:
							other.Add(1)
						}
						if n := int64(liveSessions(srv)); n > most.Load() {
							most.Store(n) // racy maximum; good enough for a bound
						}
					}
				})
			}
			for i := range requests {
				next <- i
			}
			close(next)
			wg.Wait()
			if took := time.Since(start); took >= idle {
				t.Fatalf("flood %d took %v on the bubble's clock, not less than the idle timeout of %v", round, took, idle)
			}
			during := heapAlloc()
			t.Logf("flood %d, %d requests: %d sessions opened, %d refused; at most %d open; heap %d KiB before, %d KiB after the flood",
				round, requests, opened.Load(), refused.Load(), most.Load(), before>>10, during>>10)
			if other.Load() != 0 {
				t.Errorf("flood %d: %d responses were neither 200 nor 503", round, other.Load())
			}
			if most.Load() > maxSessions {
				t.Errorf("flood %d: %d sessions were open at once, over the cap of %d", round, most.Load(), maxSessions)
			}
			if opened.Load() != maxSessions || refused.Load() != requests-maxSessions {
				t.Errorf("flood %d: %d sessions opened and %d requests refused, want %d and %d", round, opened.Load(), refused.Load(), maxSessions, requests-maxSessions)
			}

			time.Sleep(idle)
			synctest.Wait()
			if n := liveSessions(srv); n != 0 {
				t.Fatalf("flood %d: %d sessions still open %v after the flood", round, n, idle)
			}
			net.Client.CloseIdleConnections()
			synctest.Wait() // connection goroutines end as their connections close
			after := heapAlloc()
			t.Logf("flood %d: heap %d KiB and %d goroutines (%d before) once the sessions timed out", round, after>>10, runtime.NumGoroutine(), goroutines)
			// More would be the flood's, left behind; fewer are goroutines
			// of earlier tests that ended meanwhile, outside the bubble.
			if n := runtime.NumGoroutine(); n > goroutines {
				t.Errorf("flood %d: %d goroutines after the flood, %d before", round, n, goroutines)
			}
			// A session that leaked would keep most of the 5 KiB or so it
			// took; a tenth of it, over a thousand sessions, is the bound.
			if grown := int64(after) - int64(before); round == 2 && grown > int64(during-before)/10 {
				t.Errorf("heap after the flood = %d KiB, want near %d KiB (it was %d KiB during the flood)", after>>10, before>>10, during>>10)
			}
		}
	})
}

func TestOrigin(t *testing.T) {
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}}))
	defer ts.Close()
	for _, tt := range []struct {
		origin string
		status int
	}{
		{"", http.StatusOK},
		{"http://localhost:3000", http.StatusOK},
		{"http://127.0.0.1", http.StatusOK},
		{"http://[::1]:8080", http.StatusOK},
		{"https://app.example.com", http.StatusOK},
		{"https://evil.example.com", http.StatusForbidden},
		{"http://localhost.evil.example.com", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		var header []string
		if tt.origin != "" {
			header = []string{"Origin", tt.origin}
		}
		code, body := post(t, ts.Client(), ts.URL, "", initialize, header...)
		if code != tt.status {
			t.Errorf("POST with Origin %q: status %d, want %d (%s)", tt.origin, code, tt.status, body)
		}
		if code == http.StatusForbidden && !strings.Contains(body, `"code":-32600`) {
			t.Errorf("POST with Origin %q: body %s, want a JSON-RPC error", tt.origin, body)
		}
	}
}

// TestSlowBody sends a request whose body trickles in, a byte every 50 ms,
// and requires the server to give up on it at the body timeout. On the
// clock of a synctest bubble the answer comes at the timeout exactly (to
// the next byte), however busy the machine.
func TestSlowBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout, every = 300 * time.Millisecond, 50 * time.Millisecond
		f := newFixture(t)
		srv := mcpserver.New(f.reg, nil)
		pn := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{BodyTimeout: timeout}))
		conn, err := pn.dial(t.Context(), "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		written := make(chan struct{})
		go func() {
			defer close(written)
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: mcp.test\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", len(initialize))
			for i := range len(initialize) {
				if _, err := conn.Write([]byte{initialize[i]}); err != nil {
					return
				}
				time.Sleep(every)
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("reading the response: %v", err)
		}
		resp.Body.Close()
		elapsed := time.Since(start)
		conn.Close() // ends the writer
		<-written
		if resp.StatusCode != http.StatusRequestTimeout {
			t.Errorf("status %d, want 408", resp.StatusCode)
		}
		if elapsed < timeout || elapsed > timeout+every {
			t.Errorf("the server gave up on a body trickling in after %v, with a body timeout of %v", elapsed, timeout)
		}
	})
}

// TestStatelessCancel checks that in stateless mode a client that goes
// away ends its call: its HTTP request is the only sign it gives.
func TestStatelessCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		srv := mcpserver.New(f.reg, nil)
		pn := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true}))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			select { // f.waitStarted would call t.Fatal off the test's goroutine
			case <-f.started:
			case <-time.After(time.Minute):
			}
			cancel() // the client goes away while the call runs
		}()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, pn.URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"steps":1,"wait":true}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if resp, err := pn.Client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body) // the stream ends when ctx does
			resp.Body.Close()
		}
		select {
		case err := <-f.cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the handler saw %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the handler's context did not end when the client went away")
		}
	})
}

// TestBearerToken protects the endpoint with a token: a request without it
// is refused and told where the resource metadata is, which is served; a
// request with it is served, and its handler knows the user.
func TestBearerToken(t *testing.T) {
	whoami := tool.New("whoami", "Say who calls.", func(ctx context.Context, _ struct{}) (string, error) {
		c, ok := mcpserver.CallerFrom(ctx)
		if !ok || c.Token == nil {
			return "", errors.New("no token")
		}
		return c.Token.UserID, nil
	})
	srv, err := mcpserver.NewTools(nil, whoami)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	metadata := ts.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", srv.HTTPHandler(&mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "ada"), ResourceMetadataURL: metadata}))
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             ts.URL + "/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
	}))

	for _, token := range []string{"", "wrong"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), metadata) {
			t.Errorf("token %q: status %d, WWW-Authenticate %q; want 401 pointing to %s", token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), metadata)
		}
	}
	resp, err := ts.Client().Get(metadata)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "https://auth.example.com") {
		t.Errorf("resource metadata = %s", body)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "auth", Version: "1"}, nil)
	httpClient := &http.Client{Transport: bearer{"s3cret", ts.Client().Transport}}
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "ada" {
		t.Errorf("CallTool(whoami) = %+v, %v; want ada", res, err)
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
