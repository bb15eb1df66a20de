package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchedServer serves, over streamable HTTP with event streams, 100 tools
// of 20 properties each and a tool "text" that answers with 1 MiB of text.
func watchedServer(b *testing.B) *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "watched", Version: "1"}, nil)
	var props []string
	for i := range 20 {
		props = append(props, fmt.Sprintf(`"p%02d":{"type":"string","description":"property %d"}`, 19-i, i))
	}
	schema := json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)
	for i := range 100 {
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%03d", i), Description: "A tool.", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	text := strings.Repeat("x", 1<<20)
	s.AddTool(&mcp.Tool{Name: "text", Description: "Answer at length.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(ts.Close)
	return ts
}

// BenchmarkConnectHTTP connects to watchedServer and lists its 101 tools,
// whose schemas the client keeps as sent.
func BenchmarkConnectHTTP(b *testing.B) {
	ts := watchedServer(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := mcpclient.Connect(b.Context(), mcpclient.HTTP(ts.URL, nil), nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkCallHTTP calls the tool of watchedServer that answers with
// 1 MiB of text, by a client that relays the server's requests (whose
// calls' streams are read event by event) and by one that does not.
func BenchmarkCallHTTP(b *testing.B) {
	ts := watchedServer(b)
	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	for _, bb := range []struct {
		name string
		opts *mcpclient.Options
	}{
		{"relaying", &mcpclient.Options{Elicit: elicit}},
		{"not relaying", nil},
	} {
		b.Run(bb.name, func(b *testing.B) {
			c, err := mcpclient.Connect(b.Context(), mcpclient.HTTP(ts.URL, nil), bb.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			text := find(b, c, "text")
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			for b.Loop() {
				if res := call(b.Context(), text, "text", `{}`); res.IsError {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
