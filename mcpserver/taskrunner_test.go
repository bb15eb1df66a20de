package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
)

// A workerRunner is a TaskRunner whose worker is another server of the
// same registry, store and key, which runs each call it is handed with
// RunTask, in a goroutine, unless manual: then the test runs it.
type workerRunner struct {
	worker    *mcpserver.Server
	manual    bool
	calls     chan mcpserver.TaskCall
	ran       chan error // what each RunTask returned
	cancelled chan string
}

func newWorkerRunner(manual bool) *workerRunner {
	return &workerRunner{manual: manual, calls: make(chan mcpserver.TaskCall, 10), ran: make(chan error, 10), cancelled: make(chan string, 10)}
}

func (w *workerRunner) Start(_ context.Context, call mcpserver.TaskCall) error {
	w.calls <- call
	if !w.manual {
		go func() { w.ran <- w.worker.RunTask(context.Background(), call) }()
	}
	return nil
}

func (w *workerRunner) Cancel(_ context.Context, id string) error {
	w.cancelled <- id
	return nil
}

// runnerFleet returns two replicas whose tasks' calls go to a
// workerRunner, and the runner, whose worker shares their store and key.
func runnerFleet(t *testing.T, reg *tool.Registry, manual bool) (a, b extClient, w *workerRunner) {
	t.Helper()
	w = newWorkerRunner(manual)
	opts := mcpserver.TaskOptions{Store: taskstore.NewMemory(nil), Runner: w, Lease: 300 * time.Millisecond, PollInterval: time.Millisecond}
	urls := replicas(t, reg, opts, 2)
	key := make([]byte, mcpserver.StateKeyBytes)
	key[0] = 1 // replicas'
	opts.Runner = nil
	w.worker = mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts})
	a = extClient{t: t, url: urls[0], user: "ada", declared: true}
	b = a
	b.url = urls[1]
	return a, b, w
}

// resultText returns the text of a task's CallToolResult, and whether it
// is an error result.
func resultText(t *testing.T, result json.RawMessage) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("result %s: %v, want one content", result, err)
	}
	return r.Content[0].Text, r.IsError
}

// TestTaskRunner: with TaskOptions.Runner, the call of an extension's
// task is handed to the runner, with the task's ID, owner, tool,
// arguments, caller and lease, and runs where the runner runs it
// (Server.RunTask on a worker that shares the store): its progress and
// its result are read through any replica, a tool that allows a task
// becomes one at once, tasks/cancel reaches the runner and stops the
// call, and a call that asks its client is told it cannot, in words a
// model can act on.
func TestTaskRunner(t *testing.T) {
	tt := askingTools(t)
	a, b, w := runnerFleet(t, tt.reg, false)

	// Cancelled through the other replica.
	task := a.start("slow")
	call := <-w.calls
	if call.Tool != "slow" || call.Owner != "user ada" || call.Token == nil || call.Token.UserID != "ada" || call.ID == "" || call.TTL <= 0 || call.Lease != 300*time.Millisecond {
		t.Errorf("the runner was handed %+v, want slow's call, of ada, with her token, a TTL and the lease", call)
	}
	<-tt.started
	if r := b.send("tasks/cancel", map[string]any{"taskId": task.TaskID}); r.Error != nil || !emptyAck(r.Result) {
		t.Fatalf("tasks/cancel: %s %+v", r.Result, r.Error)
	}
	if id := <-w.cancelled; id != call.ID {
		t.Errorf("the runner was asked to cancel %q, want %q", id, call.ID)
	}
	if err := <-tt.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call's context ended with %v, want context.Canceled", err)
	}
	if err := <-w.ran; !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("RunTask of a cancelled task returned %v, want taskstore.ErrEnded", err)
	}
	if got, _ := a.get(task.TaskID); got.Status != "cancelled" {
		t.Errorf("after tasks/cancel: %+v, want cancelled", got)
	}

	// A tool that allows a task, and would be answered plainly.
	r := a.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	var quick extTask
	if r.Error != nil || json.Unmarshal(r.Result, &quick) != nil || quick.ResultType != "task" {
		t.Fatalf("tools/call quick: %s %+v, want a task, handed to the runner", r.Result, r.Error)
	}
	<-w.calls
	if err := <-w.ran; err != nil {
		t.Errorf("RunTask of quick: %v", err)
	}
	done := b.await(quick.TaskID, "completed")
	if text, isError := resultText(t, done.Result); text != "quick done" || isError {
		t.Errorf("quick's result: %s, want quick done", done.Result)
	}

	// A call that asks its client.
	greet := a.start("greet")
	<-w.calls
	if err := <-w.ran; err != nil {
		t.Errorf("RunTask of greet: %v", err)
	}
	done = b.await(greet.TaskID, "completed")
	text, isError := resultText(t, done.Result)
	if !isError || !strings.Contains(text, "elicitation") || !strings.Contains(text, "give the tool everything it needs in its arguments") {
		t.Errorf("greet's result: %s, want an error result that says elicitation cannot reach the client, and what to do", done.Result)
	}

	// Progress, then the result.
	task = a.start("slow")
	<-w.calls
	<-tt.started
	for got := b.await(task.TaskID, "working"); got.StatusMessage != "warming up"; got = b.await(task.TaskID, "working") {
		time.Sleep(time.Millisecond) // a client's poll; no duration is asserted
	}
	close(tt.release)
	if err := <-w.ran; err != nil {
		t.Errorf("RunTask of slow: %v", err)
	}
	done = b.await(task.TaskID, "completed")
	if text, isError := resultText(t, done.Result); text != "slow done" || isError {
		t.Errorf("slow's result: %s, want slow done", done.Result)
	}
}

// TestRunTaskAgain: a RunTask whose context ends before its call (its
// worker stopping) writes no outcome, and says the call may run again:
// the task is still working, and another RunTask takes its lease over and
// completes it. RunTask of a task that has ended says so.
func TestRunTaskAgain(t *testing.T) {
	tt := newTaskTools(t)
	a, b, w := runnerFleet(t, tt.reg, true)
	task := a.start("slow")
	call := <-w.calls

	ctx, stop := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { first <- w.worker.RunTask(ctx, call) }()
	<-tt.started
	stop()
	err := <-first
	if err == nil || errors.Is(err, taskstore.ErrEnded) || errors.Is(err, taskstore.ErrLeaseLost) || errors.Is(err, taskstore.ErrTaskNotFound) {
		t.Fatalf("RunTask stopped by its context returned %v, want an error that lets the call run again", err)
	}
	if got, _ := b.get(task.TaskID); got.Status != "working" {
		t.Fatalf("after the first RunTask stopped: %+v, want working", got)
	}

	second := make(chan error, 1)
	go func() { second <- w.worker.RunTask(context.Background(), call) }()
	<-tt.started
	close(tt.release)
	if err := <-second; err != nil {
		t.Fatalf("the second RunTask: %v", err)
	}
	done := b.await(task.TaskID, "completed")
	if text, isError := resultText(t, done.Result); text != "slow done" || isError {
		t.Errorf("slow's result: %s, want slow done", done.Result)
	}
	if err := w.worker.RunTask(context.Background(), call); !errors.Is(err, taskstore.ErrEnded) {
		t.Errorf("RunTask of a completed task returned %v, want taskstore.ErrEnded", err)
	}
}
