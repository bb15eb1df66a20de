package mcpclient_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskUpstream is a hands server with a tool that must run as a task.
type taskUpstream struct {
	srv     *mcpserver.Server
	started chan struct{}
	ended   chan error
	release chan struct{}
}

func newTaskUpstream(t *testing.T) *taskUpstream {
	t.Helper()
	return newTaskUpstreamWith(t, mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond})
}

// newTaskUpstreamWith is newTaskUpstream with tasks bounded by opts.
func newTaskUpstreamWith(t *testing.T, opts mcpserver.TaskOptions) *taskUpstream {
	t.Helper()
	u := &taskUpstream{started: make(chan struct{}, 10), ended: make(chan error, 10), release: make(chan struct{})}
	type reportArgs struct {
		Topic string `json:"topic"`
	}
	report := tool.New("report", "Write a long report.", func(ctx context.Context, a reportArgs) (string, error) {
		tool.Progress(ctx, tool.ProgressReport{Done: 1, Total: 2, Message: "researching"})
		u.started <- struct{}{}
		select {
		case <-u.release:
			return "a report on " + a.Topic, nil
		case <-ctx.Done():
			u.ended <- ctx.Err()
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskRequired))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: opts}, report)
	if err != nil {
		t.Fatal(err)
	}
	u.srv = srv
	return u
}

// The transports a client reaches a taskUpstream over.
const (
	inMemory = "memory"
	overSSE  = "http"      // streamable HTTP, answered with event streams
	overJSON = "http+json" // streamable HTTP, answered with JSON bodies
)

// connect connects a client to u over one of the transports.
func (u *taskUpstream) connect(t *testing.T, over string, opts *mcpclient.Options) *mcpclient.Client {
	t.Helper()
	var transport mcp.Transport
	if over != inMemory {
		ts := httptest.NewServer(u.srv.HTTPHandler(&mcpserver.HTTPOptions{JSONResponse: over == overJSON}))
		t.Cleanup(ts.Close)
		transport = mcpclient.HTTP(ts.URL, nil)
	} else {
		ct, st := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- u.srv.Run(ctx, st) }()
		t.Cleanup(func() { cancel(); <-done })
		transport = ct
	}
	c, err := mcpclient.Connect(t.Context(), transport, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestTaskRequiredUpstream calls a tool that requires a task through the
// client, over each transport: the server refuses a plain call to it, so
// a result is the task's.
func TestTaskRequiredUpstream(t *testing.T) {
	for _, over := range []string{inMemory, overSSE, overJSON} {
		t.Run(over, func(t *testing.T) {
			u := newTaskUpstream(t)
			c := u.connect(t, over, nil)
			report := find(t, c, "report")
			if got := report.Spec().TaskSupport; got != tool.TaskOptional {
				t.Errorf("a tool that requires a task: Spec().TaskSupport = %q, want %q (hands runs it either way)", got, tool.TaskOptional)
			}
			// The tool finishes once its progress has reached the caller:
			// as notifications/progress, or as the task's status message
			// (over HTTP, the SDK's server drops the notifications of a
			// request already answered).
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
				t.Errorf("progress = %+v, want the task's progress", progress)
			}
		})
	}
}

// TestTaskCancelledUpstream ends a call during its task: the task is
// cancelled on the server, and the tool's context there ends.
func TestTaskCancelledUpstream(t *testing.T) {
	for _, over := range []string{inMemory, overSSE, overJSON} {
		t.Run(over, func(t *testing.T) {
			u := newTaskUpstream(t)
			c := u.connect(t, over, nil)
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
		})
	}
}

// TestTaskTimeout bounds a task by the call's timeout, and cancels it.
func TestTaskTimeout(t *testing.T) {
	u := newTaskUpstream(t)
	c := u.connect(t, inMemory, &mcpclient.Options{Timeout: 300 * time.Millisecond})
	res := call(t.Context(), find(t, c, "report"), "report", `{"topic":"x"}`)
	if _, ok := errors.AsType[*tool.TimeoutError](res.Err); !ok {
		t.Errorf("a task past the timeout = %+v, want a *tool.TimeoutError", res)
	}
	select {
	case <-u.ended:
	case <-time.After(time.Minute):
		t.Fatal("the task past the timeout was not cancelled")
	}
}

