package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPropertyOrder serves an upstream's tool through the client and
// mcpserver, and reads tools/list at the far end as bytes: the properties
// of both schemas come in the upstream's order, at every level, though
// the SDK decodes schemas into maps — over an in-memory transport (as
// over a command's pipes), and over streamable HTTP, whether the
// upstream answers with an event stream or a JSON body.
func TestPropertyOrder(t *testing.T) {
	for _, transport := range []string{"in memory", "streamable HTTP, events", "streamable HTTP, JSON"} {
		t.Run(transport, func(t *testing.T) { testPropertyOrder(t, transport) })
	}
}

func testPropertyOrder(t *testing.T, transport string) {
	ctx := t.Context()
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	up.AddTool(&mcp.Tool{
		Name:         "book",
		Description:  "Book a trip.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"zulu":{"type":"string"},"mike":{"type":"object","properties":{"yankee":{"type":"integer"},"bravo":{"type":"array","items":{"type":"object","properties":{"xray":{"type":"string"},"charlie":{"type":"string"}}}}}},"alpha":{"type":"boolean"}},"required":["zulu"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"whiskey":{"type":"string"},"victor":{"type":"object","properties":{"uniform":{"type":"string"},"delta":{"type":"string"}}},"echo":{"type":"string"}}}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: map[string]any{"whiskey": "w"}}, nil
	})
	var ct mcp.Transport
	switch transport {
	case "in memory":
		var st mcp.Transport
		ct, st = mcp.NewInMemoryTransports()
		ss, err := up.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
	default:
		opts := &mcp.StreamableHTTPOptions{JSONResponse: transport == "streamable HTTP, JSON"}
		ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, opts))
		defer ts.Close()
		ct = mcpclient.HTTP(ts.URL, nil)
	}
	c, err := mcpclient.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	srv, err := mcpserver.NewTools(nil, c.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	ect, est := mcp.NewInMemoryTransports()
	go srv.Run(ctx, est)
	conn, err := ect.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	result := func(id int64, method, params string) json.RawMessage {
		t.Helper()
		rid, err := jsonrpc.MakeID(float64(id))
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: json.RawMessage(params)}); err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == rid {
				if resp.Error != nil {
					t.Fatal(resp.Error)
				}
				return resp.Result
			}
		}
	}
	result(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"end","version":"1"}}`)
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result(2, "tools/list", `{}`), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 {
		t.Fatalf("tools/list = %+v, want the one tool", list.Tools)
	}
	inOrder := func(what string, doc json.RawMessage, keys ...string) {
		t.Helper()
		last := -1
		for _, k := range keys {
			i := strings.Index(string(doc), `"`+k+`"`)
			if i < last {
				t.Errorf("%s: %q comes before the property listed before it, want %v in order:\n%s", what, k, keys, doc)
			}
			last = i
		}
	}
	tl := list.Tools[0]
	inOrder("input schema", tl.InputSchema, "zulu", "mike", "alpha")
	inOrder("input schema, nested", tl.InputSchema, "yankee", "bravo")
	inOrder("input schema, in items", tl.InputSchema, "xray", "charlie")
	inOrder("output schema", tl.OutputSchema, "whiskey", "victor", "echo")
	inOrder("output schema, nested", tl.OutputSchema, "uniform", "delta")
}
