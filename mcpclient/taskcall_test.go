package mcpclient

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestTaskCallWaitsForCreation: a request for a task the client does not
// know yet waits while a task creation is under way, and names the call
// once the creation's answer gives that task; with no creation under way,
// or once the call is over, the ID names no call at once.
func TestTaskCallWaitsForCreation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &Client{progress: map[string]*forwarder{}, tasks: map[string]string{}, created: make(chan struct{})}
		call := &forwarder{ctx: t.Context()}
		c.progress["hands-1"] = call
		if f := c.taskCall(t.Context(), "task-1"); f != nil {
			t.Fatalf("an unknown task with no creation under way named a call")
		}
		c.creatingTask()
		got := make(chan *forwarder, 1)
		go func() { got <- c.taskCall(t.Context(), "task-1") }()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("the request did not wait for the creation under way")
		default:
		}
		forget := c.taskCreated("task-1", "hands-1")
		if f := <-got; f != call {
			t.Errorf("the request waiting for its task got %p, want the call %p", f, call)
		}
		forget()
		if f := c.taskCall(t.Context(), "task-1"); f != nil {
			t.Errorf("the task of a call that is over still names it")
		}
		// A creation that gives another task leaves the ID unknown.
		c.creatingTask()
		go func() { got <- c.taskCall(t.Context(), "task-1") }()
		synctest.Wait()
		defer c.taskCreated("task-2", "hands-1")()
		if f := <-got; f != nil {
			t.Errorf("a request for a task no creation gave named a call")
		}
		// The request's end ends its wait.
		c.creatingTask()
		ctx, cancel := context.WithCancel(t.Context())
		go func() { got <- c.taskCall(ctx, "task-3") }()
		synctest.Wait()
		cancel()
		if f := <-got; f != nil {
			t.Errorf("a request that ended named a call")
		}
	})
}
