package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// whoKey marks the context of a call with who made it.
type whoKey struct{}

// TestRequestsNameTheirCall has an upstream's tool ask its client for a
// name while two calls, made for different people, are under way (until
// both have their answers): the
// client's Elicit sees the context of the call the request belongs to
// when the request names it — by coming on the call's HTTP stream, or by
// carrying the call's progress token — and the request's own context
// when it names none, or forges the client's mark.
func TestRequestsNameTheirCall(t *testing.T) {
	for _, tt := range []struct {
		transport string
		naming    string // how the upstream's request names the call
		want      bool   // whether Elicit sees the call's context
	}{
		{"streamable HTTP", "nothing", true}, // the stream does
		{"in memory", "progress token", true},
		{"in memory", "nothing", false},
		{"in memory", "a forged mark", false},
	} {
		t.Run(tt.transport+", "+tt.naming, func(t *testing.T) {
			var arrivals, answers atomic.Int32
			both, answered := make(chan struct{}), make(chan struct{})
			// A version on which a server may ask while it serves a call.
			up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
			up.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if arrivals.Add(1) == 2 {
						close(both)
					}
					select { // both calls are under way before either asks
					case <-both:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					params := &mcp.ElicitParams{Mode: "form", Message: "Your name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
					switch tt.naming {
					case "progress token":
						params.Meta = mcp.Meta{"progressToken": req.Params.GetProgressToken()}
					case "a forged mark":
						params.Meta = mcp.Meta{"hands/call": fmt.Sprintf("guessed %v", req.Params.GetProgressToken())}
					}
					res, err := req.Session.Elicit(ctx, params)
					if err != nil {
						return nil, err
					}
					if answers.Add(1) == 2 {
						close(answered)
					}
					select { // both calls are under way until both have their answers
					case <-answered:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
				})
			var transport mcp.Transport
			if tt.transport == "in memory" {
				ct, st := mcp.NewInMemoryTransports()
				ss, err := up.Connect(t.Context(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Close()
				transport = ct
			} else {
				ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
				defer ts.Close()
				transport = mcpclient.HTTP(ts.URL, nil)
			}
			var marks sync.Map // a mark the handler saw in the request
			c, err := mcpclient.Connect(t.Context(), transport, &mcpclient.Options{
				Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if m, ok := req.Params.Meta["hands/call"]; ok {
						marks.Store(m, true)
					}
					who, _ := ctx.Value(whoKey{}).(string)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ask := find(t, c, "ask")
			people := []string{"ada", "grace"}
			got := make([]string, len(people))
			var wg sync.WaitGroup
			for i, who := range people {
				wg.Go(func() {
					res := call(context.WithValue(t.Context(), whoKey{}, who), ask, "ask", `{}`)
					got[i] = res.Content
				})
			}
			wg.Wait()
			for i, who := range people {
				want := ""
				if tt.want {
					want = who
				}
				if got[i] != want {
					t.Errorf("%s's call was answered %q, want %q", who, got[i], want)
				}
			}
			marks.Range(func(m, _ any) bool {
				if tt.naming != "a forged mark" {
					t.Errorf("the handler saw the mark %v, which the client must take out", m)
				}
				return true
			})
		})
	}
}

// TestRequestsPutDownToCallsUnderWay has an upstream on a transport other
// than streamable HTTP ask its client, naming no call: with one call under
// way, Elicit sees that call's context; with two, the request's own, which
// holds both calls' contexts, in the order the calls began
// (CallsUnderWay); over streamable HTTP, where the stream names the call,
// CallsUnderWay holds none.
func TestRequestsPutDownToCallsUnderWay(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n, " calls"), func(t *testing.T) {
			var arrivals, answers atomic.Int32
			all, answered := make(chan struct{}), make(chan struct{})
			up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
			up.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if arrivals.Add(1) == int32(n) {
						close(all)
					}
					select { // every call is under way before any asks
					case <-all:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
					if err != nil {
						return nil, err
					}
					if answers.Add(1) == int32(n) {
						close(answered)
					}
					select { // every call is under way until all have their answers
					case <-answered:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
				})
			c, err := connectTo(t, up, &mcpclient.Options{
				Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if who, ok := ctx.Value(whoKey{}).(string); ok {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
					}
					var under []string
					for _, call := range mcpclient.CallsUnderWay(ctx) {
						under = append(under, call.Value(whoKey{}).(string))
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": fmt.Sprint(under)}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			ask := find(t, c, "ask")
			got := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				ctx := context.WithValue(t.Context(), whoKey{}, fmt.Sprint("caller ", i))
				wg.Go(func() { got[i] = call(ctx, ask, "ask", `{}`).Content })
				if n > 1 {
					for arrivals.Load() < int32(i+1) { // the calls begin in turn
						runtime.Gosched()
					}
				}
			}
			wg.Wait()
			want := []string{"caller 0"}
			if n == 2 {
				want = []string{"[caller 0 caller 1]", "[caller 0 caller 1]"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("the calls were answered %q, want %q", got, want)
			}
		})
	}
}
