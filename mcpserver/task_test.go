package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A rawClient speaks JSON-RPC to a server as written, so that a test sees
// the task fields the SDK's types have no place for.
type rawClient struct {
	t    *testing.T
	conn mcp.Connection

	mu      sync.Mutex
	next    int64
	waiting map[jsonrpc.ID]chan *jsonrpc.Response
}

// taskTools is a registry of a tool that must run as a task and waits for
// release or its end, one that may and answers at once, one that must not,
// and one whose result is large.
type taskTools struct {
	reg     *tool.Registry
	release chan struct{}
	started chan struct{}
	ended   chan error // the slow tool's ctx.Err when its context ended
}

func newTaskTools(t *testing.T) *taskTools {
	t.Helper()
	tt := &taskTools{release: make(chan struct{}), started: make(chan struct{}, 10), ended: make(chan error, 10)}
	type none struct{}
	slow := tool.New("slow", "Work a long while.", func(ctx context.Context, _ none) (string, error) {
		tool.Progress(ctx, "warming up")
		tt.started <- struct{}{}
		select {
		case <-tt.release:
			return "slow done", nil
		case <-ctx.Done():
			tt.ended <- ctx.Err()
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskRequired))
	quick := tool.New("quick", "Answer at once.", func(ctx context.Context, _ none) (string, error) {
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	plain := tool.New("plain", "Answer plainly.", func(ctx context.Context, _ none) (string, error) {
		return "plain done", nil
	})
	big := tool.New("big", "Answer at length.", func(ctx context.Context, _ none) (string, error) {
		return strings.Repeat("x", 10_000), nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "tools", Tools: []tool.Interface{slow, quick, plain, big}})
	if err != nil {
		t.Fatal(err)
	}
	tt.reg = reg
	return tt
}

// connectRaw serves srv on an in-memory connection and returns a raw
// client that has initialized, and the initialize result.
func connectRaw(t *testing.T, srv *mcpserver.Server) (*rawClient, json.RawMessage) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientSide, serverSide := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, serverSide) }()
	conn, err := clientSide.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, waiting: map[jsonrpc.ID]chan *jsonrpc.Response{}}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			if resp, ok := msg.(*jsonrpc.Response); ok {
				c.mu.Lock()
				ch := c.waiting[resp.ID]
				delete(c.waiting, resp.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- resp
				}
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		cancel()
		<-done
		<-read
	})
	init, err := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	return c, init
}

// call sends a request and waits for its response: the result, or the
// JSON-RPC error.
func (c *rawClient) call(method string, params any) (json.RawMessage, error) {
	data, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.next++
	id, _ := jsonrpc.MakeID(float64(c.next))
	ch := make(chan *jsonrpc.Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: method, Params: data}); err != nil {
		return nil, err
	}
	resp := <-ch
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// wireTask is a task as the protocol writes it.
type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

// startTask calls a tool as a task and returns the task created.
func (c *rawClient) startTask(name string, ttl int64) wireTask {
	c.t.Helper()
	res, err := c.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{}, "task": map[string]any{"ttl": ttl}})
	if err != nil {
		c.t.Fatalf("tools/call %s as a task: %v", name, err)
	}
	var created struct {
		Task    *wireTask `json:"task"`
		Content any       `json:"content"`
	}
	if err := json.Unmarshal(res, &created); err != nil || created.Task == nil || created.Content != nil {
		c.t.Fatalf("tools/call %s as a task: got %s, want a CreateTaskResult", name, res)
	}
	return *created.Task
}

// getTask returns the task's state, by tasks/get.
func (c *rawClient) getTask(id string) (wireTask, error) {
	res, err := c.call("tasks/get", map[string]any{"taskId": id})
	var w wireTask
	if err == nil {
		err = json.Unmarshal(res, &w)
	}
	return w, err
}

// codeOf returns the JSON-RPC error code of err; 0 if it has none.
func codeOf(err error) int64 {
	if werr, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return werr.Code
	}
	return 0
}

