package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An extRecorder notes the requests a server over streamable HTTP
// receives: each one's Mcp-Method, and its Mcp-Name.
type extRecorder struct {
	mu   sync.Mutex
	reqs [][2]string // method, name
}

func (r *extRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			r.mu.Lock()
			r.reqs = append(r.reqs, [2]string{req.Header.Get("Mcp-Method"), req.Header.Get("Mcp-Name")})
			r.mu.Unlock()
		}
		next.ServeHTTP(w, req)
	})
}

// names returns the Mcp-Name of each request of method, in order.
func (r *extRecorder) names(method string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for _, req := range r.reqs {
		if req[0] == method {
			names = append(names, req[1])
		}
	}
	return names
}

// connectExt connects a client to srv served statelessly over HTTP on
// 127.0.0.1, where the client speaks 2026-07-28 and tasks are the
// extension's.
func connectExt(t *testing.T, srv *mcpserver.Server, opts *mcpclient.Options) (*mcpclient.Client, *extRecorder) {
	t.Helper()
	rec := &extRecorder{}
	ts := httptest.NewServer(rec.wrap(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true})))
	t.Cleanup(ts.Close)
	c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if v := c.Session().InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("the session speaks %s; the test needs 2026-07-28, where tasks are the extension's", v)
	}
	return c, rec
}

// A fakeClock is the clock a client polls tasks by: each sleep moves it
// on at once, and is noted.
type fakeClock struct {
	mu     sync.Mutex
	at     time.Time
	waits  []time.Duration
	onWait func(n int) // called after the n-th wait, if set
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}

func (f *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.at = f.at.Add(d)
	f.waits = append(f.waits, d)
	n, hook := len(f.waits), f.onWait
	f.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return ctx.Err()
}

// TestTaskExtensionCall calls a tool that requires a task over stateless
// HTTP at 2026-07-28: the client declares the extension, the server
// answers with a task, and the client polls it, with the task's ID in
// Mcp-Name, passes its status message on as progress, and returns its
// result.
func TestTaskExtensionCall(t *testing.T) {
	u := newTaskUpstream(t)
	c, rec := connectExt(t, u.srv, nil)
	report := find(t, c, "report")
	var once sync.Once
	release := func() { once.Do(func() { close(u.release) }) }
	defer time.AfterFunc(10*time.Second, release).Stop() // no progress: fail below, not at the timeout
	var progress []tool.ProgressReport
	var res *tool.Result
	for ev := range report.Stream(t.Context(), tool.Call{Name: "report", Args: json.RawMessage(`{"topic":"otters"}`)}) {
		if ev.Result != nil {
			res = ev.Result
		} else if p, ok := ev.Progress.(tool.ProgressReport); ok {
			release()
			progress = append(progress, p)
		}
	}
	if res == nil || res.IsError || res.Content != "a report on otters" {
		t.Fatalf("report = %+v, want the task's result", res)
	}
	if len(progress) == 0 || progress[0].Message != "researching" {
		t.Errorf("progress = %+v, want the task's status message", progress)
	}
	names := rec.names("tasks/get")
	if len(names) == 0 {
		t.Fatal("no tasks/get: the call was not a task")
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "ht1.") || name != names[0] {
			t.Errorf("tasks/get with Mcp-Name %q, want the task's ID on each (%q)", name, names[0])
		}
	}
	if got := rec.names("tasks/result"); len(got) > 0 {
		t.Errorf("%d tasks/result, which 2026-07-28 does not have", len(got))
	}
}

