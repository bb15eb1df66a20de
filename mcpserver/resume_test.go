package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBodyTooLarge sends a tools/call over MaxBodyBytes: it is refused
// with 413 and a JSON-RPC error, and one within the limit is served.
func TestBodyTooLarge(t *testing.T) {
	const limit = 4 << 10
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, MaxBodyBytes: limit}))
	defer ts.Close()
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"` + name + `"}}}`
	}
	header := []string{"Mcp-Protocol-Version", "2025-11-25"}

	code, body := post(t, ts.Client(), ts.URL, "", call(strings.Repeat("a", limit)), header...)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: status %d, want 413 (%s)", code, body)
	}
	if !strings.Contains(body, `"jsonrpc":"2.0"`) || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, fmt.Sprint(limit)) {
		t.Errorf("a body over the limit: %s, want a JSON-RPC error that states the limit", body)
	}

	code, body = post(t, ts.Client(), ts.URL, "", call("Ada"), header...)
	if code != http.StatusOK || !strings.Contains(body, "hello Ada") {
		t.Errorf("a body within the limit: status %d, %s", code, body)
	}
}

// TestResume drops the event stream of a call half-way, after its first
// progress notification: the SDK's client reconnects with Last-Event-ID,
// and gets the rest of the progress and the result, each once. Without an
// event store the call is lost.
func TestResume(t *testing.T) {
	for _, tt := range []struct {
		name        string
		resumeBytes int
	}{
		{"resumable", 0},
		{"off", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				steps := tool.New("steps", "Work in three steps.", func(ctx context.Context, _ struct{}) (string, error) {
					tool.Progress(ctx, "step 1")
					select {
					case <-release:
					case <-ctx.Done():
						return "", ctx.Err()
					}
					tool.Progress(ctx, "step 2")
					tool.Progress(ctx, "step 3")
					return "done", nil
				})
				srv, err := mcpserver.NewTools(nil, steps)
				if err != nil {
					t.Fatal(err)
				}
				pn := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{ResumeBytes: tt.resumeBytes}))
				cut := &cutter{next: pn.Client.Transport, cut: make(chan struct{})}
				var mu sync.Mutex
				var progress []string
				client := mcp.NewClient(&mcp.Implementation{Name: "resume", Version: "1"}, &mcp.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
						mu.Lock()
						defer mu.Unlock()
						progress = append(progress, req.Params.Message)
					},
				})
				session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: pn.URL, HTTPClient: &http.Client{Transport: cut}, MaxRetries: 2}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer session.Close()
				go func() {
					<-cut.cut
					close(release) // the rest of the call happens while no stream is open
				}()
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				params := &mcp.CallToolParams{Name: "steps", Arguments: map[string]any{}}
				params.SetProgressToken("tok")
				res, err := session.CallTool(ctx, params)
				if tt.resumeBytes < 0 {
					if err == nil {
						t.Errorf("without an event store, the call came back: %+v", res)
					}
					t.Logf("without an event store: %v", err)
					return
				}
				if err != nil || res.IsError || text(res) != "done" {
					t.Fatalf("CallTool(steps) = %+v, %v; want done", res, err)
				}
				synctest.Wait() // every notification sent has arrived
				mu.Lock()
				got := strings.Join(progress, ", ")
				mu.Unlock()
				if got != "step 1, step 2, step 3" {
					t.Errorf("progress = %q, want each step once", got)
				}
				if cut.resumedFrom() == "" {
					t.Error("the client did not reconnect with Last-Event-ID")
				}
			})
		})
	}
}

// A cutter breaks the event stream of the first tools/call once its first
// progress notification has arrived, and records the Last-Event-ID of the
// request that resumes it.
type cutter struct {
	next http.RoundTripper
	cut  chan struct{} // closed when the stream has been broken

	mu      sync.Mutex
	done    bool
	resumed string
}

func (c *cutter) RoundTrip(r *http.Request) (*http.Response, error) {
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		c.mu.Lock()
		c.resumed = id
		c.mu.Unlock()
	}
	isCall := false
	if r.Method == http.MethodPost && r.Body != nil {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		isCall = bytes.Contains(data, []byte(`"tools/call"`))
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil || !isCall {
		return resp, err
	}
	c.mu.Lock()
	first := !c.done
	c.done = true
	c.mu.Unlock()
	if first {
		resp.Body = &cutBody{ReadCloser: resp.Body, cut: c.cut}
	}
	return resp, nil
}

func (c *cutter) resumedFrom() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resumed
}

// A cutBody passes an event stream on up to the end of the first progress
// notification's event, then fails as a broken connection does.
type cutBody struct {
	io.ReadCloser
	cut  chan struct{}
	seen []byte
	once sync.Once
	// failed is set once the body has been cut.
	failed bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.failed {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.ReadCloser.Read(p)
	b.seen = append(b.seen, p[:n]...)
	if i := bytes.Index(b.seen, []byte("notifications/progress")); i >= 0 {
		if end := bytes.Index(b.seen[i:], []byte("\n\n")); end >= 0 {
			// Pass on the whole event, then break.
			keep := n - (len(b.seen) - (i + end + 2))
			b.failed = true
			b.ReadCloser.Close()
			b.once.Do(func() { close(b.cut) })
			return keep, nil
		}
	}
	return n, err
}
