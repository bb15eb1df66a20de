package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deepSchema returns an object schema whose property "a" nests depth
// levels of object schemas.
func deepSchema(depth int) json.RawMessage {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString(`}}`)
	}
	return json.RawMessage(b.String())
}

// hostileServer returns an SDK server with the given tools, each answering
// "ok".
func hostileServer(tools ...*mcp.Tool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	for _, t := range tools {
		s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	return s
}

// connectTo connects a client to s over an in-memory transport.
func connectTo(t testing.TB, s *mcp.Server, opts *mcpclient.Options) (*mcpclient.Client, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, err := mcpclient.Connect(context.Background(), ct, opts)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// TestDeepSchemaRefused checks that a tool whose input schema nests deeper
// than the bound is refused before it is compiled, and that a shallow one
// beside it is offered.
func TestDeepSchemaRefused(t *testing.T) {
	s := hostileServer(
		&mcp.Tool{Name: "deep", Description: "Deep.", InputSchema: deepSchema(490)},
		&mcp.Tool{Name: "shallow", Description: "Shallow.", InputSchema: deepSchema(3)},
	)
	c, err := connectTo(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c.Tools()); len(got) != 1 || got[0] != "shallow" {
		t.Errorf("Tools() = %v, want [shallow]", got)
	}
	refused := c.Refused()
	if len(refused) != 1 || !errors.Is(refused[0], dynamic.ErrSchemaTooDeep) {
		t.Errorf("Refused() = %v, want one matching dynamic.ErrSchemaTooDeep", refused)
	}
}

// TestLargeToolRefused checks that a tool whose definition is larger than
// MaxToolBytes, by its description or its schema, is refused.
func TestLargeToolRefused(t *testing.T) {
	big := strings.Repeat("word ", 20000)
	var props strings.Builder
	props.WriteString(`{"type":"object","properties":{`)
	for i := range 5000 {
		if i > 0 {
			props.WriteByte(',')
		}
		props.WriteString(`"property_` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	props.WriteString(`}}`)
	s := hostileServer(
		&mcp.Tool{Name: "wordy", Description: big, InputSchema: json.RawMessage(`{"type":"object"}`)},
		&mcp.Tool{Name: "wide", Description: "Wide.", InputSchema: json.RawMessage(props.String())},
		&mcp.Tool{Name: "fine", Description: "Fine.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	)
	c, err := connectTo(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c.Tools()); len(got) != 1 || got[0] != "fine" {
		t.Errorf("Tools() = %v, want [fine]", got)
	}
	refused := c.Refused()
	if len(refused) != 2 {
		t.Fatalf("Refused() = %v, want two", refused)
	}
	for _, err := range refused {
		if !errors.Is(err, mcpclient.ErrToolTooLarge) || !errors.Is(err, mcpclient.ErrToolRefused) {
			t.Errorf("Refused() has %v, want it to match ErrToolTooLarge and ErrToolRefused", err)
		}
		if size, ok := errors.AsType[*mcpclient.SizeError](err); !ok || size.Limit != mcpclient.DefaultMaxToolBytes || size.Bytes <= size.Limit {
			t.Errorf("Refused() has %v, want a *SizeError over the default bound", err)
		}
		if strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "over the bound") {
			t.Errorf("Refused() has %q, want the size as its reason", err)
		}
	}
}

// bigResultServer serves an MCP server over streamable HTTP with JSON
// responses, whose tool "big" answers with size bytes of text, written in
// small pieces from one buffer so that the server itself holds little.
// written counts the bytes of the answers to tools/call that the client
// took.
func bigResultServer(t testing.TB, size int) (ts *httptest.Server, written *atomic.Int64) {
	return bigAnswerServer(t, "tools/call", false, size)
}

// bigAnswerServer serves an MCP server over streamable HTTP whose answer
// to method (tools/call, of a tool "big", or tools/list) holds size bytes
// of text, as a JSON body or, with stream, as one server-sent event,
// written in small pieces from one buffer so that the server itself holds
// little. written counts the bytes of those answers that the client took.
func bigAnswerServer(t testing.TB, method string, stream bool, size int) (ts *httptest.Server, written *atomic.Int64) {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "big", Description: "Answer at length.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("answered by the handler below")
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: !stream})
	head, tail := `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, `"}]}}`
	if method == "tools/list" {
		head = `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"description":"`
	}
	contentType := "application/json"
	if stream {
		head, tail, contentType = "data: "+head, tail+"\n\n", "text/event-stream"
	}
	written = new(atomic.Int64)
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		json.Unmarshal(body, &req)
		if req.Method != method {
			r.Body = io.NopCloser(bytes.NewReader(body))
			sdk.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		count := func(n int, err error) error { written.Add(int64(n)); return err }
		if count(fmt.Fprintf(w, head, req.ID)) != nil {
			return
		}
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for left := size; left > 0; left -= len(chunk) {
			if count(w.Write(chunk[:min(left, len(chunk))])) != nil {
				return
			}
		}
		count(io.WriteString(w, tail))
	}))
	t.Cleanup(ts.Close)
	return ts, written
}

// TestBigResultOverHTTP checks that a result larger than
// DefaultMaxMessageBytes, answered as one JSON body, is refused as it is
// read: the call fails, the client takes little more than the bound, and
// allocates a small multiple of it (without the bound: 80 times it).
func TestBigResultOverHTTP(t *testing.T) {
	const size = 6 * mcpclient.DefaultMaxMessageBytes
	ts, written := bigResultServer(t, size)
	c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := call(t.Context(), find(t, c, "big"), "big", `{}`)
	runtime.ReadMemStats(&after)
	if !res.IsError {
		t.Errorf("a result of %d bytes over a bound of %d was taken: %d bytes of content", size, mcpclient.DefaultMaxMessageBytes, len(res.Content))
	}
	if got := written.Load(); got > 2*mcpclient.DefaultMaxMessageBytes {
		t.Errorf("the client took %d bytes of a %d-byte result, over a bound of %d", got, size, mcpclient.DefaultMaxMessageBytes)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*mcpclient.DefaultMaxMessageBytes {
		t.Errorf("the call allocated %d bytes for a %d-byte result, over 8 times the bound of %d", got, size, mcpclient.DefaultMaxMessageBytes)
	}
}

// TestWatchedListingBound has a server answer tools/list with one event of
// four times DefaultMaxMessageBytes, which the client reads through its
// watch of the HTTP exchanges (it keeps the schemas as sent): the listing
// fails, having read little more than the bound, and the client allocates
// a small multiple of it.
func TestWatchedListingBound(t *testing.T) {
	const size = 4 * mcpclient.DefaultMaxMessageBytes
	ts, written := bigAnswerServer(t, "tools/list", true, size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, nil), nil)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatalf("a listing of %d bytes over a bound of %d was taken", size, mcpclient.DefaultMaxMessageBytes)
	}
	if got := written.Load(); got > 2*mcpclient.DefaultMaxMessageBytes {
		t.Errorf("the client took %d bytes of a %d-byte listing, over a bound of %d", got, size, mcpclient.DefaultMaxMessageBytes)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*mcpclient.DefaultMaxMessageBytes {
		t.Errorf("connecting allocated %d bytes for a %d-byte listing, over 8 times the bound of %d", got, size, mcpclient.DefaultMaxMessageBytes)
	}
}

// TestHangingServer checks that a server that never answers initialize,
// or whose tool list never ends, cannot hold up Connect.
func TestHangingServer(t *testing.T) {
	t.Run("silent initialize", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // the test's own bound, far past the client's
		defer cancel()
		ct, st := mcp.NewInMemoryTransports()
		conn, err := st.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go func() { // reads every message, answers none
			for {
				if _, err := conn.Read(ctx); err != nil {
					return
				}
			}
		}()
		c, err := mcpclient.Connect(ctx, ct, &mcpclient.Options{ListTimeout: 500 * time.Millisecond})
		if err == nil {
			c.Close()
			t.Fatal("Connect succeeded")
		}
		if ctx.Err() != nil {
			t.Fatalf("Connect returned only at the test's own deadline: %v", err)
		}
	})
	for _, tt := range []struct {
		name string
		mw   mcp.Middleware
	}{
		{"endless pages", func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					return &mcp.ListToolsResult{Tools: []*mcp.Tool{}, NextCursor: "more"}, nil
				}
				return next(ctx, method, req)
			}
		}},
		{"slow pages", func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					select {
					case <-ctx.Done():
					case <-time.After(50 * time.Millisecond):
					}
					return &mcp.ListToolsResult{Tools: []*mcp.Tool{}, NextCursor: "more"}, nil
				}
				return next(ctx, method, req)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := hostileServer(&mcp.Tool{Name: "fine", Description: "Fine.", InputSchema: json.RawMessage(`{"type":"object"}`)})
			s.AddReceivingMiddleware(tt.mw)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // the test's own bound, far past the client's
			defer cancel()
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			c, err := mcpclient.Connect(ctx, ct, &mcpclient.Options{ListTimeout: 500 * time.Millisecond, MaxListPages: 20})
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if ctx.Err() != nil {
				t.Fatalf("Connect returned only at the test's own deadline: %v", err)
			}
		})
	}
}

