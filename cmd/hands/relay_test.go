package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeRelaysElicitationAndSampling runs hands serve in front of an
// upstream whose tools ask their client for a form, a URL visit and a
// model's message: the requests reach the client of the call that caused
// them, and its answers reach the upstream. A client that declared neither
// capability gets the upstream's refusal instead.
func TestServeRelaysElicitationAndSampling(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	answer := func(res any, err error) (*mcp.CallToolResult, error) {
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused: " + err.Error()}}}, nil
		}
		data, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
	up.AddTool(&mcp.Tool{Name: "ask_name", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return answer(req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}))
		})
	up.AddTool(&mcp.Tool{Name: "ask_visit", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return answer(req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/sign-in", ElicitationID: "e1"}))
		})
	up.AddTool(&mcp.Tool{Name: "summarise", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return answer(req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarise"}}}}))
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(upstream.Close) // after serve stops: serve holds a stream open to it

	endpoint := serveInFront(t, upstream.URL)
	ctx := t.Context()

	call := func(session *mcp.ClientSession, name string) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	var asked []string
	capable := mcp.NewClient(&mcp.Implementation{Name: "capable", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Mode+" "+req.Params.Message+" "+req.Params.URL)
			if req.Params.Mode == "url" {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "short"}}, nil
		},
	})
	session, err := capable.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	for _, tt := range []struct{ tool, want string }{
		{"ask_name", `"name":"Ada"`},
		{"ask_visit", `"action":"accept"`},
		{"summarise", `"text":"short"`},
	} {
		if text, isErr := call(session, tt.tool); isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%s through the gateway = %q (error %v), want the client's answer %s", tt.tool, text, isErr, tt.want)
		}
	}
	if want := []string{"form Your name? ", "url Sign in https://example.com/sign-in"}; strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("the client was asked %q, want %q", asked, want)
	}

	bare := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	session2, err := bare.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session2.Close()
	for _, name := range []string{"ask_name", "summarise"} {
		if text, isErr := call(session2, name); !isErr || !strings.Contains(text, "refused") {
			t.Errorf("%s for a client without the capability = %q (error %v), want the upstream's refusal", name, text, isErr)
		}
	}
}

// serveInFront runs hands serve over HTTP in front of the upstream at
// upstream, with args besides, until the test ends, and returns its
// endpoint.
func serveInFront(t *testing.T, upstream string, args ...string) string {
	t.Helper()
	inTempDir(t)
	ctx, cancel := context.WithCancel(t.Context())
	stderrR, stderrW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--http", "127.0.0.1:0", "--upstream", upstream}, args...), strings.NewReader(""), io.Discard, stderrW)
		stderrW.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	line, err := bufio.NewReader(stderrR).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v", err)
	}
	go io.Copy(io.Discard, stderrR)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("startup line %q names no address", line)
	}
	return m[1] + "/mcp"
}

// TestServeRelaysToEachCaller has two clients of hands serve call, at the
// same time, an upstream tool that asks its client for a name once both
// calls have reached it: each request reaches the client whose call
// caused it, and each call gets that client's answer — never the other's.
func TestServeRelaysToEachCaller(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	var arrivals atomic.Int32
	both := make(chan struct{})
	together := func(ctx context.Context) error { // both calls are under way before either asks
		if arrivals.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	up.AddTool(&mcp.Tool{Name: "ask_name", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := together(ctx); err != nil {
				return nil, err
			}
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(upstream.Close) // after serve stops: serve holds a stream open to it
	callEachAsked(t, serveInFront(t, upstream.URL), "ask_name")
}

// TestServeRelaysTaskRequestsToEachCaller is TestServeRelaysToEachCaller
// with an upstream tool that requires a task: the task's request comes on
// the upstream's standalone stream, with the task's ID, and serve relays
// it to the client whose call created that task.
func TestServeRelaysTaskRequestsToEachCaller(t *testing.T) {
	var arrivals atomic.Int32
	both := make(chan struct{})
	type name struct {
		Name string `json:"name"`
	}
	ask := tool.New("ask_name", "Ask for a name.", func(ctx context.Context, _ struct{}) (string, error) {
		if arrivals.Add(1) == 2 {
			close(both)
		}
		select { // both tasks run before either asks
		case <-both:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		answer, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return answer.Name, nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	up, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, ask)
	if err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(up.HTTPHandler(nil))
	t.Cleanup(upstream.Close) // after serve stops: serve holds a stream open to it
	callEachAsked(t, serveInFront(t, upstream.URL), "ask_name")
}

// callEachAsked has two clients of the hands serve at endpoint call the
// tool toolName at the same time, each answering a request for its name with
// its own: each must be asked once, and get its own name back.
func callEachAsked(t *testing.T, endpoint, toolName string) {
	t.Helper()
	ctx := t.Context()
	var asked sync.Map // client name → how many times it was asked
	connect := func(name string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				n, _ := asked.LoadOrStore(name, new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
			},
		})
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		return session
	}
	names := []string{"ada", "grace"}
	sessions := []*mcp.ClientSession{connect(names[0]), connect(names[1])}
	answers := make([]string, 2)
	var wg sync.WaitGroup
	for i, session := range sessions {
		wg.Go(func() {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: map[string]any{}})
			if err != nil {
				answers[i] = "error: " + err.Error()
				return
			}
			answers[i] = res.Content[0].(*mcp.TextContent).Text
		})
	}
	wg.Wait()
	for i, name := range names {
		if answers[i] != name {
			t.Errorf("%s's call was answered %q, want its own client's answer %q", name, answers[i], name)
		}
		n, _ := asked.Load(name)
		if n == nil || n.(*atomic.Int32).Load() != 1 {
			t.Errorf("%s was asked %v times, want once", name, n)
		}
	}
}

// TestServeRelaysToRoundTripClient runs hands serve statelessly in front of
// an upstream whose tool asks its client for a name, for a client of
// protocol version 2026-07-28, which takes a server's requests in the
// call's result: the question reaches it, the client calls again with the
// answer, and the upstream's new call gets it.
func TestServeRelaysToRoundTripClient(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	var calls atomic.Int32
	up.AddTool(&mcp.Tool{Name: "ask_name", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused: " + err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(upstream.Close)
	endpoint := serveInFront(t, upstream.URL, "--stateless")

	var asked atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "round-trips", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if v := session.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("the session speaks %s; the test needs 2026-07-28, where requests go back in the result", v)
	}
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask_name", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "Ada" {
		t.Errorf("ask_name through the stateless gateway = %q (error %v), want the client's answer", text, res.IsError)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the client was asked %d times, want once", n)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the upstream tool ran %d times, want twice: once to ask, once with the answer", n)
	}
}
