package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet" tool:"minLength=1"`
}

type greeting struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// fixture is a registry with a greeting tool, a tool with a struct output,
// a slow tool that reports progress, and an admin scope that a login tool
// enables.
type fixture struct {
	reg       *tool.Registry
	signedIn  atomic.Bool
	cancelled chan error
	started   chan struct{} // the slow tool began to wait
}

// waitStarted waits until the slow tool is waiting, so that a test cancels
// a call that is running rather than one still on its way.
func (f *fixture) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-f.started:
	case <-time.After(time.Minute):
		t.Fatal("the slow tool did not start")
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{cancelled: make(chan error, 1), started: make(chan struct{}, 1)}
	greet := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetArgs) (string, error) {
		return "hello " + a.Name, nil
	}, tool.WithTitle("Greeter"), tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
	structured := tool.New("greeting", "Greet, with structure.", func(ctx context.Context, a greetArgs) (greeting, error) {
		return greeting{Text: "hi " + a.Name, Count: 1}, nil
	})
	slow := tool.New("slow", "Work slowly.", func(ctx context.Context, a struct {
		Steps int  `json:"steps" tool:"minimum=1,maximum=10"`
		Wait  bool `json:"wait,omitempty"`
	}) (string, error) {
		for i := range a.Steps {
			tool.Progress(ctx, fmt.Sprintf("step %d", i+1))
		}
		if a.Wait {
			select {
			case f.started <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				f.cancelled <- ctx.Err()
				return "", ctx.Err()
			case <-time.After(time.Minute):
			}
		}
		return "done", nil
	})
	login := tool.New("login", "Sign in as an administrator.", func(ctx context.Context, _ struct{}) (string, error) {
		f.signedIn.Store(true)
		return "signed in", nil
	})
	purge := tool.New("purge", "Delete everything.", func(ctx context.Context, _ struct{}) (string, error) {
		return "purged", nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "public", Tools: []tool.Interface{greet, structured, slow, login}},
		&tool.Scope{Name: "admin", Tools: []tool.Interface{purge}, Enabled: func(context.Context) bool { return f.signedIn.Load() }},
	)
	if err != nil {
		t.Fatal(err)
	}
	f.reg = reg
	return f
}

// connect runs srv on an in-memory transport and returns a client session.
func connect(t *testing.T, srv *mcpserver.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, serverSide) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	session, err := client.Connect(t.Context(), clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		session.Close()
		cancel()
		<-done
	})
	return session
}

func toolNames(res *mcp.ListToolsResult) []string {
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "")
}

func TestListTools(t *testing.T) {
	f := newFixture(t)
	session := connect(t, mcpserver.New(f.reg, nil), nil)
	res, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(res), ","); got != "greet,greeting,login,slow" {
		t.Fatalf("tools = %s", got)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	greet := byName["greet"]
	schema, _ := json.Marshal(greet.InputSchema)
	if !strings.Contains(string(schema), `"type":"object"`) || !strings.Contains(string(schema), `"description":"who to greet"`) {
		t.Errorf("greet input schema = %s", schema)
	}
	if greet.Title != "Greeter" || greet.Annotations == nil || !greet.Annotations.ReadOnlyHint || !greet.Annotations.IdempotentHint ||
		greet.Annotations.DestructiveHint == nil || *greet.Annotations.DestructiveHint {
		t.Errorf("greet title/annotations = %q %+v", greet.Title, greet.Annotations)
	}
	if greet.OutputSchema != nil {
		t.Errorf("a string output has an output schema")
	}
	if out, _ := json.Marshal(byName["greeting"].OutputSchema); !strings.Contains(string(out), `"count"`) {
		t.Errorf("greeting output schema = %s", out)
	}
}

func TestCallTool(t *testing.T) {
	f := newFixture(t)
	session := connect(t, mcpserver.New(f.reg, nil), nil)
	ctx := t.Context()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.IsError || text(res) != "hello Ada" {
		t.Fatalf("CallTool(greet) = %+v, %v", res, err)
	}

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greeting", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool(greeting) = %+v, %v", res, err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var got greeting
	if err := json.Unmarshal(structured, &got); err != nil || got != (greeting{Text: "hi Ada", Count: 1}) || text(res) != `{"text":"hi Ada","count":1}` {
		t.Errorf("structured = %s, text = %s", structured, text(res))
	}

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "", "extra": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("CallTool(invalid) = %+v, %v; want an error result", res, err)
	}
	for _, want := range []string{"/name: must be at least 1 character", `unknown property "extra"`, "Fix these and call greet again"} {
		if !strings.Contains(text(res), want) {
			t.Errorf("error text %q does not say %q", text(res), want)
		}
	}

	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("CallTool(unknown) error = %v, want a JSON-RPC invalid-params error", err)
	}
}

