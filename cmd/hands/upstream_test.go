package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamServer is not a test: run as a process by TestServeUpstream,
// with HANDS_TEST_UPSTREAM=1, it is the upstream MCP server, on stdio. Its
// tools do no validation of their own, and "calls" says how many calls of
// "shout" arrived.
func TestUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "1" {
		t.Skip("the upstream server of TestServeUpstream")
	}
	var shouts atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "shout",
		Description: "Shout a text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		shouts.Add(1)
		var in struct{ Text string }
		json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "calls", Description: "Say how many shouts arrived.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(int(shouts.Load()))}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "count", Description: "Count to three, reporting progress.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3})
				time.Sleep(20 * time.Millisecond)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "grow", Description: "Start offering whisper.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{
				Name:        "whisper",
				Description: "Whisper a text.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct{ Text string }
				json.Unmarshal(req.Params.Arguments, &in)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToLower(in.Text)}}}, nil
			})
			s.AddTool(&mcp.Tool{Name: "host_file", Description: "Collide with a bundled tool.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream"}}}, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "reshape", Description: "Let shout take times.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{
				Name:        "shout",
				Description: "Shout a text, some times.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1},"times":{"type":"integer"}},"required":["text"],"additionalProperties":false}`),
			}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct {
					Text  string
					Times int
				}
				json.Unmarshal(req.Params.Arguments, &in)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(strings.ToUpper(in.Text), in.Times)}}}, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reshaped"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "retire", Description: "Stop offering shout.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.RemoveTools("shout")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "retired"}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// TestServeUpstream runs hands serve --http as a gateway in front of an
// upstream MCP server process, and uses it as a client would: the
// upstream's tools are listed with the bundled ones, calls pass through
// with their progress, invalid arguments are answered by hands without
// reaching the upstream, the token is required, and the upstream's list
// changes reach the client: a tool added upstream is listed and called, a
// changed tool is listed and validated with its new schema, and a removed
// one is no longer listed.
func TestServeUpstream(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", "1")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderrR, stderrW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0", "--token", "s3cret", "--upstream-env", "HANDS_TEST_UPSTREAM", "--upstream", exe + " '-test.run=^TestUpstreamServer$'"}, strings.NewReader(""), io.Discard, stderrW)
		stderrW.Close()
	}()
	line, err := bufio.NewReader(stderrR).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v", err)
	}
	var stderr lockedBuffer
	go io.Copy(&stderr, stderrR)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, "host_file, fetch_markdown, kv_get, kv_put, kv_delete, kv_list, calls, count, grow, reshape, retire, shout") {
		t.Fatalf("startup line %q does not name the bundled and the upstream tools", line)
	}
	endpoint := m[1] + "/mcp"

	if resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{}`)); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without the token = %v, %v; want 401", resp, err)
	}
	progress := make(chan float64, 10)
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	httpClient := &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	listedTools := func() []*mcp.Tool {
		t.Helper()
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools
	}
	listed := func() []string {
		t.Helper()
		var names []string
		for _, tl := range listedTools() {
			names = append(names, tl.Name)
		}
		return names
	}
	// waitFor lists the tools after each list_changed until ok holds.
	waitFor := func(what string, ok func([]*mcp.Tool) bool) {
		t.Helper()
		deadline := time.After(time.Minute)
		for !ok(listedTools()) {
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("tools/list does not show that %s: %v", what, listed())
			}
		}
	}
	if got, want := listed(), []string{"calls", "count", "fetch_markdown", "grow", "host_file", "kv_delete", "kv_get", "kv_list", "kv_put", "reshape", "retire", "shout"}; !slices.Equal(got, want) { // sorted by the SDK
		t.Fatalf("tools/list = %v, want %v", got, want)
	}
	callText := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	if text, isErr := callText("shout", map[string]any{"text": "hi"}); isErr || text != "HI" {
		t.Errorf("shout = %q, isError %v", text, isErr)
	}
	for _, args := range []map[string]any{{"text": ""}, {}, {"text": "hi", "loud": true}} {
		if text, isErr := callText("shout", args); !isErr || !strings.Contains(text, "Fix these") {
			t.Errorf("shout(%v) = %q, isError %v; want hands' validation result", args, text, isErr)
		}
	}
	if text, _ := callText("calls", nil); text != "1" {
		t.Errorf("the upstream received %s calls of shout, want 1: invalid ones must stop at hands", text)
	}

	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	if res, err := session.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("count = %+v, %v", res, err)
	}
	select {
	case p := <-progress:
		if p <= 0 {
			t.Errorf("progress %v", p)
		}
	case <-time.After(time.Minute):
		t.Error("the upstream's progress did not reach the client")
	}

	if text, isErr := callText("grow", nil); isErr || text != "grown" {
		t.Fatalf("grow = %q", text)
	}
	waitFor("the upstream added whisper", func(tools []*mcp.Tool) bool {
		return slices.ContainsFunc(tools, func(tl *mcp.Tool) bool { return tl.Name == "whisper" })
	})
	if text, isErr := callText("whisper", map[string]any{"text": "HI"}); isErr || text != "hi" {
		t.Errorf("whisper = %q, isError %v", text, isErr)
	}
	// The upstream's host_file, added with whisper, is named on stderr and
	// not served: host_file is still the bundled tool.
	for i := 0; !strings.Contains(stderr.String(), `"host_file" is used twice`); i++ {
		if i == 1200 { // a minute
			t.Fatalf("stderr does not say the upstream's host_file is not served:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if text, _ := callText("host_file", map[string]any{}); text == "upstream" {
		t.Error("host_file reached the upstream's tool of that name")
	}

	if text, isErr := callText("reshape", nil); isErr || text != "reshaped" {
		t.Fatalf("reshape = %q", text)
	}
	waitFor("the upstream changed shout", func(tools []*mcp.Tool) bool {
		i := slices.IndexFunc(tools, func(tl *mcp.Tool) bool { return tl.Name == "shout" })
		if i < 0 {
			return false
		}
		schema, err := json.Marshal(tools[i].InputSchema)
		return err == nil && strings.Contains(string(schema), `"times"`) && tools[i].Description == "Shout a text, some times."
	})
	if text, isErr := callText("shout", map[string]any{"text": "hi", "times": 2}); isErr || text != "HIHI" {
		t.Errorf("shout with times = %q, isError %v; hands must validate against the new schema", text, isErr)
	}

	if text, isErr := callText("retire", nil); isErr || text != "retired" {
		t.Fatalf("retire = %q", text)
	}
	deadline := time.After(time.Minute)
	for slices.Contains(listed(), "shout") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("tools/list still has shout after the upstream removed it: %v", listed())
		}
	}
	if res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"text": "hi"}}); err == nil && !res.IsError {
		t.Errorf("a call of the removed tool = %+v", res)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after cancellation", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop")
	}
}

// lockedBuffer is a bytes.Buffer that one goroutine may write while
// another reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