// TestUpstreamResultBudget checks that a tool whose server declares
// anthropic/maxResultSizeChars gets that budget: a registry with budgets on
// cuts its results to it rather than to its default, and values that are
// not a positive whole number are not read.
func TestUpstreamResultBudget(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	whole := strings.Repeat("row of the table\n", 2000)
	for name, declared := range map[string]any{"declared": 3000.0, "huge": 9e9, "fraction": 2000.5, "text": "2000"} {
		s.AddTool(&mcp.Tool{Name: name, Description: "Big.", InputSchema: map[string]any{"type": "object"}, Meta: mcp.Meta{"anthropic/maxResultSizeChars": declared}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: whole}}}, nil
			})
	}
	c, err := connectTo(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "up", Tools: c.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.SetBudget(&tool.Budget{Default: 1000}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"declared": 3000, "huge": 500_000, "fraction": 1000, "text": 1000} {
		res := tool.Run(t.Context(), reg, tool.Call{Name: name, Args: json.RawMessage(`{}`)})
		got := 0
		if res.Cut != nil {
			got = res.Cut.Budget
		}
		if want == 500_000 {
			if res.Cut != nil {
				t.Errorf("%s: cut to %d, want the whole %d bytes within the budget 500000", name, got, len(whole))
			}
			continue
		}
		if got != want || len(res.Content) > want {
			t.Errorf("%s: cut to %d (%d bytes), want %d", name, got, len(res.Content), want)
		}
	}
}