// TestIssuesMeta checks that the error result of invalid arguments carries
// the issues its text lists in _meta, with their paths and keywords, and
// that other results carry none.
func TestIssuesMeta(t *testing.T) {
	f := newFixture(t)
	session := connect(t, mcpserver.New(f.reg, nil), nil)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "", "extra": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("CallTool(invalid) = %+v, %v; want an error result", res, err)
	}
	data, _ := json.Marshal(res.Meta[mcpserver.IssuesMeta])
	var issues []tool.Issue
	if err := json.Unmarshal(data, &issues); err != nil {
		t.Fatalf("_meta[%q] = %s: %v", mcpserver.IssuesMeta, data, err)
	}
	var got []string
	for _, is := range issues {
		got = append(got, is.Path+" "+is.Keyword)
		if !strings.Contains(text(res), is.Path+": "+is.Message) {
			t.Errorf("issue %+v is not in the text %q", is, text(res))
		}
	}
	if want := []string{" additionalProperties", "/name minLength"}; !slices.Equal(got, want) {
		t.Errorf("issues in _meta = %q, want %q", got, want)
	}

	res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.Meta[mcpserver.IssuesMeta] != nil {
		t.Errorf("CallTool(valid) = %+v, %v; want no issues in _meta", res, err)
	}
}

func TestProgressAndCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var mu sync.Mutex
		var messages []string
		session := connect(t, mcpserver.New(f.reg, nil), &mcp.ClientOptions{
			ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				messages = append(messages, fmt.Sprintf("%v %s %g", req.Params.ProgressToken, req.Params.Message, req.Params.Progress))
			},
		})
		params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3}}
		params.SetProgressToken("tok")
		res, err := session.CallTool(t.Context(), params)
		if err != nil || res.IsError {
			t.Fatalf("CallTool(slow) = %+v, %v", res, err)
		}
		synctest.Wait() // every notification sent has arrived
		mu.Lock()
		got := strings.Join(messages, "; ")
		mu.Unlock()
		if got != "tok step 1 1; tok step 2 2; tok step 3 3" {
			t.Errorf("progress = %q", got)
		}

		// Cancelling the client's request cancels the handler's context.
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 1, "wait": true}})
			errc <- err
		}()
		f.waitStarted(t)
		cancel()
		select {
		case err := <-f.cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the handler saw %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the handler's context was not cancelled")
		}
		if err := <-errc; err == nil {
			t.Error("the cancelled call returned no error to the client")
		}
	})
}

func TestListChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		changed := make(chan struct{}, 4)
		session := connect(t, mcpserver.New(f.reg, nil), &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		// A session is told of changes to the list it was given.
		if _, err := session.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "login", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("CallTool(login) = %+v, %v", res, err)
		}
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatal("no notifications/tools/list_changed after the admin scope was enabled")
		}
		list, err := session.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if names := strings.Join(toolNames(list), ","); !strings.Contains(names, "purge") {
			t.Errorf("after login, tools = %s", names)
		}
		res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "purge", Arguments: map[string]any{}})
		if err != nil || res.IsError || text(res) != "purged" {
			t.Errorf("CallTool(purge) = %+v, %v", res, err)
		}
	})
}

func TestStreamableHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			f := newFixture(t)
			srv := mcpserver.New(f.reg, nil)
			httpServer := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: stateless}))
			defer httpServer.Close()
			if !strings.HasPrefix(httpServer.URL, "http://127.0.0.1:") {
				t.Fatalf("test server at %s, want loopback", httpServer.URL)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil)
			session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: httpServer.URL}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			list, err := session.ListTools(t.Context(), nil)
			if err != nil || len(list.Tools) != 4 {
				t.Fatalf("ListTools = %v, %v", list, err)
			}
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
			if err != nil || text(res) != "hello Ada" {
				t.Fatalf("CallTool = %+v, %v", res, err)
			}
			res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
			if err != nil || !res.IsError || !strings.Contains(text(res), `missing required property "name"`) {
				t.Errorf("CallTool(invalid) = %+v, %v", res, err)
			}
		})
	}
}

