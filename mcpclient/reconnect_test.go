package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestExitingServer is not a test: run as a process by TestReconnect, with
// MCPCLIENT_TEST_SERVER=exiting, it is an MCP server on stdio whose tool
// "die" makes it exit, and whose tool "live" answers "alive".
func TestExitingServer(t *testing.T) {
	if os.Getenv("MCPCLIENT_TEST_SERVER") != "exiting" {
		t.Skip("the server of TestReconnect")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "exiting", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "die", Description: "Exit.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "live", Description: "Answer.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alive"}}}, nil
		})
	s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// TestReconnect checks that a client with Reconnect starts the server
// again after it exits, with backoff: calls fail with ErrDisconnected
// while it is down, and the same tools answer once it is back.
func TestReconnect(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	command := func() mcp.Transport {
		starts.Add(1)
		cmd := exec.Command(exe, "-test.run=^TestExitingServer$")
		cmd.Env = append(os.Environ(), "MCPCLIENT_TEST_SERVER=exiting")
		return &mcpclient.CommandTransport{Command: cmd}
	}
	c, err := mcpclient.Connect(t.Context(), command(), &mcpclient.Options{Reconnect: command, ReconnectDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	live := find(t, c, "live")
	if res := call(t.Context(), find(t, c, "die"), "die", `{}`); !errors.Is(res.Err, mcpclient.ErrDisconnected) {
		t.Errorf("die = %+v, want ErrDisconnected", res)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := call(t.Context(), live, "live", `{}`)
		if !res.IsError && res.Content == "alive" {
			break
		}
		if !errors.Is(res.Err, mcpclient.ErrDisconnected) {
			t.Fatalf("live while the server is down = %+v, want ErrDisconnected", res)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server was not started again: live = %+v", res)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if find(t, c, "live") != live {
		t.Error("live is another tool after the reconnection; it should keep its identity")
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("the server was started %d times, want 2", n)
	}
}