// fakeTasks is an upstream written by hand, as another SDK would speak:
// one tool that requires a task, whose task reports "working" with a
// status message for a number of polls, then completes.
type fakeTasks struct {
	pollInterval  any    // the task's pollInterval as written; nil for none
	workingPolls  int    // how many tasks/get answer "working"; -1 for ever
	result        string // the result's text
	noTask        bool   // answer the task-augmented call with a plain result
	statusMessage string // the status message of every working status; "" for "frame n"
	resultOf      string // the task the result names as its own; "" for t-1
	endCancelled  bool   // the task ends cancelled, with statusMessage, and has no result

	mu        sync.Mutex
	polls     []time.Time // when each tasks/get came
	cancelled []string    // the tasks cancelled
	askedTTL  any         // the task parameter's ttl
}

// serve answers the requests read from conn until it closes.
func (f *fakeTasks) serve(ctx context.Context, conn mcp.Connection) {
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{"tools": map[string]any{}, "tasks": map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}},
				"serverInfo":      map[string]any{"name": "fake", "version": "1"},
			}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{
				"name": "render", "description": "Render a film.",
				"inputSchema": map[string]any{"type": "object"},
				"execution":   map[string]any{"taskSupport": "required"},
			}}}
		case "tools/call":
			var p struct {
				Task *struct {
					TTL any `json:"ttl"`
				} `json:"task"`
			}
			json.Unmarshal(req.Params, &p)
			if p.Task == nil || f.noTask {
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "not a task"}}}
				break
			}
			f.mu.Lock()
			f.askedTTL = p.Task.TTL
			f.mu.Unlock()
			result = map[string]any{"task": f.task(Working(0))}
		case "tasks/get":
			f.mu.Lock()
			f.polls = append(f.polls, time.Now())
			n := len(f.polls)
			f.mu.Unlock()
			if f.endCancelled && n > f.workingPolls {
				t := f.task("cancelled")
				t["statusMessage"] = f.statusMessage
				result = t
			} else if f.workingPolls >= 0 && n > f.workingPolls {
				result = f.task("completed")
			} else {
				result = f.task(Working(n))
			}
		case "tasks/result":
			if f.endCancelled {
				break // an error
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": f.result}}, "_meta": map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": cmp.Or(f.resultOf, "t-1")}}}
		case "tasks/cancel":
			f.mu.Lock()
			f.cancelled = append(f.cancelled, "t-1")
			f.mu.Unlock()
			result = f.task("cancelled")
		}
		data, _ := json.Marshal(result)
		if result == nil {
			conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no " + req.Method}})
			continue
		}
		conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: data})
	}
}

// Working is the status "working", with the message of poll n.
type Working int

func (f *fakeTasks) task(status any) map[string]any {
	t := map[string]any{"taskId": "t-1", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000}
	switch s := status.(type) {
	case Working:
		t["status"] = "working"
		t["statusMessage"] = fmt.Sprintf("frame %d", int(s))
		if f.statusMessage != "" {
			t["statusMessage"] = f.statusMessage
		}
	case string:
		t["status"] = s
	}
	if f.pollInterval != nil {
		t["pollInterval"] = f.pollInterval
	}
	return t
}

// connectFake connects a client to f over an in-memory transport.
func connectFake(t *testing.T, f *fakeTasks, opts *mcpclient.Options) *mcpclient.Client {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); f.serve(ctx, conn) }()
	c, err := mcpclient.Connect(ctx, ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		conn.Close()
		cancel()
		<-done
	})
	return c
}

