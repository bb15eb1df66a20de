package tool

import (
	"context"
	"iter"
)

// Middleware wraps a Handler, in the style of net/http middleware. It sees
// every call the registry runs, unknown and disabled ones included, and can
// inspect or rewrite the call (its arguments), answer it without calling
// next (deny, cache, dry-run; see ErrorResult), pass progress events on or
// filter them, and inspect or replace the result. Registry.Use(a, b) runs a
// outermost.
type Middleware func(next Handler) Handler

// BeforeCall returns middleware that calls f before each call. f may rewrite
// the call through its pointer; if f returns an error, the call is not run
// and its result is a *DeniedError with that error as the reason, which the
// model reads.
func BeforeCall(f func(ctx context.Context, call *Call) error) Middleware {
	return func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call Call) iter.Seq[Event] {
			if err := f(ctx, &call); err != nil {
				return single(ErrorResult(call, &DeniedError{Tool: call.Name, CallID: call.ID, Reason: err, Err: ErrDenied}))
			}
			return next.Stream(ctx, call)
		})
	}
}

// OnResult returns middleware that calls f with every result, error results
// included. f may change the result through its pointer.
func OnResult(f func(ctx context.Context, call Call, res *Result)) Middleware {
	return onResult(f, false)
}

// OnError returns middleware that calls f with every error result. f may
// change the result through its pointer, for instance to reword Content or
// to turn the error into a success.
func OnError(f func(ctx context.Context, call Call, res *Result)) Middleware {
	return onResult(f, true)
}

func onResult(f func(ctx context.Context, call Call, res *Result), errorsOnly bool) Middleware {
	return func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, call Call) iter.Seq[Event] {
			return func(yield func(Event) bool) {
				for ev := range next.Stream(ctx, call) {
					if ev.Result != nil && (!errorsOnly || ev.Result.IsError) {
						res := *ev.Result
						f(ctx, call, &res)
						ev.Result = &res
					}
					if !yield(ev) {
						return
					}
				}
			}
		})
	}
}
