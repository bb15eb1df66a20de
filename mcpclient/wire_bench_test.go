package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkWireCall calls a tool that answers "alive", over stdio (a
// process started by a CommandTransport: TestExitingServer) and over
// streamable HTTP (HTTP, to a server on 127.0.0.1 answering with event
// streams), by a client that relays the server's requests: a small call
// through every stage of the client's wire.
func BenchmarkWireCall(b *testing.B) {
	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "live", Description: "Answer.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alive"}}}, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	b.Cleanup(ts.Close)
	for _, bb := range []struct {
		name      string
		transport func() mcp.Transport
	}{
		{"stdio", func() mcp.Transport {
			cmd := exec.Command(exe, "-test.run=^TestExitingServer$")
			cmd.Env = append(os.Environ(), "MCPCLIENT_TEST_SERVER=exiting")
			return &mcpclient.CommandTransport{Command: cmd}
		}},
		{"http", func() mcp.Transport { return mcpclient.HTTP(ts.URL, nil) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			c, err := mcpclient.Connect(b.Context(), bb.transport(), &mcpclient.Options{Elicit: elicit})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			live := find(b, c, "live")
			b.ReportAllocs()
			for b.Loop() {
				if res := call(b.Context(), live, "live", `{}`); res.IsError || res.Content != "alive" {
					b.Fatalf("live = %+v", res)
				}
			}
		})
	}
}
