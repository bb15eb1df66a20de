package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/tool"
)

// TestTimeoutHoldsWhateverTheHandlerDoes checks that a call with a timeout
// ends at the deadline with a *TimeoutError, through every way of calling a
// tool, whether the handler ignores its context and returns late, blocks
// forever, or panics after the deadline.
func TestTimeoutHoldsWhateverTheHandlerDoes(t *testing.T) {
	const timeout = 50 * time.Millisecond
	handlers := map[string]func(release <-chan struct{}) func(context.Context, greetArgs) (string, error){
		"ignores its context": func(<-chan struct{}) func(context.Context, greetArgs) (string, error) {
			return func(context.Context, greetArgs) (string, error) {
				time.Sleep(time.Second)
				return "late", nil
			}
		},
		"blocks forever": func(release <-chan struct{}) func(context.Context, greetArgs) (string, error) {
			return func(context.Context, greetArgs) (string, error) {
				<-release
				return "released", nil
			}
		},
		"panics after the deadline": func(<-chan struct{}) func(context.Context, greetArgs) (string, error) {
			return func(context.Context, greetArgs) (string, error) {
				time.Sleep(time.Second)
				panic("too late to matter")
			}
		},
	}
	args := json.RawMessage(`{"name":"Ann"}`)
	ways := map[string]func(ctx context.Context, slow *tool.Tool[greetArgs, string], raw *tool.RawTool) error{
		"Run": func(ctx context.Context, slow *tool.Tool[greetArgs, string], _ *tool.RawTool) error {
			return tool.Run(ctx, slow, tool.Call{ID: "1", Name: "greet", Args: args}).Err
		},
		"Stream": func(ctx context.Context, slow *tool.Tool[greetArgs, string], _ *tool.RawTool) error {
			var err error
			for ev := range slow.Stream(ctx, tool.Call{ID: "1", Name: "greet", Args: args}) {
				if ev.Result != nil {
					err = ev.Result.Err
				}
			}
			return err
		},
		"Call": func(ctx context.Context, slow *tool.Tool[greetArgs, string], _ *tool.RawTool) error {
			_, err := slow.Call(ctx, greetArgs{Name: "Ann"})
			return err
		},
		"CallJSON": func(ctx context.Context, slow *tool.Tool[greetArgs, string], _ *tool.RawTool) error {
			_, err := slow.CallJSON(ctx, args)
			return err
		},
		"raw Run": func(ctx context.Context, _ *tool.Tool[greetArgs, string], raw *tool.RawTool) error {
			return tool.Run(ctx, raw, tool.Call{ID: "1", Name: "greet", Args: args}).Err
		},
		"raw CallJSON": func(ctx context.Context, _ *tool.Tool[greetArgs, string], raw *tool.RawTool) error {
			_, err := raw.CallJSON(ctx, args)
			return err
		},
	}
	for name, handler := range handlers {
		for way, call := range ways {
			t.Run(name+"/"+way, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					release := make(chan struct{})
					defer time.Sleep(time.Second) // the abandoned handler returns before the bubble ends
					defer close(release)
					h := handler(release)
					slow := newGreetWith(h, tool.WithTimeout(timeout))
					raw := tool.NewRaw(slow.Spec(), nil, func(ctx context.Context, args json.RawMessage) (any, error) {
						return h(ctx, greetArgs{})
					}, tool.WithTimeout(timeout))
					start := time.Now()
					err := call(t.Context(), slow, raw)
					elapsed := time.Since(start)
					if !errors.Is(err, tool.ErrTimedOut) {
						t.Fatalf("%s = %v, want a timeout", way, err)
					}
					if terr, _ := errors.AsType[*tool.TimeoutError](err); terr.Timeout != timeout || terr.Tool != "greet" {
						t.Errorf("%s = %+v", way, terr)
					}
					if elapsed != timeout { // the handlers take a second, or forever
						t.Errorf("%s took %v with a timeout of %v", way, elapsed, timeout)
					}
				})
			})
		}
	}
}

// TestTimeoutLetsAFastCallThrough checks that a call that finishes in time
// gets its result, and that a handler sees its context's cause.
func TestTimeoutLetsAFastCallThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fast := newGreetWith(nil, tool.WithTimeout(time.Second))
		if res := tool.Run(t.Context(), fast, tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}); res.IsError || res.Content != "hi Ann" {
			t.Errorf("Run = %+v", res)
		}
		if out, err := fast.Call(t.Context(), greetArgs{Name: "Bo"}); err != nil || out != "hi Bo" {
			t.Errorf("Call = %q, %v", out, err)
		}
		causes := make(chan error, 1)
		waits := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return "", ctx.Err()
		}, tool.WithTimeout(10*time.Millisecond))
		_, err := waits.CallJSON(t.Context(), json.RawMessage(`{"name":"Ann"}`))
		if !errors.Is(err, tool.ErrTimedOut) {
			t.Fatalf("CallJSON = %v, want a timeout", err)
		}
		if cause := <-causes; !errors.Is(cause, tool.ErrTimedOut) {
			t.Errorf("the handler's context.Cause = %v, want the tool's timeout", cause)
		}
	})
}

// TestCallerDeadlineIsACancellation checks that the caller's own deadline
// is a *CanceledError, not the tool's timeout.
func TestCallerDeadlineIsACancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		waits := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}, tool.WithTimeout(time.Minute))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		res := tool.Run(ctx, waits, tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)})
		if !errors.Is(res.Err, tool.ErrCanceled) || errors.Is(res.Err, tool.ErrTimedOut) || !errors.Is(res.Err, context.DeadlineExceeded) {
			t.Errorf("Run = %v, want a cancellation caused by the caller's deadline", res.Err)
		}
	})
}

// TestToolsSayTheirTimeout: the tools of New and NewRaw are tool.Timed, and
// report the bound WithTimeout gave them, or zero without one.
func TestToolsSayTheirTimeout(t *testing.T) {
	greet := func(context.Context, greetArgs) (string, error) { return "hi", nil }
	raw := func(context.Context, json.RawMessage) (any, error) { return "hi", nil }
	spec := tool.Spec{Name: "r", Description: "d", InputSchema: objectSchema}
	for _, tt := range []struct {
		name string
		tool tool.Interface
		want time.Duration
	}{
		{"New with a timeout", tool.New("greet", "Greet.", greet, tool.WithTimeout(3*time.Second)), 3 * time.Second},
		{"New without", tool.New("greet", "Greet.", greet), 0},
		{"NewRaw with a timeout", tool.NewRaw(spec, nil, raw, tool.WithTimeout(time.Minute)), time.Minute},
		{"NewRaw without", tool.NewRaw(spec, nil, raw), 0},
	} {
		timed, ok := tt.tool.(tool.Timed)
		if !ok {
			t.Errorf("%s: %T is not a tool.Timed", tt.name, tt.tool)
			continue
		}
		if got := timed.Timeout(); got != tt.want {
			t.Errorf("%s: Timeout() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
