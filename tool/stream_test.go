package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/hands-go/hands/tool"
)

// goroutineID returns the ID of the calling goroutine, read from its stack
// header. It serves only to test which goroutine runs a loop body.
func goroutineID() int {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return id
}

// spawner reports progress from goroutines it starts, and from its own.
func spawner() *tool.Tool[greetArgs, string] {
	return newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() { tool.Progress(ctx, i) })
		}
		wg.Wait()
		tool.Progress(ctx, "own")
		return "done", nil
	})
}

// TestProgressIsDeliveredOnTheConsumersGoroutine checks that every event
// of a stream, whichever goroutine reported it, reaches the loop body on
// the goroutine that ranges over the stream, through a tool and through a
// registry with middleware.
func TestProgressIsDeliveredOnTheConsumersGoroutine(t *testing.T) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{spawner()}})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(tool.OnResult(func(context.Context, tool.Call, *tool.Result) {}))
	for name, h := range map[string]tool.Handler{"tool": spawner(), "registry": reg} {
		t.Run(name, func(t *testing.T) {
			me := goroutineID()
			progress := 0
			var res *tool.Result
			for ev := range h.Stream(t.Context(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}) {
				if id := goroutineID(); id != me {
					t.Errorf("an event reached the loop body on goroutine %d, not the consumer's %d", id, me)
				}
				if ev.Result != nil {
					res = ev.Result
				} else {
					progress++
				}
			}
			if progress != 9 || res == nil || res.Content != "done" {
				t.Errorf("Stream gave %d progress events and %+v, want 9 and done", progress, res)
			}
		})
	}
}

// loopPanic is what the consumer's loop body panics with.
type loopPanic struct{ n int }

// TestPanicInLoopBodyPropagatesUnchanged checks that a panic in the loop
// body of a consumer, on a progress event or on the result, reaches the
// consumer's own recover with its value, and is not turned into a result.
func TestPanicInLoopBodyPropagatesUnchanged(t *testing.T) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{spawner()}})
	if err != nil {
		t.Fatal(err)
	}
	withMiddleware, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{spawner()}})
	if err != nil {
		t.Fatal(err)
	}
	withMiddleware.Use(tool.OnResult(func(context.Context, tool.Call, *tool.Result) {}))
	for name, h := range map[string]tool.Handler{"tool": spawner(), "registry": reg, "middleware": withMiddleware} {
		for _, onResult := range []bool{false, true} {
			t.Run(name+"/result="+strconv.FormatBool(onResult), func(t *testing.T) {
				want := &loopPanic{n: 7}
				got := func() (v any) {
					defer func() { v = recover() }()
					for ev := range h.Stream(t.Context(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}) {
						if (ev.Result != nil) == onResult {
							panic(want)
						}
					}
					return nil
				}()
				if got != want {
					t.Errorf("the loop body's panic reached the consumer as %#v, want %#v", got, want)
				}
			})
		}
	}
}

// TestStoppingEarlyCancelsTheHandler checks that a consumer that stops
// after the first progress event cancels the handler's context, and that
// progress reported afterwards is dropped rather than blocking.
func TestStoppingEarlyCancelsTheHandler(t *testing.T) {
	ended := make(chan error, 1)
	chatty := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
		tool.Progress(ctx, 1)
		<-ctx.Done()
		tool.Progress(ctx, 2) // nobody takes it: it must not block
		ended <- ctx.Err()
		return "", ctx.Err()
	})
	for ev := range chatty.Stream(t.Context(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}) {
		if ev.Result != nil {
			t.Fatalf("a result after the consumer stopped: %+v", ev.Result)
		}
		break
	}
	if err := <-ended; err != context.Canceled {
		t.Errorf("the handler's context ended with %v, want context.Canceled", err)
	}
}