func TestTaskAdvertised(t *testing.T) {
	srv := mcpserver.New(newTaskTools(t).reg, nil)
	c, init := connectRaw(t, srv)
	var got struct {
		Capabilities struct {
			Tasks *struct {
				List     *struct{} `json:"list"`
				Cancel   *struct{} `json:"cancel"`
				Requests struct {
					Tools struct {
						Call *struct{} `json:"call"`
					} `json:"tools"`
				} `json:"requests"`
			} `json:"tasks"`
			Tools *struct{} `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &got); err != nil {
		t.Fatal(err)
	}
	caps := got.Capabilities
	if caps.Tasks == nil || caps.Tasks.List == nil || caps.Tasks.Cancel == nil || caps.Tasks.Requests.Tools.Call == nil || caps.Tools == nil {
		t.Errorf("initialize: capabilities %s, want tasks with list, cancel and requests.tools.call, and tools", init)
	}
	res, err := c.call("tools/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name      string         `json:"name"`
			Execution map[string]any `json:"execution"`
			Meta      map[string]any `json:"_meta"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"slow": "required", "quick": "optional", "plain": "", "big": "optional"}
	for _, tl := range list.Tools {
		got, _ := tl.Execution["taskSupport"].(string)
		if got != want[tl.Name] {
			t.Errorf("tools/list: %s has execution %v, want taskSupport %q", tl.Name, tl.Execution, want[tl.Name])
		}
		if len(tl.Meta) > 0 {
			t.Errorf("tools/list: %s has _meta %v, want none", tl.Name, tl.Meta)
		}
	}
	if len(list.Tools) != len(want) {
		t.Errorf("tools/list: %d tools, want %d", len(list.Tools), len(want))
	}
}

func TestTaskLifecycle(t *testing.T) {
	srv := mcpserver.New(newTaskTools(t).reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 250 * time.Millisecond}})
	c, _ := connectRaw(t, srv)
	task := c.startTask("quick", 60_000)
	if task.Status != "working" || task.TaskID == "" || task.TTL == nil || *task.TTL != 60_000 || task.PollInterval != 250 || task.CreatedAt == "" || task.LastUpdatedAt == "" {
		t.Errorf("created task %+v, want working, with an ID, a ttl of 60000, a pollInterval of 250 and timestamps", task)
	}
	res, err := c.call("tasks/result", map[string]any{"taskId": task.TaskID})
	if err != nil {
		t.Fatal(err)
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
		Meta    map[string]struct {
			TaskID string `json:"taskId"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res, &result); err != nil {
		t.Fatal(err)
	}
	if len(result.Content) != 1 || result.Content[0].Text != "quick done" || result.IsError {
		t.Errorf("tasks/result: %s, want the tool's result", res)
	}
	if got := result.Meta["io.modelcontextprotocol/related-task"].TaskID; got != task.TaskID {
		t.Errorf("tasks/result: related task %q, want %q", got, task.TaskID)
	}
	got, err := c.getTask(task.TaskID)
	if err != nil || got.Status != "completed" || got.TaskID != task.TaskID {
		t.Errorf("tasks/get after the result: %+v, %v; want completed", got, err)
	}
	res, err = c.call("tasks/list", map[string]any{})
	if err != nil || !strings.Contains(string(res), task.TaskID) {
		t.Errorf("tasks/list: %s, %v; want the task", res, err)
	}
	if _, err := c.call("tasks/cancel", map[string]any{"taskId": task.TaskID}); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/cancel of a completed task: %v, want error %d", err, jsonrpc.CodeInvalidParams)
	}
	// A plain call of a tool that may run as a task is a plain call.
	res, err = c.call("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	if err != nil || !strings.Contains(string(res), "quick done") {
		t.Errorf("plain call of an optional tool: %s, %v", res, err)
	}
}

func TestTaskNegotiation(t *testing.T) {
	srv := mcpserver.New(newTaskTools(t).reg, nil)
	c, _ := connectRaw(t, srv)
	_, err := c.call("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	if codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("plain call of a tool that requires a task: %v, want error %d", err, jsonrpc.CodeMethodNotFound)
	}
	_, err = c.call("tools/call", map[string]any{"name": "plain", "arguments": map[string]any{}, "task": map[string]any{}})
	if codeOf(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("task call of a tool that forbids it: %v, want error %d", err, jsonrpc.CodeMethodNotFound)
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if _, err := c.call(method, map[string]any{"taskId": "nope"}); codeOf(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s of an unknown task: %v, want error %d", method, err, jsonrpc.CodeInvalidParams)
		}
	}
	if _, err := c.call("tasks/list", map[string]any{"cursor": "x"}); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/list with a cursor never given: %v, want error %d", err, jsonrpc.CodeInvalidParams)
	}
}

func TestTaskCancel(t *testing.T) {
	tt := newTaskTools(t)
	srv := mcpserver.New(tt.reg, nil)
	c, _ := connectRaw(t, srv)
	task := c.startTask("slow", 60_000)
	<-tt.started
	result := make(chan json.RawMessage, 1)
	go func() {
		res, err := c.call("tasks/result", map[string]any{"taskId": task.TaskID})
		if err != nil {
			t.Error(err)
		}
		result <- res
	}()
	res, err := c.call("tasks/cancel", map[string]any{"taskId": task.TaskID})
	if err != nil {
		t.Fatal(err)
	}
	var cancelled wireTask
	if err := json.Unmarshal(res, &cancelled); err != nil || cancelled.Status != "cancelled" {
		t.Errorf("tasks/cancel: %s, want the task cancelled", res)
	}
	select {
	case err := <-tt.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the handler's context did not end")
	}
	res = <-result
	if !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), "cancelled") {
		t.Errorf("tasks/result of a cancelled task: %s, want an error result that says so", res)
	}
	if got, err := c.getTask(task.TaskID); err != nil || got.Status != "cancelled" {
		t.Errorf("tasks/get after cancel: %+v, %v; want cancelled", got, err)
	}
}

func TestTaskIsolation(t *testing.T) {
	tt := newTaskTools(t)
	srv := mcpserver.New(tt.reg, nil)
	alice, _ := connectRaw(t, srv)
	mallory, _ := connectRaw(t, srv)
	task := alice.startTask("slow", 60_000)
	<-tt.started
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if _, err := mallory.call(method, map[string]any{"taskId": task.TaskID}); codeOf(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s of another session's task: %v, want task not found", method, err)
		}
	}
	res, err := mallory.call("tasks/list", map[string]any{})
	if err != nil || strings.Contains(string(res), task.TaskID) {
		t.Errorf("tasks/list of another session: %s, %v; want none of alice's tasks", res, err)
	}
	// The tool's progress reaches the task's status message on the way
	// its events are drained, a moment after the handler sent it.
	got, err := alice.getTask(task.TaskID)
	for deadline := time.Now().Add(time.Minute); err == nil && got.Status == "working" && got.StatusMessage == "" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got, err = alice.getTask(task.TaskID)
	}
	if err != nil || got.Status != "working" || got.StatusMessage != "warming up" {
		t.Errorf("alice's task after mallory's attempts: %+v, %v; want working, with the tool's progress as its status message", got, err)
	}
	close(tt.release)
	res, err = alice.call("tasks/result", map[string]any{"taskId": task.TaskID})
	if err != nil || !strings.Contains(string(res), "slow done") {
		t.Errorf("tasks/result: %s, %v", res, err)
	}
}

func TestTaskBounds(t *testing.T) {
	tt := newTaskTools(t)
	srv := mcpserver.New(tt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxSessionTasks: 2, MaxTasks: 3, MaxTTL: time.Minute, MaxResultBytes: 1000}})
	a, _ := connectRaw(t, srv)
	b, _ := connectRaw(t, srv)
	first := a.startTask("slow", 1e12)
	if *first.TTL != time.Minute.Milliseconds() {
		t.Errorf("ttl asked 1e12 ms: got %d, want MaxTTL", *first.TTL)
	}
	a.startTask("slow", 1000)
	// A session at its cap is refused; another session is not, up to the
	// server's cap.
	if _, err := a.call("tools/call", map[string]any{"name": "slow", "task": map[string]any{}}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a third task in a session capped at 2: %v, want refused", err)
	}
	b.startTask("slow", 1000)
	if _, err := b.call("tools/call", map[string]any{"name": "slow", "task": map[string]any{}}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a fourth task on a server capped at 3: %v, want refused", err)
	}
	close(tt.release)
	// A result over MaxResultBytes is not held: an error result says so.
	c, _ := connectRaw(t, mcpserver.New(tt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxResultBytes: 1000}}))
	task := c.startTask("big", 1000)
	res, err := c.call("tasks/result", map[string]any{"taskId": task.TaskID})
	if err != nil || len(res) > 1000 || !strings.Contains(string(res), "over the limit of 1000 bytes") {
		t.Errorf("tasks/result of a result over the bound: %.200s, %v", res, err)
	}
	if got, _ := c.getTask(task.TaskID); got.Status != "failed" {
		t.Errorf("task whose result was over the bound: status %q, want failed", got.Status)
	}
}

// A task is forgotten once its ttl has passed, and its call cancelled if
// it still runs; its slot is then free again.
func TestTaskExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tt := newTaskTools(t)
		srv := mcpserver.New(tt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxSessionTasks: 1}})
		c, _ := connectRaw(t, srv)
		task := c.startTask("slow", 5000)
		<-tt.started
		time.Sleep(4 * time.Second)
		if got, err := c.getTask(task.TaskID); err != nil || got.Status != "working" {
			t.Fatalf("tasks/get within the ttl: %+v, %v", got, err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		select {
		case err := <-tt.ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the expired task's handler ended with %v", err)
			}
		default:
			t.Error("the expired task's handler is still running")
		}
		if _, err := c.getTask(task.TaskID); codeOf(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get past the ttl: %v, want task not found", err)
		}
		again := c.startTask("quick", 5000) // the slot is free again
		if res, err := c.call("tasks/result", map[string]any{"taskId": again.TaskID}); err != nil || !strings.Contains(string(res), "quick done") {
			t.Errorf("a task after the expiry: %s, %v", res, err)
		}
	})
}

// A cancelled task holds its slot until its ttl has passed, a second at
// least, whatever the client asks: a client that creates and cancels tasks
// in a loop gets no more than MaxSessionTasks a second.
func TestTaskCreateCancelLoopBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		type none struct{}
		stubborn := tool.New("stubborn", "Ignore cancellation.", func(ctx context.Context, _ none) (string, error) {
			<-release
			return "finally", nil
		}, tool.WithTaskSupport(tool.TaskRequired))
		srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxSessionTasks: 1}}, stubborn)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := connectRaw(t, srv)
		defer close(release)
		task := c.startTask("stubborn", 0)
		if *task.TTL != 1000 {
			t.Errorf("ttl asked 0: got %d ms, want the floor of 1000", *task.TTL)
		}
		if _, err := c.call("tasks/cancel", map[string]any{"taskId": task.TaskID}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.call("tools/call", map[string]any{"name": "stubborn", "task": map[string]any{"ttl": 0}}); err == nil || !strings.Contains(err.Error(), "limit") {
			t.Errorf("a task right after cancelling one, at the cap: %v, want refused", err)
		}
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if _, err := c.getTask(task.TaskID); codeOf(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get past the ttl: %v, want task not found", err)
		}
		c.startTask("stubborn", 0) // the slot is free again
	})
}

// The results the server holds are bounded over all sessions, not only
// one at a time: sessions that each hold results up to their cap cannot
// make the server hold MaxTasks times MaxResultBytes. A result past the
// bound is not held (an error result says so), and held bytes are given
// back when a task expires.
func TestTaskHeldResultBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tt := newTaskTools(t) // big answers 10 000 bytes and some JSON
		srv := mcpserver.New(tt.reg, &mcpserver.Options{Tasks: mcpserver.TaskOptions{MaxResultBytes: 20_000, MaxHeldResultBytes: 25_000}})
		a, _ := connectRaw(t, srv)
		b, _ := connectRaw(t, srv)
		result := func(c *rawClient, id string) string {
			res, err := c.call("tasks/result", map[string]any{"taskId": id})
			if err != nil {
				t.Fatalf("tasks/result: %v", err)
			}
			return string(res)
		}
		first := a.startTask("big", 1000)
		if res := result(a, first.TaskID); !strings.Contains(res, "xxxx") {
			t.Fatalf("the first big result: %.200s, want it held", res)
		}
		second := b.startTask("big", 1000)
		if res := result(b, second.TaskID); !strings.Contains(res, "xxxx") {
			t.Fatalf("the second big result: %.200s, want it held", res)
		}
		third := b.startTask("big", 5000)
		if res := result(b, third.TaskID); strings.Contains(res, "xxxx") || !strings.Contains(res, "25000 bytes") {
			t.Errorf("a third big result past the server's bound: %.200s, want an error result naming the bound", res)
		}
		if got, _ := b.getTask(third.TaskID); got.Status != "failed" {
			t.Errorf("the task whose result was past the bound: status %q, want failed", got.Status)
		}
		time.Sleep(1500 * time.Millisecond) // the first two expire
		synctest.Wait()
		again := a.startTask("big", 1000)
		if res := result(a, again.TaskID); !strings.Contains(res, "xxxx") {
			t.Errorf("a big result once the others expired: %.200s, want it held", res)
		}
	})
}
