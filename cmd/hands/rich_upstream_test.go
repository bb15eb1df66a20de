package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// richContent is what the upstream of TestServeRichUpstream answers: every
// kind of content, with what the protocol lets each say of itself.
func richContent() []mcp.Content {
	size := int64(2048)
	return []mcp.Content{
		&mcp.TextContent{Text: "for the user", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.9, LastModified: "2026-01-12T15:00:58Z"}, Meta: mcp.Meta{"trace": "t1"}},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG"), Annotations: &mcp.Annotations{Audience: []mcp.Role{"assistant"}}},
		&mcp.ResourceLink{URI: "file:///r.csv", Name: "data", Title: "The data", Description: "Sales by month.", MIMEType: "text/csv", Size: &size, Meta: mcp.Meta{"etag": "x"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}, Annotations: &mcp.Annotations{Priority: 0.2}},
	}
}

// TestRichUpstreamServer is not a test: run as a process by
// TestServeRichUpstream, with HANDS_TEST_UPSTREAM=rich, it is an upstream
// MCP server on stdio whose tool "rich" answers richContent.
func TestRichUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "rich" {
		t.Skip("the upstream server of TestServeRichUpstream")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "rich", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "rich", Description: "Answer with every kind of content.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: richContent()}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// serveStdio runs hands serve on stdio in front of the upstream that the
// test function upstream of this test binary is, with HANDS_TEST_UPSTREAM
// set to mode, and returns a client session with it.
func serveStdio(t *testing.T, mode, upstream string) *mcp.ClientSession {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", mode)
	ctx, cancel := context.WithCancel(t.Context())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--upstream-env", "HANDS_TEST_UPSTREAM", "--upstream", exe + " -test.run=^" + upstream + "$"}, inR, outW, io.Discard)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		session.Close()
		inW.Close()
		cancel()
		<-done
	})
	return session
}

// TestServeRichUpstream checks that an end client of hands serve gets an
// upstream's content as the upstream sent it: annotations, a link's
// title, description and size, and _meta.
func TestServeRichUpstream(t *testing.T) {
	session := serveStdio(t, "rich", "TestRichUpstreamServer")
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "rich", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Content)
	want, _ := json.Marshal(richContent())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the end client got\n%s\nthe upstream sent\n%s", got, want)
	}
}