// TestLoad runs 50 concurrent clients making 200 calls each over streamable
// HTTP on loopback, and requires every call to come back right.
func TestLoad(t *testing.T) {
	const clients, calls = 50, 200
	f := newFixture(t)
	srv := mcpserver.New(f.reg, nil)
	httpServer := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
	defer httpServer.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("load-%d", c), Version: "1"}, nil)
			session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: httpServer.URL}, nil)
			if err != nil {
				failed.Add(calls)
				firstErr.CompareAndSwap(nil, err)
				return
			}
			defer session.Close()
			for i := range calls {
				name := fmt.Sprintf("c%d-%d", c, i)
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": name}})
				if err != nil || res.IsError || text(res) != "hello "+name {
					failed.Add(1)
					if err == nil {
						err = fmt.Errorf("result %+v", res)
					}
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d calls from %d clients in %v (%.0f calls/s)", ok.Load(), clients, elapsed, float64(ok.Load())/elapsed.Seconds())
	if failed.Load() != 0 || ok.Load() != clients*calls {
		t.Fatalf("%d calls ok, %d failed (first error: %v); want all %d ok", ok.Load(), failed.Load(), firstErr.Load(), clients*calls)
	}
}

// TestRewrittenContentKeepsStructuredOutput checks that middleware that
// rewrites what the model reads of a struct-output tool leaves the
// structured content valid, and that a handler can read the MCP request it
// serves.
func TestRewrittenContentKeepsStructuredOutput(t *testing.T) {
	f := newFixture(t)
	f.reg.Use(tool.OnResult(func(_ context.Context, _ tool.Call, res *tool.Result) {
		res.Content = "Here is the greeting: " + res.Content
	}))
	session := connect(t, mcpserver.New(f.reg, nil), nil)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greeting", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.IsError {
		t.Fatalf("CallTool(greeting) = %+v, %v", res, err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var got greeting
	if err := json.Unmarshal(structured, &got); err != nil || got != (greeting{Text: "hi Ada", Count: 1}) || !strings.HasPrefix(text(res), "Here is the greeting: ") {
		t.Errorf("structured = %s, text = %q", structured, text(res))
	}
}

func TestRequestFrom(t *testing.T) {
	if _, ok := mcpserver.RequestFrom(t.Context()); ok {
		t.Error("RequestFrom found a request in a plain context")
	}
	whoami := tool.New("whoami", "Say which session calls.", func(ctx context.Context, _ struct{}) (string, error) {
		req, ok := mcpserver.RequestFrom(ctx)
		if !ok || req.Session == nil {
			return "", errors.New("no MCP request in the context")
		}
		return "session " + req.Params.Name, nil
	})
	srv, err := mcpserver.NewTools(nil, whoami)
	if err != nil {
		t.Fatal(err)
	}
	session := connect(t, srv, nil)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "session whoami" {
		t.Errorf("CallTool(whoami) = %+v, %v", res, err)
	}
}

// TestPerSessionLists enables a scope for the session that signed in only:
// that session is told its list changed and may call the tool; another
// session is not told, does not see it, and cannot call it.
func TestPerSessionLists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var signedIn sync.Map // *mcp.ServerSession → true
		login := tool.New("login", "Sign in.", func(ctx context.Context, _ struct{}) (string, error) {
			c, ok := mcpserver.CallerFrom(ctx)
			if !ok {
				return "", errors.New("no caller")
			}
			signedIn.Store(c.Session, true)
			return "signed in", nil
		})
		purge := tool.New("purge", "Delete everything.", func(ctx context.Context, _ struct{}) (string, error) { return "purged", nil })
		reg, err := tool.NewRegistry(
			&tool.Scope{Name: "public", Tools: []tool.Interface{login}},
			&tool.Scope{Name: "admin", Tools: []tool.Interface{purge}, Enabled: func(ctx context.Context) bool {
				c, ok := mcpserver.CallerFrom(ctx)
				_, in := signedIn.Load(c.Session)
				return ok && in
			}},
		)
		if err != nil {
			t.Fatal(err)
		}
		srv := mcpserver.New(reg, nil)
		var sessions [2]*mcp.ClientSession
		var changed [2]chan struct{}
		for i := range sessions {
			changed[i] = make(chan struct{}, 4)
			sessions[i] = connect(t, srv, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed[i] <- struct{}{} },
			})
			list, err := sessions[i].ListTools(t.Context(), nil)
			if err != nil || strings.Join(toolNames(list), ",") != "login" {
				t.Fatalf("session %d: ListTools = %v, %v; want login only", i, list, err)
			}
		}
		if res, err := sessions[0].CallTool(t.Context(), &mcp.CallToolParams{Name: "login", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("CallTool(login) = %+v, %v", res, err)
		}
		select {
		case <-changed[0]:
		case <-time.After(time.Minute):
			t.Fatal("the session that signed in was not told its list changed")
		}
		for i, want := range []string{"login,purge", "login"} {
			list, err := sessions[i].ListTools(t.Context(), nil)
			if err != nil || strings.Join(toolNames(list), ",") != want {
				t.Errorf("session %d: ListTools = %v, %v; want %s", i, toolNames(list), err, want)
			}
		}
		if res, err := sessions[0].CallTool(t.Context(), &mcp.CallToolParams{Name: "purge", Arguments: map[string]any{}}); err != nil || text(res) != "purged" {
			t.Errorf("session 0: CallTool(purge) = %+v, %v", res, err)
		}
		_, err = sessions[1].CallTool(t.Context(), &mcp.CallToolParams{Name: "purge", Arguments: map[string]any{}})
		if rpcErr, ok := errors.AsType[*jsonrpc.Error](err); !ok || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("session 1: CallTool(purge) error = %v, want a JSON-RPC invalid-params error", err)
		}
		synctest.Wait() // every notification sent has arrived
		select {
		case <-changed[1]:
			t.Error("the other session was told its list changed")
		default:
		}
	})
}