// TestTaskPolling calls a hand-written upstream's task: the client polls
// at the interval the server suggests, held within bounds, passes the
// status messages on as progress, and returns the result.
func TestTaskPolling(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval any
		want     time.Duration
	}{
		{"suggested", 2000, 2 * time.Second},
		{"none", nil, time.Second},
		{"too short", 1, 100 * time.Millisecond},
		{"too long", 1e9, 10 * time.Second},
		{"zero", 0, time.Second},
		{"negative", -5000, time.Second},
		{"overflowing as a duration", int64(1e15), 10 * time.Second},
		{"overflowing to a short one", int64(math.MaxInt64/1_000_000 + 2000), 10 * time.Second},
		{"not a number", "soon", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fakeTasks{pollInterval: tc.interval, workingPolls: 3, result: "rendered"}
				c := connectFake(t, f, &mcpclient.Options{Timeout: -1})
				start := time.Now()
				var progress []string
				var res *tool.Result
				for ev := range find(t, c, "render").Stream(t.Context(), tool.Call{Name: "render", Args: json.RawMessage(`{}`)}) {
					if ev.Result != nil {
						res = ev.Result
					} else if p, ok := ev.Progress.(tool.ProgressReport); ok {
						progress = append(progress, p.Message)
					}
				}
				if tc.name == "not a number" {
					// A pollInterval that is not a number makes the task
					// unreadable: the call fails rather than guessing.
					if res == nil || !res.IsError {
						t.Errorf("render = %+v, want an error", res)
					}
					return
				}
				if res == nil || res.IsError || res.Content != "rendered" {
					t.Fatalf("render = %+v, want the task's result", res)
				}
				f.mu.Lock()
				defer f.mu.Unlock()
				if len(f.polls) != 4 {
					t.Fatalf("%d polls, want 4", len(f.polls))
				}
				prev := start
				for i, at := range f.polls {
					if got := at.Sub(prev); got != tc.want {
						t.Errorf("poll %d came %v after the one before, want %v", i, got, tc.want)
					}
					prev = at
				}
				if want := []string{"frame 0", "frame 1", "frame 2", "frame 3"}; strings.Join(progress, ",") != strings.Join(want, ",") {
					t.Errorf("progress = %q, want %q", progress, want)
				}
				if f.askedTTL != nil {
					t.Errorf("a call without a deadline asked a ttl of %v, want none", f.askedTTL)
				}
			})
		})
	}
}

// TestTaskNeverEnds bounds a task that never ends by the call's timeout,
// and cancels it upstream.
func TestTaskNeverEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeTasks{pollInterval: 1000, workingPolls: -1}
		c := connectFake(t, f, &mcpclient.Options{Timeout: time.Minute})
		res := call(t.Context(), find(t, c, "render"), "render", `{}`)
		if _, ok := errors.AsType[*tool.TimeoutError](res.Err); !ok {
			t.Errorf("a task that never ends = %+v, want a *tool.TimeoutError", res)
		}
		synctest.Wait()
		time.Sleep(time.Second) // the cancel is on its way
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.cancelled) != 1 {
			t.Errorf("tasks cancelled upstream: %v, want the one that never ended", f.cancelled)
		}
		if n := len(f.polls); n < 55 || n > 61 {
			t.Errorf("%d polls in a minute at one a second", n)
		}
		if ttl, ok := f.askedTTL.(float64); !ok || ttl != float64((2*time.Minute).Milliseconds()) {
			t.Errorf("asked ttl %v, want the timeout and a minute", f.askedTTL)
		}
	})
}

