package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// waitTools is a registry of tools that allow a task: "quick" answers at
// once; "asker" asks its user's name at once (Elicit), "asker_in_task"
// too, once it has made its call a task (BecomeTask), "wonder" with
// tool.Ask; "later" waits for proceed, then reports progress, asks its
// user's name and greets them; and of two that require a task,
// "needs_task", which asks its user's name at once, and
// "needs_task_quick", which answers at once.
type waitTools struct {
	reg     *tool.Registry
	asks    atomic.Int64  // runs of asker and asker_in_task
	runs    atomic.Int64  // of later
	started chan struct{} // later began
	proceed chan struct{} // later goes on
	ended   chan error    // later's ctx.Err, when its context ended first
}

func newWaitTools(t *testing.T) *waitTools {
	t.Helper()
	wt := &waitTools{started: make(chan struct{}, 10), proceed: make(chan struct{}), ended: make(chan error, 10)}
	type name struct {
		Name string `json:"name"`
	}
	quick := tool.New("quick", "Answer at once.", func(ctx context.Context, _ struct{}) (string, error) {
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	asker := tool.New("asker", "Greet the user by name.", func(ctx context.Context, _ struct{}) (string, error) {
		wt.asks.Add(1)
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + "!", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	later := tool.New("later", "Greet the user by name, later.", func(ctx context.Context, _ struct{}) (string, error) {
		wt.runs.Add(1)
		wt.started <- struct{}{}
		select {
		case <-wt.proceed:
		case <-ctx.Done():
			wt.ended <- ctx.Err()
			return "", ctx.Err()
		}
		tool.Progress(ctx, "halfway")
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + "!", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	wonder := tool.New("wonder", "Ask the user a question.", func(ctx context.Context, _ struct{}) (string, error) {
		answer, err := tool.Ask(ctx, "Which colour?")
		if err != nil {
			return "", err
		}
		return "the user said " + answer, nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	askerInTask := tool.New("asker_in_task", "Greet the user by name, as a task.", func(ctx context.Context, _ struct{}) (string, error) {
		wt.asks.Add(1)
		if !mcpserver.BecomeTask(ctx) {
			return "", errors.New("not a task")
		}
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + "!", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	needsTask := tool.New("needs_task", "Greet the user by name; a task.", func(ctx context.Context, _ struct{}) (string, error) {
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + "!", nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	needsTaskQuick := tool.New("needs_task_quick", "Answer at once; a task.", func(ctx context.Context, _ struct{}) (string, error) {
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "tools", Tools: []tool.Interface{quick, asker, askerInTask, needsTask, needsTaskQuick, wonder, later}})
	if err != nil {
		t.Fatal(err)
	}
	wt.reg = reg
	return wt
}

// TestTaskResultWaitPlain: from a client that declared the tasks
// extension, a call of a tool that allows a task and ends within
// ResultWait is answered with its result, and one that ends asking its
// client (tool.Ask) with the question in its result, as a plain call is;
// with a negative ResultWait each such call is a task.
func TestTaskResultWaitPlain(t *testing.T) {
	wt := newWaitTools(t)
	url := replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: time.Minute}, 1)[0]
	c := extClient{t: t, url: url, user: "ada", declared: true}
	r := c.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	if r.Error != nil || strings.Contains(string(r.Result), `"resultType":"task"`) || !strings.Contains(string(r.Result), "quick done") {
		t.Errorf("declared call of quick: %s %+v; want its result, plainly", r.Result, r.Error)
	}
	r = c.send("tools/call", map[string]any{"name": "wonder", "arguments": map[string]any{}})
	if r.Error != nil || !strings.Contains(string(r.Result), `"resultType":"input_required"`) || !strings.Contains(string(r.Result), "Which colour?") {
		t.Errorf("declared call of wonder: %s %+v; want the question in its result", r.Result, r.Error)
	}

	url = replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: -1}, 1)[0]
	c = extClient{t: t, url: url, user: "ada", declared: true}
	task := c.start("quick")
	if done := c.await(task.TaskID, "completed"); !strings.Contains(string(done.Result), "quick done") {
		t.Errorf("quick as a task at once: %+v, want its result", done)
	}
}

// TestTaskResultWaitAsks: a call of a tool that allows a task and asks
// its client (Elicit) within ResultWait asks in its result, no task made
// (the multi round-trip request is resolved before any task), and the
// retry with the answer, which ends at once, is answered plainly; a call
// whose handler makes it a task first (BecomeTask) asks through the task,
// its handler waiting for the answer, and runs once.
func TestTaskResultWaitAsks(t *testing.T) {
	wt := newWaitTools(t)
	url := replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: time.Minute, PollInterval: time.Millisecond}, 1)[0]
	c := extClient{t: t, url: url, user: "ada", declared: true}
	first := roundTrip(t, c, "asker", nil)
	r := c.send("tools/call", map[string]any{"name": "asker", "arguments": map[string]any{}, "requestState": first.RequestState, "inputResponses": named(first, "Ada")})
	if r.Error != nil || strings.Contains(string(r.Result), `"taskId"`) || !strings.Contains(string(r.Result), "Hello, Ada!") {
		t.Errorf("the retry with the answer: %s %+v; want its result, plainly", r.Result, r.Error)
	}

	task := c.start("asker_in_task")
	answer(t, c, c.await(task.TaskID, "input_required"), "Ada")
	if done := c.await(task.TaskID, "completed", "failed"); !strings.Contains(string(done.Result), "Hello, Ada!") {
		t.Errorf("the task at its end: %+v, want its result", done)
	}
	if n := wt.asks.Load(); n != 3 {
		t.Errorf("the tools ran %d times, want 3: twice in round trips, once in a task", n)
	}
}

// TestTaskRequiredAsksFirst: a call of a tool that requires a task and
// asks its client before it is one asks in its result, with no task; the
// retry with the answer, which ends within ResultWait, is answered with a
// task, which has ended with the answer's result; a call that asks once
// it is a task asks through it.
func TestTaskRequiredAsksFirst(t *testing.T) {
	wt := newWaitTools(t)
	url := replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: time.Minute, PollInterval: time.Millisecond}, 1)[0]
	c := extClient{t: t, url: url, user: "ada", declared: true}
	first := roundTrip(t, c, "needs_task", nil)
	r := c.send("tools/call", map[string]any{"name": "needs_task", "arguments": map[string]any{}, "requestState": first.RequestState, "inputResponses": named(first, "Ada")})
	var task extTask
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.TaskID == "" || strings.Contains(string(r.Result), "requestState") || strings.Contains(string(r.Result), "inputRequests") {
		t.Fatalf("the retry with the answer: %s %+v; want a CreateTaskResult", r.Result, r.Error)
	}
	if done := c.await(task.TaskID, "completed", "failed"); done.Status != "completed" || !strings.Contains(string(done.Result), "Hello, Ada!") {
		t.Errorf("the task: %+v, want it completed with its result", done)
	}

	// A call that asks nothing is a task too, though it ends at once.
	quick := c.start("needs_task_quick")
	if done := c.await(quick.TaskID, "completed", "failed"); !strings.Contains(string(done.Result), "quick done") {
		t.Errorf("the task of a quick call: %+v, want its result", done)
	}
}

// extRound is a tools/call's answer that asks the client.
type extRound struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	RequestState  string                     `json:"requestState"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
}

// roundTrip calls the tool name and returns its answer, which is to ask
// the client for a name in its result, with no task.
func roundTrip(t *testing.T, c extClient, name string, args map[string]any) extRound {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	r := c.send("tools/call", map[string]any{"name": name, "arguments": args})
	var got extRound
	if r.Error != nil || json.Unmarshal(r.Result, &got) != nil || got.ResultType != "input_required" || got.TaskID != "" || len(got.InputRequests) != 1 || got.RequestState == "" {
		t.Fatalf("tools/call %s: %s %+v; want an input_required result, with no task", name, r.Result, r.Error)
	}
	for _, req := range got.InputRequests {
		if !strings.Contains(string(req), "Your name?") {
			t.Errorf("input request %s, want the question", req)
		}
	}
	return got
}

// named returns the inputResponses that answer a round's one question
// with name.
func named(round extRound, name string) map[string]any {
	responses := map[string]any{}
	for key := range round.InputRequests {
		responses[key] = map[string]any{"action": "accept", "content": map[string]any{"name": name}}
	}
	return responses
}

// answer answers the one question of a task that asks for a name.
func answer(t *testing.T, c extClient, asking extTask, name string) {
	t.Helper()
	if len(asking.InputRequests) != 1 {
		t.Fatalf("the task asking: %+v, want one input request", asking)
	}
	for key, req := range asking.InputRequests {
		if !strings.Contains(string(req), "Your name?") {
			t.Errorf("input request %s, want the question", req)
		}
		r := c.send("tasks/update", map[string]any{"taskId": asking.TaskID, "inputResponses": map[string]any{
			key: map[string]any{"action": "accept", "content": map[string]any{"name": name}},
		}})
		if r.Error != nil {
			t.Fatalf("tasks/update: %+v", r.Error)
		}
	}
}

// TestTaskResultWaitBecomesTask: a call that goes on past ResultWait
// becomes a task and carries on as the task's, run once: its progress is
// the task's status message, its question comes among the task's
// inputRequests, and its result is the task's.
func TestTaskResultWaitBecomesTask(t *testing.T) {
	wt := newWaitTools(t)
	url := replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: time.Millisecond, PollInterval: time.Millisecond}, 1)[0]
	c := extClient{t: t, url: url, user: "ada", declared: true}
	task := c.start("later")
	if got, r := c.get(task.TaskID); r.Error != nil || got.Status != "working" {
		t.Fatalf("the task as soon as it was answered: %+v %+v, want working", got, r.Error)
	}
	close(wt.proceed)
	asking := c.await(task.TaskID, "input_required")
	// The progress is written to the store beside the question, not
	// necessarily before it.
	for i := 0; asking.StatusMessage != "halfway"; i++ {
		if i == 10_000 {
			t.Fatalf("the task asking: %+v, want its progress as the status message", asking)
		}
		time.Sleep(time.Millisecond) // a poll, as a client makes; no duration is asserted
		asking, _ = c.get(task.TaskID)
	}
	answer(t, c, asking, "Ada")
	done := c.await(task.TaskID, "completed", "failed")
	if !strings.Contains(string(done.Result), "Hello, Ada!") {
		t.Errorf("the task at its end: %+v, want its result", done)
	}
	if n := wt.runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want once", n)
	}
}

// TestTaskResultWaitCancelled: a stateless HTTP request that ends while
// its call may still be answered plainly ends the call, and leaves no
// task behind.
func TestTaskResultWaitCancelled(t *testing.T) {
	wt := newWaitTools(t)
	store := taskstore.NewMemory(nil)
	url := replicas(t, wt.reg, mcpserver.TaskOptions{ResultWait: time.Minute, Store: store}, 1)[0]
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"later","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "later", "Authorization": "Bearer ada"} {
		req.Header.Set(k, v)
	}
	go func() {
		<-wt.started
		cancel()
	}()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("the request was answered (%s), though cancelled while its call ran", resp.Status)
	}
	select {
	case err := <-wt.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the call ended with %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the call of a request that ended goes on")
	}
	if list, err := store.List(t.Context(), "user ada"); err != nil || len(list) != 0 {
		t.Errorf("tasks of the cancelled call: %d %v, want none", len(list), err)
	}
}

// TestTaskResultWaitSession: on a session (a stateful connection) whose
// requests are of 2026-07-28 and declare the extension, a call that goes
// on past ResultWait becomes a task the session polls, and one that the
// client cancels while it may still be answered plainly ends.
func TestTaskResultWaitSession(t *testing.T) {
	wt := newWaitTools(t)
	srv := mcpserver.New(wt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{ResultWait: time.Millisecond}})
	c, _ := connectRaw(t, srv)
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	res, err := c.call("tools/call", map[string]any{"name": "later", "arguments": map[string]any{}, "_meta": meta})
	var task extTask
	if err != nil || json.Unmarshal(res, &task) != nil || task.ResultType != "task" {
		t.Fatalf("tools/call later: %s %v, want a task", res, err)
	}
	<-wt.started
	res, err = c.call("tasks/get", map[string]any{"taskId": task.TaskID, "_meta": meta})
	var got extTask
	if err != nil || json.Unmarshal(res, &got) != nil || got.Status != "working" {
		t.Errorf("tasks/get on the session: %s %v, want working", res, err)
	}
	if _, err := c.call("tasks/cancel", map[string]any{"taskId": task.TaskID, "_meta": meta}); err != nil {
		t.Errorf("tasks/cancel: %v", err)
	}
	if err := <-wt.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled task's call ended with %v", err)
	}

	// A call the client cancels (notifications/cancelled) while it may
	// still be answered plainly.
	srv = mcpserver.New(wt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{ResultWait: time.Minute}})
	c, _ = connectRaw(t, srv)
	params, _ := json.Marshal(map[string]any{"name": "later", "arguments": map[string]any{}, "_meta": meta})
	id, _ := jsonrpc.MakeID(float64(99))
	if err := c.conn.Write(t.Context(), &jsonrpc.Request{ID: id, Method: "tools/call", Params: params}); err != nil {
		t.Fatal(err)
	}
	<-wt.started
	if err := c.conn.Write(t.Context(), &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":99}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-wt.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call ended with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a call the client cancelled goes on")
	}
}

// TestTaskExtensionToolAsk: a task's call that asks with tool.Ask asks
// through the task, as one that asks with Elicit does: the question is
// among the task's inputRequests, and the call runs again with the answer
// that tasks/update brings — whether the call was a task at once (a tool
// that requires one) or became one.
func TestTaskExtensionToolAsk(t *testing.T) {
	proceed := map[string]chan struct{}{"required": make(chan struct{}), "optional": make(chan struct{})}
	// ask asks once proceed is closed: its first run, once the call is a
	// task; its second, which has the answer, at once.
	ask := func(proceed chan struct{}) func(context.Context, struct{}) (string, error) {
		return func(ctx context.Context, _ struct{}) (string, error) {
			select {
			case <-proceed:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			answer, err := tool.Ask(ctx, "Which colour?")
			if err != nil {
				return "", err
			}
			return "the user said " + answer, nil
		}
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{
		tool.New("required", "Ask the user, as a task.", ask(proceed["required"]), tool.WithTaskSupport(tool.TaskRequired)),
		tool.New("optional", "Ask the user, later.", ask(proceed["optional"]), tool.WithTaskSupport(tool.TaskOptional)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	url := replicas(t, reg, mcpserver.TaskOptions{ResultWait: time.Millisecond, PollInterval: time.Millisecond}, 1)[0]
	c := extClient{t: t, url: url, user: "ada", declared: true}
	for _, name := range []string{"required", "optional"} {
		task := c.start(name)
		close(proceed[name])
		asking := c.await(task.TaskID, "input_required", "completed", "failed")
		if asking.Status != "input_required" || len(asking.InputRequests) != 1 {
			t.Errorf("%s: the task asking: %+v %s, want one input request", name, asking, asking.Result)
			continue
		}
		for key, req := range asking.InputRequests {
			if !strings.Contains(string(req), "Which colour?") {
				t.Errorf("%s: input request %s, want the question", name, req)
			}
			r := c.send("tasks/update", map[string]any{"taskId": task.TaskID, "inputResponses": map[string]any{
				key: map[string]any{"action": "accept", "content": map[string]any{"answer": "blue"}},
			}})
			if r.Error != nil {
				t.Fatalf("%s: tasks/update: %+v", name, r.Error)
			}
		}
		if done := c.await(task.TaskID, "completed", "failed"); !strings.Contains(string(done.Result), "the user said blue") {
			t.Errorf("%s: the task at its end: %+v %s, want the answer in its result", name, done, done.Result)
		}
	}
}
