package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/taskstore"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Whether a call becomes a task is the server's to decide, call by call.
// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663),
// Capability Negotiation:
//
//	A server that has negotiated this extension MAY return
//	`CreateTaskResult` in lieu of a standard result (e.g.
//	`CallToolResult`) in response to any supported request at its own
//	discretion and on a per-request basis. The server is the sole
//	decider; clients do not signal task preference on the request
//	itself. The client declaring the extension capability does not
//	suggest that it requires a `CreateTaskResult` in response to that
//	request.
//
//	A client that has negotiated this extension MUST be prepared to
//	handle either `CallToolResult` or `CreateTaskResult` in response to
//	any supported request it issues.
//
// The extension has no taskSupport of its own (SEP-1686's
// execution.taskSupport is what it replaces), so a plain result is
// allowed for any tool; hands keeps TaskRequired for a tool whose author
// asked for a task whatever the call (once the call's round trips, if
// any, are over), and decides by time for a TaskOptional one: a task costs the client a tasks/get at least, after
// a wait of pollIntervalMs, which "Clients SHOULD respect" (Task
// Polling), so a call that ends soon is answered sooner plainly. Task
// Creation bounds the other way:
//
//	A server MUST NOT return `CreateTaskResult` until the task is durably
//	created — that is, until a `tasks/get` for the returned `taskId`
//	would resolve.
//
// callOrTask does both.

// A pendingCall is a call that may become a task: it runs while the
// server waits (TaskOptions.ResultWait) to answer it plainly, and becomes
// a task when it goes on past that, or when its handler asks for one
// (BecomeTask). It becomes one once at most, and never once it has asked
// its client in its result (Elicit, Sample, tool.Ask: a multi round-trip
// request, which the tasks extension has resolved before the task is
// created). A call of a tool that requires a task becomes one when it
// returns within the wait, too, unless it asked in its result.
type pendingCall struct {
	task atomic.Pointer[task] // the task it became; nil while it is none

	mu       sync.Mutex
	required bool  // the tool requires a task: one is made, or the call fails
	plain    bool  // it is answered plainly, whatever it takes: it asked in its result, or no task could be made for a tool that allows one
	failed   error // why no task could be made, for a tool that requires one
	returned bool
	res      mcp.Result
	err      error
	ended    chan struct{} // closed once the call returned
	made     chan struct{} // closed once it is a task
	created  *taskstore.Task
	release  func() // gives back what the task holds here, once its outcome is written
	// newTask makes the task, durably (taskRunner.newTask).
	newTask func() (*task, *taskstore.Task, func(), error)
}

// pendingKey is the context key of a pendingCall's call, whose value is
// the pendingCall.
type pendingKey struct{}

// pendingOf returns the pendingCall whose call ctx serves; nil for
// another call.
func pendingOf(ctx context.Context) *pendingCall {
	p, _ := ctx.Value(pendingKey{}).(*pendingCall)
	return p
}

// become makes the call a task, durably, unless it is one already or may
// not become one, and returns the task; nil when the call is not one,
// and then never will be, or, for a tool that requires a task, when none
// could be made (failed says why).
func (p *pendingCall) become() *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.task.Load(); t != nil {
		return t
	}
	if p.plain || p.returned || p.failed != nil {
		return nil
	}
	return p.make()
}

// make makes the task, with p.mu held.
func (p *pendingCall) make() *task {
	t, created, release, err := p.newTask()
	if err != nil {
		if p.required {
			p.failed = err
		} else {
			p.plain = true // as the tool allows
		}
		return nil
	}
	p.created, p.release = created, release
	p.task.Store(t)
	close(p.made)
	return t
}

// pin is called by a call that asks its client: it returns the task the
// call has become, through which it asks, or nil, and then the call asks
// in its result and is answered plainly, never as a task.
func (p *pendingCall) pin() *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.task.Load(); t != nil {
		return t
	}
	p.plain = true
	return nil
}

// BecomeTask makes the call ctx serves a task now, if it may become one
// and is not one yet: from protocol version 2026-07-28, a call of a tool
// that allows or requires a task (tool.WithTaskSupport), from a client
// that declared the tasks extension, still within TaskOptions.ResultWait.
// The client is answered with the task at once, and the handler carries
// on as the task's: what it asks its client from then on (Elicit, Sample,
// tool.Ask) goes through the task (inputRequests in tasks/get, answered
// with tasks/update), and the handler waits for the answer and runs once,
// where a question asked before the call is a task goes back in the
// call's result and the handler runs again with the answer. So a handler
// that asks only once it has begun its work, or that is not to run twice,
// calls BecomeTask first. It reports whether the call is a task's; false
// for any other call, for one that asked in its result already, and for
// one for which no task could be made (the bounds of TaskOptions, a store
// that fails), which goes on as it was.
func BecomeTask(ctx context.Context) bool {
	if _, ok := ctx.Value(taskKey{}).(*task); ok {
		return true
	}
	p := pendingOf(ctx)
	return p != nil && p.become() != nil
}

