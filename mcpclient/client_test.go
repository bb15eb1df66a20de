package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstream is an MCP server written with the SDK, whose requests the test
// can count and whose tools it can change.
type upstream struct {
	server    *mcp.Server
	calls     atomic.Int32  // tools/call requests received
	started   chan struct{} // a call of slow has started
	cancelled chan struct{} // a call of slow saw its context end
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{started: make(chan struct{}, 10), cancelled: make(chan struct{}, 10)}
	u.server = mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	u.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				u.calls.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	yes := true
	u.server.AddTool(&mcp.Tool{
		Name:        "add",
		Description: "Add two numbers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","minimum":0},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool), Title: "Addition"},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ A, B int }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("I", in.A+in.B)}}}, nil
	})
	u.server.AddTool(&mcp.Tool{
		Name:         "weather",
		Description:  "Report the weather.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","enum":["Oslo","Rome"]}},"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"celsius":21}`}},
			StructuredContent: map[string]any{"celsius": 21},
		}, nil
	})
	u.server.AddTool(&mcp.Tool{
		Name:         "liar",
		Description:  "Report the weather off its own schema.",
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"celsius":"warm"}`}},
			StructuredContent: map[string]any{"celsius": "warm"},
		}, nil
	})
	u.server.AddTool(&mcp.Tool{
		Name:        "slow",
		Description: "Report progress, then wait to be cancelled.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.started <- struct{}{}
		for i := 1; i <= 3; i++ {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: "step"})
		}
		<-ctx.Done()
		u.cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	u.server.AddTool(&mcp.Tool{
		Name:        "fail",
		Description: "Fail.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil
	})
	return u
}

// connect connects a client to u over an in-memory transport.
func (u *upstream) connect(t *testing.T, opts *mcpclient.Options) *mcpclient.Client {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := u.server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, err := mcpclient.Connect(t.Context(), ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func names(tools []tool.Interface) []string {
	var list []string
	for _, t := range tools {
		list = append(list, t.Name())
	}
	return list
}

func find(t testing.TB, c *mcpclient.Client, name string) tool.Interface {
	t.Helper()
	for _, tl := range c.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v", name, names(c.Tools()))
	return nil
}

func call(ctx context.Context, h tool.Handler, name, args string) tool.Result {
	return tool.Run(ctx, h, tool.Call{ID: "c1", Name: name, Args: json.RawMessage(args)})
}

func TestSpecs(t *testing.T) {
	c := newUpstream(t).connect(t, &mcpclient.Options{Prefix: "up_"})
	if got, want := names(c.Tools()), []string{"up_add", "up_fail", "up_liar", "up_slow", "up_weather"}; !slices.Equal(got, want) {
		t.Fatalf("Tools() = %v, want %v", got, want)
	}
	add := find(t, c, "up_add").Spec()
	if add.Title != "Addition" || add.Description != "Add two numbers." {
		t.Errorf("add's title and description = %q, %q", add.Title, add.Description)
	}
	if want := (tool.Annotations{ReadOnly: true, Idempotent: true}); add.Annotations == nil || *add.Annotations != want {
		t.Errorf("add's annotations = %+v, want %+v", add.Annotations, want)
	}
	if add.InputSchema.Properties["a"].Minimum == nil || !slices.Equal(add.InputSchema.Required, []string{"a", "b"}) {
		t.Errorf("add's input schema lost its constraints: %+v", add.InputSchema)
	}
	// MCP's defaults for hints left out: destructive and open-world.
	if a := find(t, c, "up_slow").Spec().Annotations; a == nil || !a.Destructive || !a.OpenWorld || a.ReadOnly {
		t.Errorf("slow's annotations = %+v, want destructive and open-world", a)
	}
	if a := find(t, c, "up_fail").Spec().Annotations; a != nil {
		t.Errorf("fail's annotations = %+v, want none", a)
	}
	if out := find(t, c, "up_weather").Spec().OutputSchema; out == nil || out.Properties["celsius"] == nil {
		t.Errorf("weather's output schema = %+v", out)
	}
}

func TestCalls(t *testing.T) {
	u := newUpstream(t)
	c := u.connect(t, &mcpclient.Options{Prefix: "up_"})
	ctx := t.Context()

	res := call(ctx, find(t, c, "up_add"), "up_add", `{"a":2,"b":1}`)
	if res.IsError || res.Content != "III" || res.Structured != nil {
		t.Errorf("add = %+v, want III", res)
	}
	if r, ok := res.Output.(*mcp.CallToolResult); !ok || len(r.Content) != 1 {
		t.Errorf("add's Output = %#v, want the *mcp.CallToolResult", res.Output)
	}

	res = call(ctx, find(t, c, "up_weather"), "up_weather", `{"city":"Oslo"}`)
	if res.IsError || string(res.Structured) != `{"celsius":21}` || res.Content != `{"celsius":21}` {
		t.Errorf("weather = %+v, want structured content", res)
	}

	// Structured content off the tool's own output schema is the server's
	// fault, not the arguments'.
	res = call(ctx, find(t, c, "up_liar"), "up_liar", `{}`)
	if cerr, ok := errors.AsType[*mcpclient.CallError](res.Err); !ok || res.Structured != nil || errors.Is(res.Err, tool.ErrInvalidArguments) ||
		!errors.Is(res.Err, tool.ErrUpstream) || errors.Is(res.Err, mcpclient.ErrDisconnected) ||
		!strings.Contains(res.Content, "output schema") || cerr.Tool != "liar" {
		t.Errorf("liar = %+v, want a *CallError about the output schema", res)
	}

	before := u.calls.Load()
	for _, tt := range []struct {
		tool, args string
		paths      []string
	}{
		{"up_add", `{"a":-1,"b":"x","c":true}`, []string{"", "/a", "/b"}},
		{"up_add", `{}`, []string{""}},
		{"up_weather", `{"city":"Paris"}`, []string{"/city"}},
		{"up_add", `{"a":`, []string{"/a"}},
	} {
		res := call(ctx, find(t, c, tt.tool), tt.tool, tt.args)
		verr, ok := errors.AsType[*tool.ValidationError](res.Err)
		if !ok {
			t.Errorf("%s(%s) = %+v, want a *tool.ValidationError", tt.tool, tt.args, res)
			continue
		}
		var paths []string
		for _, is := range verr.Issues {
			if !slices.Contains(paths, is.Path) {
				paths = append(paths, is.Path)
			}
		}
		if !slices.Equal(paths, tt.paths) {
			t.Errorf("%s(%s) failed at %v, want %v", tt.tool, tt.args, paths, tt.paths)
		}
		if !strings.Contains(res.Content, "Fix these") && !strings.Contains(res.Content, "invalid") {
			t.Errorf("%s(%s) tells the model %q", tt.tool, tt.args, res.Content)
		}
	}
	if n := u.calls.Load() - before; n != 0 {
		t.Errorf("the server received %d calls with invalid arguments, want none", n)
	}

	res = call(ctx, find(t, c, "up_fail"), "up_fail", `{}`)
	terr, ok := errors.AsType[*mcpclient.ToolError](res.Err)
	if !res.IsError || !ok || res.Content != "the disk is full" || terr.Tool != "fail" {
		t.Errorf("fail = %+v, want a *ToolError with the server's text", res)
	}
}

// TestProgress reads the progress a remote tool reports while the call is
// under way. Reports that arrive faster than the consumer takes them are
// coalesced to the latest, never reordered.
func TestProgress(t *testing.T) {
	c := newUpstream(t).connect(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []tool.ProgressReport
	var res *tool.Result
	for ev := range find(t, c, "slow").Stream(ctx, tool.Call{Name: "slow", Args: json.RawMessage(`{}`)}) {
		if ev.Result != nil {
			res = ev.Result
			continue
		}
		p, ok := ev.Progress.(tool.ProgressReport)
		if !ok {
			t.Fatalf("progress %#v is not an tool.ProgressReport", ev.Progress)
		}
		got = append(got, p)
		if p.Done == 3 {
			cancel()
		}
	}
	if res == nil || !errors.Is(res.Err, tool.ErrCanceled) {
		t.Fatalf("slow = %+v, want it cancelled after its progress", res)
	}
	if len(got) == 0 || got[len(got)-1] != (tool.ProgressReport{Done: 3, Total: 3, Message: "step"}) {
		t.Errorf("progress = %+v, want it to end at 3 of 3", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Done <= got[i-1].Done {
			t.Errorf("progress went from %v to %v", got[i-1].Done, got[i].Done)
		}
	}
}

func TestCancel(t *testing.T) {
	u := newUpstream(t)
	c := u.connect(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-u.started
		cancel()
	}()
	res := call(ctx, find(t, c, "slow"), "slow", `{}`)
	if !errors.Is(res.Err, tool.ErrCanceled) {
		t.Errorf("a cancelled call = %+v, want a *tool.CanceledError", res)
	}
	select {
	case <-u.cancelled:
	case <-time.After(time.Minute):
		t.Fatal("the server's handler was not cancelled (no notifications/cancelled)")
	}
}

func TestTimeout(t *testing.T) {
	u := newUpstream(t)
	c := u.connect(t, &mcpclient.Options{Timeout: 500 * time.Millisecond})
	slow := find(t, c, "slow")
	if timed, ok := slow.(tool.Timed); !ok || timed.Timeout() != 500*time.Millisecond {
		t.Errorf("the remote tool %T does not say its timeout is 500ms (tool.Timed)", slow)
	}
	res := call(t.Context(), slow, "slow", `{}`)
	if terr, ok := errors.AsType[*tool.TimeoutError](res.Err); !ok || terr.Timeout != 500*time.Millisecond {
		t.Errorf("a call past the timeout = %+v, want a *tool.TimeoutError", res)
	}
	select {
	case <-u.cancelled:
	case <-time.After(time.Minute):
		t.Fatal("the server's handler was not cancelled at the timeout")
	}
}

// TestLimits holds remote tools to Options.Limits before anything is sent.
func TestLimits(t *testing.T) {
	u := newUpstream(t)
	c := u.connect(t, &mcpclient.Options{Limits: tool.Limits{MaxBytes: 20, MaxDepth: 2}})
	before := u.calls.Load()
	for _, args := range []string{`{"a":1,"b":1,"pad":"xxxxxxxx"}`, `{"a":[[[1]]],"b":1}`} {
		if res := call(t.Context(), find(t, c, "add"), "add", args); !errors.Is(res.Err, tool.ErrInvalidArguments) {
			t.Errorf("add(%s) = %+v, want it refused by the limits", args, res)
		}
	}
	if n := u.calls.Load() - before; n != 0 {
		t.Errorf("%d calls over the limits reached the server", n)
	}
	if res := call(t.Context(), find(t, c, "add"), "add", `{"a":1,"b":1}`); res.Content != "II" {
		t.Errorf("add within the limits = %+v", res)
	}
}

func TestFilter(t *testing.T) {
	u := newUpstream(t)
	for _, tt := range []struct {
		name string
		opts mcpclient.Options
		want []string
	}{
		{"allow", mcpclient.Options{Allow: []string{"add", "fail", "nope"}}, []string{"add", "fail"}},
		{"deny", mcpclient.Options{Deny: []string{"slow", "liar"}}, []string{"add", "fail", "weather"}},
		{"read-only", mcpclient.Options{Include: mcpclient.ReadOnly}, []string{"add"}},
		{"predicate sees the prefix", mcpclient.Options{Prefix: "x_", Include: func(s tool.Spec) bool { return s.Name != "x_fail" }}, []string{"x_add", "x_liar", "x_slow", "x_weather"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := u.connect(t, &tt.opts)
			if got := names(c.Tools()); !slices.Equal(got, tt.want) {
				t.Errorf("Tools() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestListChanged follows a server whose tools change while a registry
// and an MCP server built on the client serve them.
func TestListChanged(t *testing.T) {
	u := newUpstream(t)
	changes := make(chan mcpclient.Change, 10)
	c := u.connect(t, &mcpclient.Options{OnChange: func(_ context.Context, ch mcpclient.Change) { changes <- ch }})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "up", Tools: c.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	next := func() mcpclient.Change {
		t.Helper()
		select {
		case ch := <-changes:
			return ch
		case <-time.After(time.Minute):
			t.Fatal("no change reported")
		}
		return mcpclient.Change{}
	}

	oldFail := find(t, c, "fail")
	u.server.RemoveTools("fail")
	if ch := next(); !reflect.DeepEqual(ch, mcpclient.Change{Removed: []string{"fail"}}) {
		t.Errorf("after removing fail: %+v", ch)
	}
	if got := reg.EnabledNames(ctx); slices.Contains(got, "fail") {
		t.Errorf("the registry still lists fail: %v", got)
	}
	if res := call(ctx, reg, "fail", `{}`); !errors.Is(res.Err, tool.ErrDisabled) {
		t.Errorf("a call of the removed tool = %+v, want ErrDisabled", res)
	}

	// A changed schema: the same tool, with the new spec and validation.
	u.server.AddTool(&mcp.Tool{Name: "add", Description: "Add two small numbers.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","maximum":1},"b":{"type":"integer"}},"required":["a","b"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil
		})
	if ch := next(); !reflect.DeepEqual(ch, mcpclient.Change{Updated: []string{"add"}}) {
		t.Errorf("after changing add: %+v", ch)
	}
	spec := reg.Specs(ctx)[0]
	if spec.Description != "Add two small numbers." {
		t.Errorf("the registry shows add as %q", spec.Description)
	}
	if res := call(ctx, reg, "add", `{"a":2,"b":0}`); !errors.Is(res.Err, tool.ErrInvalidArguments) {
		t.Errorf("add with a=2 under the new schema = %+v, want invalid", res)
	}
	if res := call(ctx, reg, "add", `{"a":1,"b":0}`); res.Content != "new" {
		t.Errorf("add = %+v, want the new handler's answer", res)
	}

	// A removed tool listed again is a new tool: a registry built before
	// holds the old one, disabled, until it is removed.
	u.server.AddTool(&mcp.Tool{Name: "fail", Description: "Fail again.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "back"}}}, nil
		})
	if ch := next(); !reflect.DeepEqual(ch, mcpclient.Change{Added: []string{"fail"}}) {
		t.Errorf("after adding fail back: %+v", ch)
	}
	if res := call(ctx, reg, "fail", `{}`); !errors.Is(res.Err, tool.ErrDisabled) {
		t.Errorf("the old fail, in a registry built before it came back, = %+v, want ErrDisabled", res)
	}
	if n := reg.Remove(oldFail); n != 1 {
		t.Errorf("Remove(the old fail) = %d, want 1", n)
	}
	if err := reg.Add(&tool.Scope{Name: "up", Tools: []tool.Interface{find(t, c, "fail")}}); err != nil {
		t.Fatal(err)
	}
	if res := call(ctx, reg, "fail", `{}`); res.Content != "back" {
		t.Errorf("fail, back under its old name, = %+v", res)
	}

	// An MCP server over the registry tells its sessions when Sync runs.
	srv := mcpserver.New(reg, nil)
	notified := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notified <- struct{}{} },
	})
	ct, st := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	session, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	listed := func() []string {
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var list []string
		for _, t := range res.Tools {
			list = append(list, t.Name)
		}
		return list
	}
	if got := listed(); !slices.Equal(got, []string{"add", "fail", "liar", "slow", "weather"}) {
		t.Fatalf("the MCP server lists %v", got)
	}
	u.server.RemoveTools("slow")
	next()
	srv.Sync(ctx)
	select {
	case <-notified:
	case <-time.After(time.Minute):
		t.Fatal("the MCP server's session was not told of the change")
	}
	if got := listed(); !slices.Equal(got, []string{"add", "fail", "liar", "weather"}) {
		t.Errorf("after the upstream removed slow, the MCP server lists %v", got)
	}
}

// TestDialects checks that a remote schema a provider would reject is
// refused like a local one: by the provider's check, and by the client
// when it is told which dialects matter.
func TestDialects(t *testing.T) {
	u := newUpstream(t)
	u.server.AddTool(&mcp.Tool{
		Name:        "tag",
		Description: "Tag things.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"tags":{"type":"object","additionalProperties":{"type":"string"}}},"required":["tags"]}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})

	c := u.connect(t, nil)
	tag := find(t, c, "tag")
	spec := tag.Spec()
	err := dialect.OpenAIStrict().Check(dialect.ToolSchema{Name: spec.Name, Schema: spec.InputSchema})
	if !errors.Is(err, dialect.ErrRejected) {
		t.Errorf("OpenAIStrict.Check(tag) = %v, want ErrRejected", err)
	}
	if err := dialect.MCP().Check(dialect.ToolSchema{Name: spec.Name, Schema: spec.InputSchema}); err != nil {
		t.Errorf("MCP.Check(tag) = %v", err)
	}
	var errs int
	for _, p := range tool.Lint(dialect.OpenAIStrict(), c.Tools()...) {
		if p.Severity == dialect.SeverityError {
			errs++
			if p.Tool != "tag" {
				t.Errorf("Lint reports an error for %s: %v", p.Tool, p)
			}
		}
	}
	if errs == 0 {
		t.Error("Lint(OpenAIStrict) reports no error for tag")
	}

	c = u.connect(t, &mcpclient.Options{Dialects: []*dialect.Dialect{dialect.OpenAIStrict()}})
	if got := names(c.Tools()); slices.Contains(got, "tag") {
		t.Errorf("with Dialects OpenAIStrict, Tools() = %v, want tag left out", got)
	}
	refused := c.Refused()
	if len(refused) != 1 || !errors.Is(refused[0], mcpclient.ErrToolRefused) || !errors.Is(refused[0], dialect.ErrRejected) {
		t.Fatalf("Refused() = %v, want tag, rejected by the dialect", refused)
	}
	if rerr, ok := errors.AsType[*mcpclient.RefusedError](refused[0]); !ok || rerr.Tool != "tag" {
		t.Errorf("Refused() = %v", refused)
	}
}

func TestRefused(t *testing.T) {
	u := newUpstream(t)
	u.server.AddTool(&mcp.Tool{Name: "external", Description: "Refers elsewhere.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	u.server.AddTool(&mcp.Tool{Name: "dotted.name", Description: "A name hands cannot take.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	c := u.connect(t, nil)
	var got []string
	for _, err := range c.Refused() {
		rerr, ok := errors.AsType[*mcpclient.RefusedError](err)
		if !ok {
			t.Fatalf("Refused() holds %v", err)
		}
		got = append(got, rerr.Tool)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"dotted.name", "external"}) {
		t.Errorf("Refused() names %v", got)
	}
	if n := len(c.Tools()); n != 5 {
		t.Errorf("Tools() = %v", names(c.Tools()))
	}
}

// TestHTTP connects over streamable HTTP with an Authorization header.
func TestHTTP(t *testing.T) {
	u := newUpstream(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.server }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	if _, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, nil), nil); err == nil {
		t.Error("Connect without the token succeeded")
	}
	c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, http.Header{"Authorization": {"Bearer s3cret"}}), &mcpclient.Options{Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res := call(t.Context(), find(t, c, "add"), "add", `{"a":1,"b":1}`); res.Content != "II" {
		t.Errorf("add over HTTP = %+v", res)
	}
	if c.Name() != "web" {
		t.Errorf("Name() = %q", c.Name())
	}
}

// TestServerGone breaks the connection on the server's side during a
// call, as a server that exits does.
func TestServerGone(t *testing.T) {
	u := newUpstream(t)
	ct, st := mcp.NewInMemoryTransports()
	end := &breakable{Transport: st}
	ss, err := u.server.Connect(t.Context(), end, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		<-u.started
		end.conn.Close()
	}()
	res := call(t.Context(), find(t, c, "slow"), "slow", `{}`)
	if !res.IsError || !errors.Is(res.Err, mcpclient.ErrDisconnected) || !errors.Is(res.Err, tool.ErrUpstream) {
		t.Errorf("a call whose server went away = %+v (%v), want ErrDisconnected, an upstream failure", res, res.Err)
	}
	add := find(t, c, "add")
	res = call(t.Context(), add, "add", `{"a":1,"b":1}`)
	if !errors.Is(res.Err, mcpclient.ErrDisconnected) {
		t.Errorf("a call after the server went away = %+v, want ErrDisconnected", res)
	}
	c.Close()
	if res := call(t.Context(), add, "add", `{"a":1,"b":1}`); !errors.Is(res.Err, tool.ErrDisabled) || len(c.Tools()) != 0 {
		t.Errorf("a call after Close = %+v, want ErrDisabled", res)
	}
}

// breakable is a transport whose connection the test can close.
type breakable struct {
	mcp.Transport
	conn mcp.Connection
}

func (b *breakable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := b.Transport.Connect(ctx)
	b.conn = conn
	return conn, err
}

// TestRichContent checks that a remote result's images and links reach the
// hands result as parts, with their text rendering as Content.
func TestRichContent(t *testing.T) {
	u := newUpstream(t)
	u.server.AddTool(&mcp.Tool{
		Name:        "chart",
		Description: "Draw a chart.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "sales by month"},
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")},
			&mcp.ResourceLink{URI: "file:///r.csv", Name: "data"},
		}}, nil
	})
	c := u.connect(t, nil)
	res := call(t.Context(), find(t, c, "chart"), "chart", `{}`)
	if res.IsError || len(res.Parts) != 3 {
		t.Fatalf("chart = %+v, want three parts", res)
	}
	if p := res.Parts[1]; p.Kind != tool.PartImage || p.MIME != "image/png" || string(p.Data) != "\x89PNG" {
		t.Errorf("the image part = %+v", p)
	}
	if p := res.Parts[2]; p.Kind != tool.PartLink || p.URI != "file:///r.csv" {
		t.Errorf("the link part = %+v", p)
	}
	if res.Content != tool.PartsText(res.Parts) {
		t.Errorf("Content = %q, want the parts' text", res.Content)
	}
	if res := call(t.Context(), find(t, c, "add"), "add", `{"a":1,"b":1}`); res.Parts != nil {
		t.Errorf("a text result has parts %+v", res.Parts)
	}
}

// TestServerBounds checks the bounds on what a server hands the client: a
// listing of more tools than MaxTools is an error, and a result's text is
// cut to MaxTextBytes with a note.
func TestServerBounds(t *testing.T) {
	u := newUpstream(t)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := u.server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{MaxTools: 2}); err == nil {
		c.Close()
		t.Fatal("Connect took a server that lists more tools than MaxTools")
	}

	c := u.connect(t, &mcpclient.Options{MaxTextBytes: 50})
	res := call(t.Context(), find(t, c, "add"), "add", `{"a":100,"b":100}`)
	if res.IsError || !strings.HasPrefix(res.Content, strings.Repeat("I", 50)+"\n[truncated: 150 more bytes]") {
		t.Errorf("a 200-byte text under a 50-byte bound = %q", res.Content)
	}
}

// TestTextBoundWithParts checks that MaxTextBytes holds for a result with
// parts other than text: the text of its parts, in all, is cut to the
// bound, and its other parts are kept.
func TestTextBoundWithParts(t *testing.T) {
	u := newUpstream(t)
	long := strings.Repeat("x", 200)
	u.server.AddTool(&mcp.Tool{Name: "mixed", Description: "Text around an image.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: long},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: long}},
				&mcp.TextContent{Text: long},
			}}, nil
		})
	c := u.connect(t, &mcpclient.Options{MaxTextBytes: 50})
	res := call(t.Context(), find(t, c, "mixed"), "mixed", `{}`)
	text := 0
	images := 0
	for _, p := range res.Parts {
		text += len(p.Text)
		if p.Kind == tool.PartImage {
			images++
		}
	}
	const note = len("\n[truncated: 150 more bytes]")
	if text > 50+note || images != 1 {
		t.Errorf("mixed under a 50-byte bound: %d bytes of text in its parts and %d images, want at most %d and 1", text, images, 50+note)
	}
	if len(res.Content) > 50+note+100 {
		t.Errorf("mixed under a 50-byte bound: Content has %d bytes", len(res.Content))
	}
}
