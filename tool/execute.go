package tool

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"runtime/debug"
)

// A callRunner is the part of a call that differs between kinds of tool:
// from raw arguments to the result (Content, Structured, Output and Repairs
// set), or an error and the repairs made before it.
type callRunner interface {
	runArgs(ctx context.Context, call Call) (Result, error)
}

// execute is the boundary path of every call of every kind of tool, on the
// goroutine that calls it: the handler's context, the arguments, the
// handler, and every failure turned into an error result. Progress goes to
// s; a nil s drops it.
func (c *core) execute(ctx context.Context, call Call, s *sink, r callRunner) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = c.errorResult(call, &PanicError{Tool: c.name, CallID: call.ID, Value: v, Stack: debug.Stack(), Err: ErrPanicked}, nil)
		}
	}()
	if ctx.Err() != nil {
		return c.errorResult(call, c.ended(ctx, call.ID), nil)
	}
	res, err := r.runArgs(&callContext{Context: ctx, call: call, sink: s}, call)
	if len(res.Repairs) > 0 {
		c.logRepairs(ctx, res.Repairs)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = c.ended(ctx, call.ID)
		}
		res = c.errorResult(call, err, res.Repairs)
	} else {
		res.CallID, res.Tool = call.ID, c.name
	}
	res.Version = c.version
	if c.deprecation != nil || len(c.fields) > 0 {
		c.noteDeprecated(ctx, call.Args, &res)
	}
	return res
}

// errorResult is ErrorResult under the tool's own name, with the repairs
// made before the failure.
func (c *core) errorResult(call Call, err error, repairs []Repair) Result {
	call.Name = c.name
	res := ErrorResult(call, err)
	res.Repairs = repairs
	res.Version = c.version
	return res
}

// withTimeout returns ctx bounded by the tool's timeout, whose cause is a
// *TimeoutError of this call, so that ended can tell the tool's deadline
// from the caller's.
func (c *core) withTimeout(ctx context.Context, callID string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.timeout, &TimeoutError{Tool: c.name, CallID: callID, Timeout: c.timeout, Err: ErrTimedOut})
}

// ended returns the error of a call whose context has ended: a
// *TimeoutError when the tool's timeout ended it, else a *CanceledError.
func (c *core) ended(ctx context.Context, callID string) error {
	cause := context.Cause(ctx)
	if terr, ok := cause.(*TimeoutError); ok {
		if terr.Tool == c.name && terr.CallID == callID && terr.Timeout == c.timeout {
			return terr
		}
		cause = context.DeadlineExceeded // an outer call's timeout: to this call, its caller's deadline
	}
	return &CanceledError{Tool: c.name, CallID: callID, Cause: cause, Err: ErrCanceled}
}

// run is Run for one tool. When ctx cannot end and the tool has no
// timeout, or its handler is bound by its context
// (WithContextBoundHandler), the handler runs on the calling goroutine;
// otherwise on its own, and the call ends when ctx ends or the timeout
// passes, whatever the handler does.
func (c *core) run(ctx context.Context, call Call, r callRunner) Result {
	if c.timeout <= 0 {
		if ctx.Done() == nil || c.bound {
			return c.execute(ctx, call, nil, r)
		}
	} else {
		var cancel context.CancelFunc
		ctx, cancel = c.withTimeout(ctx, call.ID)
		defer cancel()
		if c.bound {
			return c.execute(ctx, call, nil, r)
		}
	}
	done := make(chan Result, 1) // the handler never waits to hand its result over
	go func() { done <- c.execute(ctx, call, nil, r) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		select {
		case res := <-done:
			return res
		default:
			return c.errorResult(call, c.ended(ctx, call.ID), nil)
		}
	}
}

// stream is Stream for one tool. The handler runs on a goroutine of its
// own, and every event — progress reported from any goroutine, then the
// result — is delivered on the goroutine that ranges over the stream, so the
// consumer's loop body never runs elsewhere and a panic in it propagates
// unchanged. The call ends when the handler returns, when the tool's timeout
// passes or when ctx ends, whichever comes first; if the consumer stops
// early, the handler's context is cancelled and no result is yielded. In
// every case the handler's goroutine ends when the handler returns.
func (c *core) stream(ctx context.Context, call Call, r callRunner) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		var ctx2 context.Context
		var cancel context.CancelFunc
		if c.timeout > 0 {
			ctx2, cancel = c.withTimeout(ctx, call.ID)
		} else {
			ctx2, cancel = context.WithCancel(ctx)
		}
		ctx := ctx2    // the iterator's own: ranging it again starts from the caller's
		defer cancel() // from now on, reports and the result are dropped
		s := &sink{events: make(chan Event), done: ctx.Done()}
		go func() {
			res := c.execute(ctx, call, s, r)
			s.send(Event{Result: &res})
		}()
		for {
			select {
			case ev := <-s.events:
				if !yield(ev) || ev.Result != nil {
					return
				}
			case <-s.done:
				select {
				case ev := <-s.events: // handed over at the last moment
					if ev.Result != nil {
						yield(ev)
						return
					}
				default:
				}
				res := c.errorResult(call, c.ended(ctx, call.ID), nil)
				yield(Event{Result: &res})
				return
			}
		}
	}
}

// logRepairs logs the repairs made to a call's arguments, at debug level:
// they are recorded on the result, and a program that wants to count them
// reads them there.
func (c *core) logRepairs(ctx context.Context, repairs []Repair) {
	l := slog.Default()
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	for _, r := range repairs {
		l.DebugContext(ctx, "tool: repaired arguments", "tool", c.name, "repair", string(r.Kind), "path", r.Path)
	}
}

// callDirect runs f, the body of a direct call, under the tool's timeout:
// without one, on the calling goroutine; with one, on its own, returning a
// *TimeoutError at the deadline whatever f does. f recovers its own panics.
func callDirect[T any](c *core, ctx context.Context, callID string, f func(context.Context) (T, error)) (T, error) {
	if c.timeout <= 0 {
		return f(ctx)
	}
	ctx, cancel := c.withTimeout(ctx, callID)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := f(ctx)
		done <- outcome{v, err}
	}()
	select {
	case o := <-done:
		return o.v, o.err
	case <-ctx.Done():
		select {
		case o := <-done:
			return o.v, o.err
		default:
			var zero T
			return zero, c.ended(ctx, callID)
		}
	}
}