// TestTaskBadUpstream: an upstream that answers a task-augmented call
// without a task fails the call, and a task's result is held to the
// client's text bound.
func TestTaskBadUpstream(t *testing.T) {
	f := &fakeTasks{noTask: true}
	c := connectFake(t, f, nil)
	res := call(t.Context(), find(t, c, "render"), "render", `{}`)
	if !res.IsError || !strings.Contains(res.Content, "no task") {
		t.Errorf("a call answered without a task = %+v, want an error", res)
	}
	// A result that names another task as its own (of another caller,
	// perhaps, over the same session) is not this call's.
	f = &fakeTasks{workingPolls: 0, result: "someone else's", resultOf: "t-2"}
	c = connectFake(t, f, nil)
	res = call(t.Context(), find(t, c, "render"), "render", `{}`)
	if !res.IsError || strings.Contains(res.Content, "someone else's") || !strings.Contains(res.Content, "t-2") {
		t.Errorf("a result naming another task = %+v, want an error naming it", res)
	}
	f = &fakeTasks{workingPolls: 0, result: strings.Repeat("y", 5000), statusMessage: strings.Repeat("z", 5000)}
	c = connectFake(t, f, &mcpclient.Options{MaxTextBytes: 1000})
	var longest int
	for ev := range find(t, c, "render").Stream(t.Context(), tool.Call{Name: "render", Args: json.RawMessage(`{}`)}) {
		if ev.Result != nil {
			res = *ev.Result
		} else if p, ok := ev.Progress.(tool.ProgressReport); ok {
			longest = max(longest, len(p.Message))
		}
	}
	if res.IsError || len(res.Content) > 1100 || !strings.Contains(res.Content, "truncated") {
		t.Errorf("a task's long result = %.200q, want it cut at 1000 bytes", res.Content)
	}
	if longest == 0 || longest > 1100 {
		t.Errorf("a 5000-byte status message reached the caller as %d bytes of progress, want it cut at 1024", longest)
	}
	// The status message of a task the server cancelled is the call's
	// error, cut as progress is.
	f = &fakeTasks{workingPolls: 0, endCancelled: true, statusMessage: "stopped: " + strings.Repeat("z", 100_000)}
	c = connectFake(t, f, nil)
	res = call(t.Context(), find(t, c, "render"), "render", `{}`)
	if !res.IsError || !strings.Contains(res.Content, "stopped: zzz") || len(res.Content) > 2000 {
		t.Errorf("a task cancelled with a 100 000-byte status message = %d bytes %.200q, want an error cut near 1024 bytes", len(res.Content), res.Content)
	}
}

// TestTaskAsks: a task's tool asks the client (mcpserver.Elicit). On
// protocol versions before 2026-07-28 the request carries the task's ID
// and the task is input_required until the answer; from 2026-07-28 (the
// tasks extension, in memory) the request is among the task's
// inputRequests, which the client answers with tasks/update, and the
// client's Elicit gets the call's context.
func TestTaskAsks(t *testing.T) {
	for _, over := range []string{inMemory, overSSE} {
		t.Run(over, func(t *testing.T) {
			type confirm struct {
				OK bool `json:"ok"`
			}
			ask := tool.New("deploy", "Deploy, once confirmed.", func(ctx context.Context, _ struct{}) (string, error) {
				mcpserver.BecomeTask(ctx) // on 2026-07-28, ask through the task, not in the call's result
				answer, err := mcpserver.Elicit[confirm](ctx, "Deploy now?")
				if err != nil {
					return "not asked: " + err.Error(), nil
				}
				return fmt.Sprintf("confirmed: %v", answer.OK), nil
			}, tool.WithTaskSupport(tool.TaskRequired))
			srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, ask)
			if err != nil {
				t.Fatal(err)
			}
			u := &taskUpstream{srv: srv}
			var c *mcpclient.Client
			var status, related, who string
			elicit := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				who, _ = ctx.Value(whoKey{}).(string)
				rel, _ := req.Params.Meta[mcptask.RelatedMeta].(map[string]any)
				related, _ = rel["taskId"].(string)
				if related != "" {
					got, err := mcp.CallCustomMethod[*mcptask.IDParams, *mcptask.GetResult](ctx, c.Session(), mcptask.MethodGet, &mcptask.IDParams{TaskID: related})
					if err == nil {
						status = got.Status
					}
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
			}
			c = u.connect(t, over, &mcpclient.Options{Elicit: elicit})
			version := c.Session().InitializeResult().ProtocolVersion
			res := call(context.WithValue(t.Context(), whoKey{}, "ada"), find(t, c, "deploy"), "deploy", `{}`)
			if res.IsError || res.Content != "confirmed: true" {
				t.Fatalf("deploy on %s = %+v", version, res)
			}
			if who != "ada" {
				t.Errorf("on %s, Elicit's ctx is not the call's (who = %q)", version, who)
			}
			if version >= "2026-07-28" {
				if related != "" {
					t.Errorf("on %s, the task's request names the task %q: want it among the task's inputRequests", version, related)
				}
				return
			}
			if related == "" || status != "input_required" {
				t.Errorf("while the client was asked: related task %q, status %q; want the task, input_required", related, status)
			}
		})
	}
}

