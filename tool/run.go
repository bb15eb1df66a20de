package tool

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"sync"
)

// A Handler runs one call: it yields zero or more progress events and then
// one result. Every tool is a Handler, and so is a Registry; middleware wraps
// one.
type Handler interface {
	// Stream runs call and returns a single-use iterator over its events.
	Stream(ctx context.Context, call Call) iter.Seq[Event]
}

// HandlerFunc lets an ordinary function serve as a Handler.
type HandlerFunc func(ctx context.Context, call Call) iter.Seq[Event]

// Stream calls f.
func (f HandlerFunc) Stream(ctx context.Context, call Call) iter.Seq[Event] { return f(ctx, call) }

// A runner is a Handler that can also run a call without streaming it,
// dropping progress, which needs no goroutine (tools, and a Registry without
// middleware).
type runner interface {
	run(ctx context.Context, call Call) Result
}

// A Forwarder is a tool that passes each call, as it is, to a tool of this
// package (a *Tool or a *RawTool) that may change from call to call, as
// the definition of a tool served elsewhere does. Forward returns the tool
// a call is passed to now, or nil when the forwarder answers it itself
// (from its Stream). Run, Drain without a progress function and a Registry
// run such a call as the forwarded tool's own: with no goroutine for the
// forwarder's stream and none to wait for it, since the tool keeps to its
// context and timeout itself. A forwarded tool has the forwarder's name.
type Forwarder interface {
	Interface
	Forward() Interface
}

// runnerOf returns h as a runner: h itself, or the tool of this package it
// forwards the call to now.
func runnerOf(h Handler) (runner, bool) {
	if r, ok := h.(runner); ok {
		return r, true
	}
	if f, ok := h.(Forwarder); ok {
		r, ok := f.Forward().(runner)
		return r, ok
	}
	return nil, false
}

// Run runs call through h — a tool, a Registry, or middleware around
// either — and returns its one result; progress events are dropped. It is
// Drain without a progress function.
func Run(ctx context.Context, h Handler, call Call) Result {
	return Drain(ctx, h, call, nil)
}

// Drain runs call through h — a tool, a Registry, or middleware around
// either — and returns its one result. It is the one way the module runs a
// call: its MCP server, its agent loop and its command line all call it.
//
// When progress is not nil, each progress event is passed to it, in order,
// on the goroutine that called Drain, before the result is returned; when
// progress returns false, the call is cancelled and its result is a
// *CanceledError whose cause is context.Canceled. A panic in progress is the
// caller's own and propagates unchanged.
//
// Every failure is an error result (IsError set, Err the Go error): a panic
// in h's stream before its result is a *PanicError result, and a stream
// that ends without a result an ErrNoResult result. Drain answers when ctx
// ends, whatever h does: the result then is a *CanceledError (or the
// result h had already yielded), and a handler still running is abandoned
// with its context done, as a tool's timeout abandons it. Only when ctx can
// never end (ctx.Done() returns nil, as for context.Background) does the
// call run on the calling goroutine, with no goroutine started — unless the
// tool has a timeout.
//
// What h does after it yields its result (middleware that audits or
// records) is waited for: Drain returns once h's stream has returned, or
// when ctx ends, whichever comes first. The yield h's stream is ranged with
// returns true for the result, so middleware written the usual way — `if
// !yield(ev) { return }` — goes on past it; it returns false for any event
// after the result, which is dropped. Work that should outlive the call
// belongs on a goroutine of its own.
func Drain(ctx context.Context, h Handler, call Call, progress func(v any) bool) Result {
	if progress == nil {
		if r, ok := runnerOf(h); ok {
			return r.run(ctx, call)
		}
	}
	return drain(ctx, h, call, progress)
}

