package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTaskUpstreamServer is not a test: run as a process by
// TestServeTaskUpstream, with HANDS_TEST_UPSTREAM=task, it is an upstream
// MCP server on stdio whose tool "render" runs as a task only.
func TestTaskUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "task" {
		t.Skip("the upstream server of TestServeTaskUpstream")
	}
	type args struct {
		Scene string `json:"scene"`
	}
	render := tool.New("render", "Render a scene; it takes a while.", func(ctx context.Context, a args) (string, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return "rendered " + a.Scene, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskRequired))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, render)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Run(context.Background(), &mcpserver.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// TestServeTaskUpstream checks that an end client of hands serve can call
// an upstream tool that runs as a task only, with a plain call: the
// gateway runs the task.
func TestServeTaskUpstream(t *testing.T) {
	session := serveStdio(t, "task", "TestTaskUpstreamServer")
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "render", Arguments: map[string]any{"scene": "opening"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.IsError {
		t.Fatalf("render = %+v", res)
	}
	if text, _ := res.Content[0].(*mcp.TextContent); text == nil || text.Text != "rendered opening" {
		t.Errorf("render = %+v, want the upstream task's result", res.Content[0])
	}
}