// TestTaskExtensionPolls polls a task by a clock of the test's: before
// each tasks/get the client waits the server's pollIntervalMs, then half
// again as long each time while the task goes on unchanged, up to five
// seconds; the server sees exactly one tasks/get a wait.
func TestTaskExtensionPolls(t *testing.T) {
	release := make(chan struct{})
	slow := tool.New("slow", "Work slowly.", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskRequired))
	const interval = 250 * time.Millisecond
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: interval}}, slow)
	if err != nil {
		t.Fatal(err)
	}
	c, rec := connectExt(t, srv, &mcpclient.Options{Timeout: -1})
	clock := &fakeClock{at: time.Unix(1e9, 0)}
	clock.onWait = func(n int) {
		if n == 3 {
			close(release)
		}
	}
	mcpclient.SetClock(c, clock.now, clock.sleep)
	res := call(t.Context(), find(t, c, "slow"), "slow", `{}`)
	if res.IsError || res.Content != "done" {
		t.Fatalf("slow = %+v", res)
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	polls := len(rec.names("tasks/get"))
	if polls < 3 || polls != len(clock.waits) {
		t.Errorf("%d tasks/get after %d waits, want one after each, and at least 3", polls, len(clock.waits))
	}
	want := interval
	for i, got := range clock.waits {
		if got != want {
			t.Errorf("wait %d before tasks/get was %v, want %v", i, got, want)
		}
		want = min(want+want/2, 5*time.Second)
	}
}

// TestTaskExtensionTTL: a task that does not end within its ttl is given
// up, by the client's clock, and cancelled on the server.
func TestTaskExtensionTTL(t *testing.T) {
	u := newTaskUpstreamWith(t, mcpserver.TaskOptions{PollInterval: 250 * time.Millisecond, TTL: 2 * time.Second})
	c, rec := connectExt(t, u.srv, &mcpclient.Options{Timeout: -1})
	clock := &fakeClock{at: time.Unix(1e9, 0)}
	mcpclient.SetClock(c, clock.now, clock.sleep)
	res := call(t.Context(), find(t, c, "report"), "report", `{"topic":"x"}`)
	if !res.IsError || !strings.Contains(res.Content, "ttl of 2000 ms") {
		t.Errorf("a task past its ttl = %+v, want an error that says so", res)
	}
	select {
	case err := <-u.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the task's tool ended with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the task past its ttl was not cancelled")
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	var waited time.Duration
	for _, w := range clock.waits {
		waited += w
	}
	if waited != 2*time.Second {
		t.Errorf("the client waited %v in all, want the ttl, 2s", waited)
	}
	if n := len(rec.names("tasks/cancel")); n != 1 {
		t.Errorf("%d tasks/cancel, want 1", n)
	}
}

// TestTaskExtensionCancelled ends a call during its task: the client
// sends tasks/cancel, with the task's ID in Mcp-Name, and the tool's
// context on the server ends.
func TestTaskExtensionCancelled(t *testing.T) {
	u := newTaskUpstream(t)
	c, rec := connectExt(t, u.srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-u.started
		cancel()
	}()
	res := call(ctx, find(t, c, "report"), "report", `{"topic":"x"}`)
	if !errors.Is(res.Err, tool.ErrCanceled) {
		t.Errorf("a cancelled call = %+v, want a *tool.CanceledError", res)
	}
	select {
	case err := <-u.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the task's tool ended with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the task's tool was not cancelled (no tasks/cancel)")
	}
	if names := rec.names("tasks/cancel"); len(names) != 1 || !strings.HasPrefix(names[0], "ht1.") {
		t.Errorf("tasks/cancel with Mcp-Name %q, want one, naming the task", names)
	}
}

// TestTaskExtensionInput: a task's tool asks its client (mcpserver.Elicit,
// then mcpserver.Sample) through the task: each request is among the
// task's inputRequests, which the client answers once, through
// Options.Elicit and Options.Sample with the call's context, and sends
// back with tasks/update.
func TestTaskExtensionInput(t *testing.T) {
	type name struct {
		Name string `json:"name"`
	}
	greet := tool.New("greet", "Greet the user, in verse.", func(ctx context.Context, _ struct{}) (string, error) {
		mcpserver.BecomeTask(ctx) // ask through the task, not in the call's result
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		verse, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 50,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "A verse for " + who.Name}}}})
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + ": " + verse.Content.(*mcp.TextContent).Text, nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, greet)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	c, rec := connectExt(t, srv, &mcpclient.Options{
		Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			who, _ := ctx.Value(whoKey{}).(string)
			mu.Lock()
			asked = append(asked, "elicit "+req.Params.Message+" of "+who)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
		},
		Sample: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			who, _ := ctx.Value(whoKey{}).(string)
			mu.Lock()
			asked = append(asked, "sample of "+who)
			mu.Unlock()
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "roses are red"}}, nil
		},
	})
	res := call(context.WithValue(t.Context(), whoKey{}, "Ada"), find(t, c, "greet"), "greet", `{}`)
	if res.IsError || res.Content != "Hello, Ada: roses are red" {
		t.Fatalf("greet = %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"elicit Your name? of Ada", "sample of Ada"}; strings.Join(asked, "; ") != strings.Join(want, "; ") {
		t.Errorf("the client was asked %q, want %q: each request once, with the call's context", asked, want)
	}
	if names := rec.names("tasks/update"); len(names) != 2 || names[0] != names[1] || !strings.HasPrefix(names[0], "ht1.") {
		t.Errorf("tasks/update with Mcp-Name %q, want two, naming the task", names)
	}
}

