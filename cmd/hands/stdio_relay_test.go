package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAskingUpstreamServer is not a test: run as a process by
// TestServeRelaysFromStdioUpstream, with HANDS_TEST_UPSTREAM=ask, it is an
// upstream MCP server on stdio whose tools ask their client for a name
// the way the SDKs' servers do there, naming no call: no progress token,
// no task. "ask_name" asks at once; "ask_pair" once two of its calls are
// under way, and answers once both are answered.
func TestAskingUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "ask" {
		t.Skip("the upstream server of TestServeRelaysFromStdioUpstream")
	}
	// A server of protocol version 2025-11-25, as the TypeScript SDK's is,
	// sends its requests while the call waits.
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	ask := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused: " + err.Error()}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "ask_name", InputSchema: json.RawMessage(`{"type":"object"}`)}, ask)
	// Each call of ask_pair asks once both are under way, and returns once
	// both are answered: neither ends before the other's request has
	// reached hands, so both requests arrive while both calls are under way.
	var arrivals, answers atomic.Int32
	both, bothAnswered := make(chan struct{}), make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "ask_pair", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if arrivals.Add(1) == 2 {
				close(both)
			}
			select {
			case <-both:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			res, err := ask(ctx, req)
			if answers.Add(1) == 2 {
				close(bothAnswered)
			}
			select {
			case <-bothAnswered:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return res, err
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// TestServeRelaysFromStdioUpstream runs hands serve on stdio, as a desktop
// client starts it, in front of an upstream on stdio whose requests name
// no call: with one call under way, and with two of the one client's, the
// upstream's question reaches the client and its answer the upstream.
func TestServeRelaysFromStdioUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", "ask")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--upstream-env", "HANDS_TEST_UPSTREAM", "--upstream", exe + " -test.run=^TestAskingUpstreamServer$"}, inR, outW, io.Discard)
		outW.Close()
	}()
	defer func() {
		inW.Close()
		cancel()
		<-done
	}()
	var asked atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	// The question is sent while the call waits, as on the protocol
	// versions desktop clients speak.
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	call := func(name string) string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			return err.Error()
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got := call("ask_name"); got != "Ada" {
		t.Errorf("ask_name, the one call under way = %q, want the client's answer", got)
	}
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i := range got {
		wg.Go(func() { got[i] = call("ask_pair") })
	}
	wg.Wait()
	if strings.Join(got, ",") != "Ada,Ada" {
		t.Errorf("ask_pair, two calls of one client under way = %q, want the client's answer to each", got)
	}
	if n := asked.Load(); n != 3 {
		t.Errorf("the client was asked %d times, want 3", n)
	}
}

// TestServeRefusesUnattributedFromStdioUpstream has two clients of hands
// serve over HTTP call, at the same time, a tool of an upstream on stdio
// that asks, naming no call, once both calls are under way: the request
// could be either's, so it is refused, and neither client is asked.
func TestServeRefusesUnattributedFromStdioUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HANDS_TEST_UPSTREAM", "ask")
	endpoint := serveInFront(t, exe+" -test.run=^TestAskingUpstreamServer$", "--upstream-env", "HANDS_TEST_UPSTREAM")
	ctx := t.Context()
	var asked atomic.Int32
	got := make([]string, 2)
	var wg sync.WaitGroup
	for i := range got {
		client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("client ", i), Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			},
		})
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer session.Close()
		wg.Go(func() {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "ask_pair", Arguments: map[string]any{}})
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = res.Content[0].(*mcp.TextContent).Text
		})
	}
	wg.Wait()
	for i, text := range got {
		if !strings.Contains(text, "names no call under way") {
			t.Errorf("client %d's call = %q, want the upstream's request refused as unattributed", i, text)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the clients were asked %d times, want 0", n)
	}
}