// A handoff is the context of a pendingCall's call: the request's values
// while it may be answered plainly, so that its progress and requests go
// with the request's, as a plain call's do; a task's (unrelated) once it
// is a task. It is never cancelled by the request itself: callOrTask
// cancels the call when the request ends before the call is a task.
type handoff struct {
	context.Context
	p *pendingCall
}

func (h handoff) Value(key any) any {
	if _, ok := key.(pendingKey); ok {
		return h.p
	}
	if h.p.task.Load() != nil {
		return unrelated{h.Context}.Value(key)
	}
	return h.Context.Value(key)
}

// callOrTask serves a call of a tool that allows or requires a task, from
// a client that declared the tasks extension: it runs the call once, and
// answers with its result if it ends within TaskOptions.ResultWait;
// otherwise, or as soon as the handler asks for it (BecomeTask), it makes
// a task of it, durably, answers with the task, and the call goes on as
// the task's, its outcome written to the task when it returns. A call
// that asks its client before it is a task asks in its result, and is
// answered plainly: the multi round-trip requests are resolved before any
// task is made (the extension's Task Creation). A call of a tool that
// requires a task and ends within the wait, not asking, is made a task
// then, already ended. A call for which no task can be made (the bounds on
// tasks, a store that fails) is answered plainly, as a tool that allows a
// task allows, or fails, for one that requires it. While the call is not
// a task, the request's end ends it.
func (s *Server) callOrTask(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest, owner string, required bool) (mcp.Result, error) {
	r := s.tasks
	p := &pendingCall{required: required, ended: make(chan struct{}), made: make(chan struct{})}
	base := ctx
	var hdone <-chan struct{}
	if hctx, ok := ctx.Value(httpRequestKey{}).(context.Context); ok {
		// A stateless HTTP request: the call stays one of stateless HTTP,
		// but the end of the request does not end it by itself (see
		// Server.handler): the wait below does, until it is a task.
		hdone = hctx.Done()
		base = context.WithValue(ctx, httpRequestKey{}, context.WithoutCancel(hctx))
	}
	run, cancel := context.WithCancel(handoff{context.WithoutCancel(base), p})
	p.newTask = func() (*task, *taskstore.Task, func(), error) {
		t, created, release, err := r.newTask(ctx, call.Params.Name, call.Session, owner, true, r.opts.TTL, cancel)
		if werr, ok := errors.AsType[*jsonrpc.Error](err); ok && werr.Code == jsonrpc.CodeInternalError && ctx.Err() == nil && !required {
			// A task's bounds reached is no news; a store that fails is.
			s.logger.WarnContext(ctx, "mcpserver: a call that may run as a task is answered plainly: the task store failed", "tool", call.Params.Name, "err", err)
		}
		return t, created, release, err
	}
	go func() {
		res, err := next(run, "tools/call", call)
		p.mu.Lock()
		p.returned, p.res, p.err = true, res, err
		t, release := p.task.Load(), p.release
		p.mu.Unlock()
		close(p.ended)
		if t == nil {
			cancel()
			return
		}
		defer release()
		r.finish(t, call.Params.Name, res, err)
	}()

	// giveUp ends the call of a request that ended: nobody is left to
	// answer, with its result or with a task.
	giveUp := func() (mcp.Result, error) {
		p.mu.Lock()
		p.plain = true
		p.mu.Unlock()
		cancel()
		return nil, cmp.Or(ctx.Err(), context.Canceled)
	}
	wait := time.NewTimer(r.opts.ResultWait)
	defer wait.Stop()
	select {
	case <-p.ended:
	case <-p.made:
	case <-wait.C:
		p.become()
	case <-ctx.Done():
		return giveUp()
	case <-hdone:
		return giveUp()
	}
	if t := p.task.Load(); t != nil {
		return r.created(t, p.created), nil
	}
	if required {
		p.mu.Lock()
		t, failed, madeHere := p.task.Load(), p.failed, false
		if t == nil && failed == nil && p.returned && !p.plain {
			// The call ended within the wait, asking nothing in its
			// result: the tool requires a task, made now, ended at once.
			t, failed, madeHere = p.make(), p.failed, true
		}
		if failed != nil {
			p.plain = true
		}
		res, err := p.res, p.err
		p.mu.Unlock()
		switch {
		case failed != nil:
			cancel()
			return nil, failed
		case madeHere && t != nil:
			r.finish(t, call.Params.Name, res, err)
			p.release()
			fallthrough
		case t != nil:
			return r.created(t, p.created), nil
		}
	}
	// No task, and there will be none: the call's result is the
	// request's.
	select {
	case <-p.ended:
		return p.res, p.err
	case <-ctx.Done():
	case <-hdone:
	}
	return giveUp()
}
