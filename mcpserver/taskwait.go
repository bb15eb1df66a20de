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
// asked for a task whatever the call, and decides by time for a
// TaskOptional one: a task costs the client a tasks/get at least, after
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
// a task when it goes on past that, or asks its client (Elicit, Sample)
// before. It becomes one once at most, and never once it has returned or
// asked its client in its result (tool.Ask).
type pendingCall struct {
	task atomic.Pointer[task] // the task it became; nil while it is none

	mu       sync.Mutex
	plain    bool // it is answered plainly, whatever it takes: it asked in its result, or no task could be made
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
// and then never will be.
func (p *pendingCall) become() *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.task.Load(); t != nil {
		return t
	}
	if p.plain || p.returned {
		return nil
	}
	t, created, release, err := p.newTask()
	if err != nil {
		p.plain = true // as the tool allows
		return nil
	}
	p.created, p.release = created, release
	p.task.Store(t)
	close(p.made)
	return t
}

// pin is called by a call that asks its client in its result (tool.Ask:
// its handler has returned, and runs again with the answer): it returns
// the task the call has become, or nil, and then the call is answered
// plainly, never as a task.
func (p *pendingCall) pin() *task {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.task.Load(); t != nil {
		return t
	}
	p.plain = true
	return nil
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

// callOrTask serves a call of a tool that allows a task, from a client
// that declared the tasks extension: it runs the call once, and answers
// with its result if it ends within TaskOptions.ResultWait; otherwise, or
// as soon as the call asks its client (Elicit, Sample), it makes a task
// of it, durably, answers with the task, and the call goes on as the
// task's, its outcome written to the task when it returns. A call for
// which no task can be made (the bounds on tasks, a store that fails) is
// answered plainly, as the tool allows, and so is one that asks in its
// result (tool.Ask). While the call is not a task, the request's end
// ends it.
func (s *Server) callOrTask(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest, owner string) (mcp.Result, error) {
	r := s.tasks
	p := &pendingCall{ended: make(chan struct{}), made: make(chan struct{})}
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
		if werr, ok := errors.AsType[*jsonrpc.Error](err); ok && werr.Code == jsonrpc.CodeInternalError && ctx.Err() == nil {
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