// TestTaskExtensionSameResult: a call that the server makes a task
// returns what a plain call of the same tool returns — content,
// structured content, the whole result but for the serverInfo the SDK
// puts in each response — and a tool's error as the same error.
func TestTaskExtensionSameResult(t *testing.T) {
	type out struct {
		Sum  int    `json:"sum"`
		Note string `json:"note"`
	}
	type in struct {
		A    int  `json:"a"`
		B    int  `json:"b"`
		Fail bool `json:"fail,omitempty"`
	}
	add := func(ctx context.Context, a in) (out, error) {
		if a.Fail {
			return out{}, errors.New("cannot add today")
		}
		return out{Sum: a.A + a.B, Note: "<added> & checked"}, nil
	}
	// One tool, on two servers: as a task on one, plainly on the other.
	connect := func(opts ...tool.Option) (*mcpclient.Client, *extRecorder) {
		srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, tool.New("add", "Add.", add, opts...))
		if err != nil {
			t.Fatal(err)
		}
		return connectExt(t, srv, nil)
	}
	tasks, rec := connect(tool.WithTaskSupport(tool.TaskRequired))
	plain, _ := connect()
	for _, args := range []string{`{"a":2,"b":3}`, `{"a":2,"b":3,"fail":true}`} {
		got := call(t.Context(), find(t, tasks, "add"), "add", args)
		want := call(t.Context(), find(t, plain, "add"), "add", args)
		// The SDK's server puts its serverInfo in the _meta of each
		// response at 2026-07-28: the plain call's result is a response,
		// the task's is inline in one.
		if res, ok := want.Output.(*mcp.CallToolResult); ok {
			delete(res.Meta, mcp.MetaKeyServerInfo)
			if len(res.Meta) == 0 {
				res.Meta = nil
			}
		}
		g, _ := json.Marshal(got.Output)
		w, _ := json.Marshal(want.Output)
		if got.Content != want.Content || got.IsError != want.IsError || string(got.Structured) != string(want.Structured) || string(g) != string(w) {
			t.Errorf("%s as a task = %q %s %s (error %v), plainly = %q %s %s (error %v); want the same", args,
				got.Content, got.Structured, g, got.IsError, want.Content, want.Structured, w, want.IsError)
		}
		if (got.Err == nil) != (want.Err == nil) || got.Err != nil && got.Err.Error() != want.Err.Error() {
			t.Errorf("%s: as a task the error is %v, plainly %v", args, got.Err, want.Err)
		}
		if args == `{"a":2,"b":3}` && (got.IsError || !strings.Contains(string(got.Structured), `"sum":5`)) {
			t.Errorf("%s as a task = %+v, want the sum", args, got)
		}
	}
	if n := len(rec.names("tasks/get")); n < 2 {
		t.Errorf("%d tasks/get: the calls of add were not tasks", n)
	}
}

