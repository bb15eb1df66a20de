package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// layers counts the frames on the calling goroutine's stack of methods
// named method of the module's packages but the tests': the wrappers of
// a connection or round tripper between the SDK and the caller.
type layers struct {
	method string
	mu     sync.Mutex
	most   int
}

func (l *layers) count() {
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	n := 0
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/hands-go/hands/") && !strings.Contains(f.Function, "_test.") && strings.HasSuffix(f.Function, "."+l.method) {
			n++
		}
		if !more {
			break
		}
	}
	l.mu.Lock()
	l.most = max(l.most, n)
	l.mu.Unlock()
}

// deepest returns the most frames counted at once.
func (l *layers) deepest() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.most
}

// countingRoundTripper counts the round trippers above it.
type countingRoundTripper struct{ l *layers }

func (c countingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	c.l.count()
	return http.DefaultTransport.RoundTrip(r)
}

// countingTransport counts the connections wrapped around its own.
type countingTransport struct {
	next mcp.Transport
	l    *layers
}

func (t countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.next.Connect(ctx)
	return countingConn{conn, t.l}, err
}

type countingConn struct {
	mcp.Connection
	l *layers
}

func (c countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.l.count()
	return c.Connection.Read(ctx)
}

// TestOneWireLayer checks that the client's stages are one layer of a
// connection: over stdio (Command's CommandTransport), one wrapper of
// the connection reads each message; over streamable HTTP (HTTPWith),
// one round tripper of the client's makes each exchange, headers, bounds
// and stages together, for a client that relays the server's requests,
// whose stages all look at a call.
func TestOneWireLayer(t *testing.T) {
	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	opts := &mcpclient.Options{Elicit: elicit}
	t.Run("stdio", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestExitingServer$")
		cmd.Env = append(os.Environ(), "MCPCLIENT_TEST_SERVER=exiting")
		l := &layers{method: "Read"}
		c, err := mcpclient.Connect(t.Context(), countingTransport{&mcpclient.CommandTransport{Command: cmd}, l}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if res := call(t.Context(), find(t, c, "live"), "live", `{}`); res.IsError {
			t.Fatal(res.Err)
		}
		if n := l.deepest(); n != 1 {
			t.Errorf("a message read passes %d wrappers of the connection, want 1", n)
		}
	})
	t.Run("http", func(t *testing.T) {
		s := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "live", Description: "Answer.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alive"}}}, nil
			})
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		defer ts.Close()
		l := &layers{method: "RoundTrip"}
		transport, err := mcpclient.HTTPWith(ts.URL, &mcpclient.HTTPOptions{Header: http.Header{"X-Test": {"1"}}, HTTPClient: &http.Client{Transport: countingRoundTripper{l}}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := mcpclient.Connect(t.Context(), transport, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if res := call(t.Context(), find(t, c, "live"), "live", `{}`); res.IsError {
			t.Fatal(res.Err)
		}
		if n := l.deepest(); n != 1 {
			t.Errorf("an exchange passes %d round trippers of the client's, want 1", n)
		}
	})
}
