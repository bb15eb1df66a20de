package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stormTools and stormRounds shape the upstream of TestServeRenamingUpstream.
const (
	stormTools  = 200
	stormRounds = 30
)

// TestRenamingUpstreamServer is not a test: run as a process by
// TestServeRenamingUpstream, with HANDS_TEST_UPSTREAM=rename, it is an
// upstream MCP server on stdio whose tool "storm" renames all its other
// tools stormRounds times, one list_changed each: round r offers r<r>_0 …
// r<r>_<stormTools-1>.
func TestRenamingUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "rename" {
		t.Skip("the upstream server of TestServeRenamingUpstream")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "renamer", Version: "1"}, nil)
	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	offer := func(round int) {
		for i := range stormTools {
			s.AddTool(&mcp.Tool{Name: fmt.Sprintf("r%d_%d", round, i), Description: "A tool of round " + fmt.Sprint(round) + ".", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
		}
	}
	names := func(round int) []string {
		var list []string
		for i := range stormTools {
			list = append(list, fmt.Sprintf("r%d_%d", round, i))
		}
		return list
	}
	offer(0)
	s.AddTool(&mcp.Tool{Name: "storm", Description: "Rename every tool, many times.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for round := 1; round <= stormRounds; round++ {
				s.RemoveTools(names(round - 1)...)
				offer(round)
				time.Sleep(20 * time.Millisecond) // time for hands to list some rounds, and miss others
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// TestServeRenamingUpstream runs hands serve in front of an upstream that
// renames its tools over and over: what hands serves of it is its list
// now, and the bundled tools stay on the first page of tools/list.
func TestServeRenamingUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", "rename")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--upstream-env", "HANDS_TEST_UPSTREAM", "--upstream", exe + " -test.run=^TestRenamingUpstreamServer$"}, inR, outW, io.Discard)
		outW.Close()
	}()
	defer func() {
		inW.Close()
		cancel()
		<-done
	}()
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "storm", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("r%d_", stormRounds)
	deadline := time.After(30 * time.Second)
	for {
		page, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range page.Tools {
			names = append(names, tl.Name)
		}
		upstream := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !strings.HasPrefix(n, "r") })
		if len(upstream) == stormTools && strings.HasPrefix(upstream[0], last) {
			if !slices.Contains(names, "host_file") || !slices.Contains(names, "fetch_markdown") {
				t.Errorf("the first page of tools/list lacks the bundled tools: %d tools, next cursor %q", len(names), page.NextCursor)
			}
			if page.NextCursor != "" {
				t.Errorf("tools/list has more than one page after the storm: %d tools on the first", len(names))
			}
			return
		}
		select {
		case <-changed:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("tools/list does not settle on round %d: %d upstream tools on the first page, first %v, next cursor %q", stormRounds, len(upstream), upstream[:min(3, len(upstream))], page.NextCursor)
		}
	}
}