// drifting is a tool of the user's own, without SpecVersion, whose spec
// names it as specName says, which may change after it is served.
type drifting struct {
	inner    *tool.Tool[greetArgs, string]
	specName *atomic.Value
}

func (d drifting) Name() string { return d.inner.Name() }
func (d drifting) Spec() tool.Spec {
	s := d.inner.Spec()
	s.Name = d.specName.Load().(string)
	return s
}
func (d drifting) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	return d.inner.Stream(ctx, call)
}

// TestServedUnderTheNameCallTakes checks that a tool whose spec changes
// its name after the server took it is listed under the name the registry
// calls it by, so that a client calling what it is listed reaches the tool.
func TestServedUnderTheNameCallTakes(t *testing.T) {
	var specName atomic.Value
	specName.Store("greet")
	greet := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetArgs) (string, error) {
		return "hello " + a.Name, nil
	})
	srv, err := mcpserver.NewTools(nil, drifting{greet, &specName})
	if err != nil {
		t.Fatal(err)
	}
	session := connect(t, srv, nil)
	specName.Store("greet_v2")
	srv.Sync(t.Context())
	list, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(list); !slices.Equal(got, []string{"greet"}) {
		t.Errorf("tools = %q, want greet, the name Call takes", got)
	}
	for _, name := range toolNames(list) {
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"name": "Ann"}})
		if err != nil || res.IsError || text(res) != "hello Ann" {
			t.Errorf("CallTool(%s) = %v, %v; want hello Ann", name, res, err)
		}
	}
}

// TestListToolsExamples checks where the examples of a tool are listed:
// the root "examples" of its input schema, as written; a tool without
// examples has none there.
func TestListToolsExamples(t *testing.T) {
	type args struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty"`
	}
	run := func(context.Context, args) (string, error) { return "", nil }
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{
		tool.New("forecast", "Forecast the weather.", run, tool.WithExamples(args{City: "Oslo"}, args{City: "Lima", Days: 3})),
		tool.New("report", "Report the weather.", run),
	}})
	if err != nil {
		t.Fatal(err)
	}
	session := connect(t, mcpserver.New(reg, nil), nil)
	res, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tl := range res.Tools {
		data, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name] = string(data)
	}
	const want = `"examples":[{"city":"Oslo"},{"city":"Lima","days":3}]`
	if !strings.Contains(schemas["forecast"], want) {
		t.Errorf("forecast's input schema is %s, want it to carry %s", schemas["forecast"], want)
	}
	if strings.Contains(schemas["report"], `"examples"`) {
		t.Errorf("report's input schema is %s, want no examples", schemas["report"])
	}
}