// drain is Drain for a handler's stream: on the calling goroutine when ctx
// cannot end, and otherwise on a goroutine of its own, so that it answers
// when ctx ends.
func drain(ctx context.Context, h Handler, call Call, progress func(v any) bool) Result {
	if ctx.Done() == nil {
		return drainHere(ctx, h, call, progress, nil)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()                  // a handler still running when Drain returns is abandoned
	events := make(chan any)        // progress, handed over one at a time
	got := make(chan Result, 1)     // the result, as soon as the stream yields it
	finished := make(chan struct{}) // closed when the stream has returned
	var forward func(any) bool
	if progress != nil {
		forward = func(v any) bool {
			select {
			case events <- v:
				return true
			case <-ctx.Done():
				return false
			}
		}
	}
	go func() {
		defer close(finished)
		drainHere(ctx, h, call, forward, func(res Result) { got <- res })
	}()
	var res Result
	have := false
	waiting := got // nil once the result is in
	for {
		select {
		case v := <-events:
			if !progress(v) {
				cancel()
				return ErrorResult(call, &CanceledError{Tool: call.Name, CallID: call.ID, Cause: context.Canceled, Err: ErrCanceled})
			}
		case res = <-waiting:
			have, waiting = true, nil
		case <-finished:
			if !have {
				res = <-got
			}
			return res
		case <-ctx.Done():
			if !have {
				select {
				case res = <-got:
				default:
					return ErrorResult(call, canceled(ctx, call))
				}
			}
			return res
		}
	}
}

// canceled is the error of a call whose caller's context has ended: a
// *CanceledError whose cause is the context's, or context.DeadlineExceeded
// when that cause is the timeout of an outer call.
func canceled(ctx context.Context, call Call) error {
	cause := context.Cause(ctx)
	if _, ok := cause.(*TimeoutError); ok {
		cause = context.DeadlineExceeded
	}
	return &CanceledError{Tool: call.Name, CallID: call.ID, Cause: cause, Err: ErrCanceled}
}

// drainHere ranges over h's stream of call on the calling goroutine and
// returns its first result, a *PanicError result if h panics before it, or
// an ErrNoResult result; it passes progress events to progress (nil drops
// them), and the result to seen (if not nil) as soon as there is one,
// before the stream has returned. Its yield returns true for the result, so
// that middleware of the usual shape (`if !yield(ev) { return }`) goes on
// to what it does after the result, and false for any event after it.
func drainHere(ctx context.Context, h Handler, call Call, progress func(any) bool, seen func(Result)) (res Result) {
	done := false       // res is the call's result
	inProgress := false // a panic now is progress's, the caller's own
	defer func() {
		if inProgress {
			return // not recovered: the caller's panic goes on as it was
		}
		switch v := recover(); {
		case v == nil:
		case done: // after the result: the call is answered
			slog.Default().ErrorContext(ctx, "tool: a handler panicked after its result", "tool", call.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		default:
			res, done = ErrorResult(call, &PanicError{Tool: call.Name, CallID: call.ID, Value: v, Stack: debug.Stack(), Err: ErrPanicked}), true
		}
		if !done {
			res = ErrorResult(call, &NoResultError{Tool: call.Name, CallID: call.ID, Err: ErrNoResult})
		}
		if seen != nil {
			seen(res)
		}
	}()
	for ev := range h.Stream(ctx, call) {
		if done {
			break // an event after the result: h is told to stop
		}
		if ev.Result != nil {
			res, done = *ev.Result, true
			if seen != nil {
				seen(res)
				seen = nil
			}
			continue // h goes on to its end, and what it does after its result is waited for
		}
		if progress != nil {
			inProgress = true
			ok := progress(ev.Progress)
			inProgress = false
			if !ok {
				res, done = ErrorResult(call, &CanceledError{Tool: call.Name, CallID: call.ID, Cause: context.Canceled, Err: ErrCanceled}), true
				break
			}
		}
	}
	return res
}

// BatchOptions configure RunAll. A nil *BatchOptions runs the calls one
// after another and reports nothing.
//
// The functions, when set, are called on the goroutine that called
// RunAll, one at a time, whichever goroutine runs the call. When one
// returns false, RunAll stops: the calls under way are cancelled, no other
// call starts, and every call without a result gets a *CanceledError
// result whose cause is context.Canceled.
type BatchOptions struct {
	// Parallel is how many calls may run at once. At most 1 runs them one
	// after another, in order, each after the previous one has finished;
	// above 1, use it only for tools that are safe to run in any order.
	Parallel int
	// Started is told that call i starts to run.
	Started func(i int) bool
	// Progress receives each progress event of call i.
	Progress func(i int, v any) bool
	// Finished receives the result of call i once it has one.
	Finished func(i int, res Result) bool
}

// RunAll runs the calls of one turn through h, each as Drain runs it, and
// returns one result per call, in the order given. When ctx ends half-way,
// the calls not yet run still get a result each, which says they were
// cancelled.
func RunAll(ctx context.Context, h Handler, calls []Call, opts *BatchOptions) []Result {
	var o BatchOptions
	if opts != nil {
		o = *opts
	}
	results := make([]Result, len(calls))
	has := make([]bool, len(calls)) // results[i] is set
	if o.Parallel > 1 {
		runParallel(ctx, h, calls, &o, results, has)
	} else {
		runInOrder(ctx, h, calls, &o, results, has)
	}
	for i, ok := range has {
		if !ok {
			results[i] = ErrorResult(calls[i], &CanceledError{Tool: calls[i].Name, CallID: calls[i].ID, Cause: context.Canceled, Err: ErrCanceled})
		}
	}
	return results
}

// runInOrder is RunAll one call after another, on the calling goroutine
// (Drain starts one only to answer at ctx's end).
func runInOrder(ctx context.Context, h Handler, calls []Call, o *BatchOptions, results []Result, has []bool) {
	for i, call := range calls {
		if o.Started != nil && !o.Started(i) {
			return
		}
		var progress func(any) bool
		if o.Progress != nil {
			progress = func(v any) bool { return o.Progress(i, v) }
		}
		results[i], has[i] = Drain(ctx, h, call, progress), true
		if o.Finished != nil && !o.Finished(i, results[i]) {
			return
		}
	}
}

// A batchEvent is one report of a call run in parallel, on its way to the
// goroutine that called RunAll.
type batchEvent struct {
	i        int
	started  bool
	progress any
	result   *Result
}

// runParallel is RunAll with up to o.Parallel calls at once. Each call runs
// on a goroutine of its own and hands its reports over to this one, which
// frees the call's place once it has passed the result on: so no call
// starts after a report function has returned false. Every goroutine it
// starts has ended when it returns, which is soon after a report function
// returns false: the calls' context is then cancelled, and Drain answers
// once its context ends.
func runParallel(ctx context.Context, h Handler, calls []Call, o *BatchOptions, results []Result, has []bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan batchEvent)           // closed once every call's goroutine has ended
	halt := make(chan struct{})               // closed when a report function returns false
	places := make(chan struct{}, o.Parallel) // one per call under way
	send := func(ev batchEvent) bool {
		select {
		case events <- ev:
			return true
		case <-halt:
			return false
		}
	}
	go func() {
		var wg sync.WaitGroup
		defer func() {
			wg.Wait()
			close(events)
		}()
		for i, call := range calls {
			select {
			case places <- struct{}{}:
			case <-halt:
				return
			}
			select {
			case <-halt:
				return
			default:
			}
			wg.Go(func() {
				if o.Started != nil && !send(batchEvent{i: i, started: true}) {
					return
				}
				var progress func(any) bool
				if o.Progress != nil {
					progress = func(v any) bool { return send(batchEvent{i: i, progress: v}) }
				}
				res := Drain(ctx, h, call, progress)
				results[i], has[i] = res, true
				send(batchEvent{i: i, result: &res})
			})
		}
	}()
	halted := false
	for ev := range events {
		if halted {
			continue
		}
		ok := true
		switch {
		case ev.started:
			ok = o.Started(ev.i)
		case ev.result != nil:
			if o.Finished != nil {
				ok = o.Finished(ev.i, *ev.result)
			}
			if ok {
				<-places
			}
		default:
			ok = o.Progress(ev.i, ev.progress)
		}
		if !ok {
			halted = true
			close(halt)
			cancel()
		}
	}
}