// TestTaskRequestsNameTheirCall: two callers call, at the same time, a
// tool that requires a task and asks its client once both tasks run. The
// task's request carries the task's ID (related-task) and comes on no
// call's stream, so the client names the call by the task it created:
// each caller is asked once, and each call gets its own caller's answer.
// In memory, where the session speaks 2026-07-28, the requests are among
// each task's inputRequests, which its own call answers.
func TestTaskRequestsNameTheirCall(t *testing.T) {
	for _, over := range []string{inMemory, overSSE, overJSON} {
		t.Run(over, func(t *testing.T) {
			var arrivals atomic.Int32
			both := make(chan struct{})
			type name struct {
				Name string `json:"name"`
			}
			ask := tool.New("ask", "Ask for a name.", func(ctx context.Context, _ struct{}) (string, error) {
				mcpserver.BecomeTask(ctx) // on 2026-07-28, ask through the task, not in the call's result
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
					return "not asked: " + err.Error(), nil
				}
				return answer.Name, nil
			}, tool.WithTaskSupport(tool.TaskRequired))
			srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, ask)
			if err != nil {
				t.Fatal(err)
			}
			u := &taskUpstream{srv: srv}
			var asked sync.Map // who → how many times
			c := u.connect(t, over, &mcpclient.Options{Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				who, _ := ctx.Value(whoKey{}).(string)
				n, _ := asked.LoadOrStore(who, new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
			}})
			h := find(t, c, "ask")
			people := []string{"ada", "grace"}
			got := make([]string, len(people))
			var wg sync.WaitGroup
			for i, who := range people {
				wg.Go(func() {
					got[i] = call(context.WithValue(t.Context(), whoKey{}, who), h, "ask", `{}`).Content
				})
			}
			wg.Wait()
			for i, who := range people {
				if got[i] != who {
					t.Errorf("%s's call was answered %q, want %q", who, got[i], who)
				}
				n, _ := asked.Load(who)
				if n == nil || n.(*atomic.Int32).Load() != 1 {
					t.Errorf("%s was asked %v times, want once", who, n)
				}
			}
			if n, ok := asked.Load(""); ok {
				t.Errorf("%v requests named no call", n)
			}
		})
	}
}

// TestUnknownTaskNamesNoCall: a request that says it is for a task the
// client did not create for a call under way names no call, and its
// handler gets the request's own context, even while a call is under way.
func TestUnknownTaskNamesNoCall(t *testing.T) {
	// A version on which a server may ask while it serves a call.
	up := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	up.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "Your name?",
				Meta:            mcp.Meta{mcptask.RelatedMeta: map[string]any{"taskId": "a-task-nobody-created"}},
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["name"])}}}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := up.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{Elicit: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		who, ok := ctx.Value(whoKey{}).(string)
		if !ok {
			return nil, mcpclient.ErrUnattributed
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": who}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res := call(context.WithValue(t.Context(), whoKey{}, "ada"), find(t, c, "ask"), "ask", `{}`)
	if !res.IsError || !strings.Contains(res.Content, "names no call") {
		t.Errorf("a request for an unknown task = %+v, want it refused as naming no call", res)
	}
}

// TestTaskCancelledOnClose closes the client while a call awaits its
// task, over each transport and at 2026-07-28: the task is cancelled on
// the server before the session ends (the tool's context there ends), and
// the call fails as disconnected. A client that goes leaves no task
// running for nobody.
func TestTaskCancelledOnClose(t *testing.T) {
	for _, over := range []string{inMemory, overSSE, overJSON, "2026-07-28"} {
		t.Run(over, func(t *testing.T) {
			u := newTaskUpstream(t)
			var c *mcpclient.Client
			if over == "2026-07-28" {
				c, _ = connectExt(t, u.srv, nil)
			} else {
				c = u.connect(t, over, nil)
			}
			report := find(t, c, "report")
			done := make(chan tool.Result, 1)
			go func() { done <- call(t.Context(), report, "report", `{"topic":"x"}`) }()
			<-u.started
			if err := c.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
			select {
			case err := <-u.ended:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the task's tool ended with %v", err)
				}
			case <-time.After(time.Minute):
				close(u.release)
				t.Fatal("the task's tool still runs a minute after the client was closed")
			}
			res := <-done
			if !errors.Is(res.Err, mcpclient.ErrDisconnected) {
				t.Errorf("the call whose client was closed = %+v, want an error that matches ErrDisconnected", res)
			}
		})
	}
}