// TestTaskExtensionOptionalAnsweredPlainly: a call of a tool that allows
// a task and ends within the server's TaskOptions.ResultWait is answered
// with its result, though the client declared the extension: no task, no
// tasks/get, and the tool runs once.
func TestTaskExtensionOptionalAnsweredPlainly(t *testing.T) {
	var calls atomic.Int64
	quick := tool.New("quick", "Answer at once.", func(ctx context.Context, _ struct{}) (string, error) {
		calls.Add(1)
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	// A minute: only a call that takes that long becomes a task, however
	// loaded the machine.
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{ResultWait: time.Minute}}, quick)
	if err != nil {
		t.Fatal(err)
	}
	c, rec := connectExt(t, srv, nil)
	for range 3 {
		res := call(t.Context(), find(t, c, "quick"), "quick", `{}`)
		if res.IsError || res.Content != "quick done" {
			t.Fatalf("quick = %+v, want its result", res)
		}
	}
	if n := len(rec.names("tasks/get")); n != 0 {
		t.Errorf("%d tasks/get: a call that ended at once became a task", n)
	}
	if n := len(rec.names("tools/call")); n != 3 {
		t.Errorf("%d tools/call for 3 calls, want one each", n)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("the tool ran %d times for 3 calls", n)
	}
}

// TestTaskExtensionOptionalBecomesTask: a call of a tool that allows a
// task and goes on past the server's TaskOptions.ResultWait becomes a
// task, created before the client learns of it: the client polls it, and
// gets the result of the one run of the tool.
func TestTaskExtensionOptionalBecomesTask(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	slow := tool.New("slow", "Work until released.", func(ctx context.Context, _ struct{}) (string, error) {
		calls.Add(1)
		select {
		case <-release:
			return "slow done", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskOptional))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{ResultWait: time.Millisecond}}, slow)
	if err != nil {
		t.Fatal(err)
	}
	c, rec := connectExt(t, srv, &mcpclient.Options{Timeout: -1})
	clock := &fakeClock{at: time.Unix(1e9, 0)}
	clock.onWait = func(n int) {
		// The client waits only once it holds a task: the tool ends
		// then, and not before.
		if n == 1 {
			close(release)
		}
	}
	mcpclient.SetClock(c, clock.now, clock.sleep)
	res := call(t.Context(), find(t, c, "slow"), "slow", `{}`)
	if res.IsError || res.Content != "slow done" {
		t.Fatalf("slow = %+v, want the task's result", res)
	}
	if n := len(rec.names("tasks/get")); n == 0 {
		t.Error("no tasks/get: the call that went on did not become a task")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want once", n)
	}
}

// TestTaskExtensionRequiredAlwaysTask: a call of a tool that requires a
// task becomes one however soon it ends, whatever TaskOptions.ResultWait.
func TestTaskExtensionRequiredAlwaysTask(t *testing.T) {
	quick := tool.New("quick", "Answer at once, as a task.", func(ctx context.Context, _ struct{}) (string, error) {
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{ResultWait: time.Minute}}, quick)
	if err != nil {
		t.Fatal(err)
	}
	c, rec := connectExt(t, srv, &mcpclient.Options{Timeout: -1})
	clock := &fakeClock{at: time.Unix(1e9, 0)}
	mcpclient.SetClock(c, clock.now, clock.sleep)
	res := call(t.Context(), find(t, c, "quick"), "quick", `{}`)
	if res.IsError || res.Content != "quick done" {
		t.Fatalf("quick = %+v, want the task's result", res)
	}
	if n := len(rec.names("tasks/get")); n == 0 {
		t.Error("no tasks/get: a call of a tool that requires a task was not one")
	}
}
