package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeRelaysExtensionTask runs hands serve in front of an upstream
// hands server of 2026-07-28 (stateless HTTP) whose tool runs as a task
// only and asks its user for a name while it runs. A client of hands
// serve calls it, end to end: the gateway's client calls the upstream
// with the tasks extension, and the question the upstream puts among its
// task's inputRequests reaches the client as its revision allows — at
// 2026-07-28 (a stateless gateway) among the inputRequests of the task
// the gateway made of the call, at 2025-11-25 (a stateful one) as
// elicitation/create — and the answer reaches the upstream's task, which
// runs once.
func TestServeRelaysExtensionTask(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		version string
	}{
		{"2026-07-28", []string{"--stateless"}, "2026-07-28"},
		{"2025-11-25", nil, "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type name struct {
				Name string `json:"name"`
			}
			var runs atomic.Int32
			greet := tool.New("greet", "Greet the user by name; it takes a while.", func(ctx context.Context, _ struct{}) (string, error) {
				runs.Add(1)
				mcpserver.BecomeTask(ctx) // ask through the task, which waits for the answer
				who, err := mcpserver.Elicit[name](ctx, "Your name?")
				if err != nil {
					return "", err
				}
				return "Hello, " + who.Name + "!", nil
			}, tool.WithTaskSupport(tool.TaskRequired))
			srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 50 * time.Millisecond}}, greet)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			methods := map[string]int{}
			handler := srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true})
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods[r.Header.Get("Mcp-Method")]++
				mu.Unlock()
				handler.ServeHTTP(w, r)
			}))
			t.Cleanup(upstream.Close)
			endpoint := serveInFront(t, upstream.URL, tc.args...)

			var asked atomic.Int32
			var who atomic.Value
			c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(endpoint, nil), &mcpclient.Options{
				Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					who.Store(ctx.Value(callerKey{}))
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if v := c.Session().InitializeResult().ProtocolVersion; v != tc.version {
				t.Fatalf("the client speaks %s to the gateway, the test needs %s", v, tc.version)
			}
			var greetTool tool.Interface
			for _, tl := range c.Tools() {
				if tl.Name() == "greet" {
					greetTool = tl
				}
			}
			if greetTool == nil {
				t.Fatal("the gateway does not serve greet")
			}
			ctx := context.WithValue(t.Context(), callerKey{}, "the caller")
			res := tool.Run(ctx, greetTool, tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{}`)})
			if res.IsError || res.Content != "Hello, Ada!" {
				t.Fatalf("greet through the gateway = %q (error %v), want the upstream task's greeting", res.Content, res.Err)
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("the client was asked %d times, want once", n)
			}
			if got := who.Load(); got != "the caller" {
				t.Errorf("the client's Elicit ran with the context of %v, want the call's", got)
			}
			if n := runs.Load(); n != 1 {
				t.Errorf("the upstream tool ran %d times, want once: its task waits for the answer", n)
			}
			mu.Lock()
			defer mu.Unlock()
			if methods["tasks/update"] != 1 || methods["tasks/get"] == 0 || methods["tasks/result"] != 0 {
				t.Errorf("the upstream got %v; want the task polled with tasks/get and answered by one tasks/update", methods)
			}
		})
	}
}

// callerKey is the context key of who makes a call, in the test's client.
type callerKey struct{}
