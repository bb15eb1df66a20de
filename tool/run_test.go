package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/tool"
)

// passOn is middleware that passes every event on.
func passOn(next tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
		return next.Stream(ctx, call)
	})
}

// TestRunAnswersAtTheCallersDeadline checks that Run answers when the
// caller's context ends, whatever the handler does and whatever wraps it:
// a tool alone, a registry with and without middleware, and a handler of
// the user's own. Adding middleware must not change the answer.
func TestRunAnswersAtTheCallersDeadline(t *testing.T) {
	slow := func(context.Context, greetArgs) (string, error) {
		time.Sleep(time.Second) // ignores its context
		return "late", nil
	}
	handlers := map[string]func() tool.Handler{
		"tool": func() tool.Handler { return newGreetWith(slow) },
		"registry": func() tool.Handler {
			return mustRegistry(t, newGreetWith(slow))
		},
		"registry with middleware": func() tool.Handler {
			reg := mustRegistry(t, newGreetWith(slow))
			reg.Use(passOn)
			return reg
		},
		"middleware around a tool": func() tool.Handler { return passOn(newGreetWith(slow)) },
		"registry of a user's tool": func() tool.Handler {
			return mustRegistry(t, ownTool{newGreetWith(slow)})
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
				defer cancel()
				start := time.Now()
				res := tool.Run(ctx, h(), tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)})
				if elapsed := time.Since(start); elapsed != 200*time.Millisecond {
					t.Errorf("Run answered after %v, want 200ms", elapsed)
				}
				if !errors.Is(res.Err, tool.ErrCanceled) || !errors.Is(res.Err, context.DeadlineExceeded) {
					t.Errorf("Run = %+v, want a cancelled result past the caller's deadline", res)
				}
				if res.CallID != "1" || res.Tool != "greet" {
					t.Errorf("Run = %+v, want the call's ID and tool", res)
				}
				time.Sleep(time.Second) // the abandoned handler returns
			})
		})
	}
}

// ownTool is a tool that is not one of the package's own kinds.
type ownTool struct{ inner *tool.Tool[greetArgs, string] }

func (o ownTool) Name() string    { return o.inner.Name() }
func (o ownTool) Spec() tool.Spec { return o.inner.Spec() }
func (o ownTool) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	return o.inner.Stream(ctx, call)
}

func mustRegistry(t *testing.T, tools ...tool.Interface) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestRunWaitsForWorkAfterTheResult checks what the docs of Guard promise:
// what middleware does after it has passed the result on is waited for, so
// that it has happened when Run and Drain return.
func TestRunWaitsForWorkAfterTheResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var audited atomic.Bool
		reg := mustRegistry(t, newGreetWith(nil))
		reg.Use(func(next tool.Handler) tool.Handler {
			return tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
				return func(yield func(tool.Event) bool) {
					for ev := range next.Stream(ctx, call) {
						if !yield(ev) {
							break
						}
					}
					time.Sleep(time.Second)
					audited.Store(true)
				}
			})
		})
		call := tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}
		for _, ctx := range []context.Context{context.Background(), t.Context()} {
			audited.Store(false)
			start := time.Now()
			if res := tool.Run(ctx, reg, call); res.IsError {
				t.Fatalf("Run = %+v", res)
			}
			if !audited.Load() || time.Since(start) != time.Second {
				t.Errorf("Run returned after %v, audited %v: want the work after the result waited for", time.Since(start), audited.Load())
			}
		}
	})
}

// auditing is middleware of the usual shape, `if !yield(ev) { return }`,
// that keeps an audit record of each result once it has passed it on, and
// another once its stream has ended; records gets both.
func auditing(records *[]string) tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
			return func(yield func(tool.Event) bool) {
				for ev := range next.Stream(ctx, call) {
					if !yield(ev) {
						return
					}
					if ev.Result != nil {
						*records = append(*records, "result "+ev.Result.Content)
					}
				}
				*records = append(*records, "end")
			}
		})
	}
}

// TestUsualMiddlewareRunsAfterTheResult checks that middleware written the
// usual way, `if !yield(ev) { return }`, does its work after the result,
// whoever runs the call: Run and Drain, with and without a context that can
// end and a progress function, RunAll, and a consumer of Registry.Stream or
// Guard that stops at the result. Each of two such middlewares, one inside
// the other, keeps both records.
func TestUsualMiddlewareRunsAfterTheResult(t *testing.T) {
	call := tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}
	// The outer middleware records the result first, as it passes it on
	// before the inner one's yield returns; the inner stream ends first.
	want := []string{"result hi Ann", "result hi Ann", "end", "end"}
	build := map[string]func(records *[]string) tool.Handler{
		"registry": func(records *[]string) tool.Handler {
			reg := mustRegistry(t, newGreetWith(nil))
			reg.Use(auditing(records), auditing(records))
			return reg
		},
		"guard": func(records *[]string) tool.Handler {
			return tool.Guard(auditing(records)(auditing(records)(newGreetWith(nil))), nil)
		},
		"bare": func(records *[]string) tool.Handler {
			return auditing(records)(auditing(records)(newGreetWith(nil)))
		},
	}
	consumers := map[string]func(t *testing.T, h tool.Handler) tool.Result{
		"Run": func(t *testing.T, h tool.Handler) tool.Result { return tool.Run(context.Background(), h, call) },
		"Run with a context that can end": func(t *testing.T, h tool.Handler) tool.Result {
			return tool.Run(t.Context(), h, call)
		},
		"Drain with progress": func(t *testing.T, h tool.Handler) tool.Result {
			return tool.Drain(context.Background(), h, call, func(any) bool { return true })
		},
		"RunAll in parallel": func(t *testing.T, h tool.Handler) tool.Result {
			return tool.RunAll(t.Context(), h, []tool.Call{call}, &tool.BatchOptions{Parallel: 2})[0]
		},
	}
	for hname, build := range build {
		for cname, consume := range consumers {
			t.Run(hname+"/"+cname, func(t *testing.T) {
				var records []string
				res := consume(t, build(&records))
				if res.IsError || res.Content != "hi Ann" {
					t.Fatalf("result = %+v, want hi Ann", res)
				}
				if !slices.Equal(records, want) {
					t.Errorf("audit records = %q, want %q", records, want)
				}
			})
		}
	}
	for hname, build := range build {
		if hname == "bare" {
			continue // a stream with no guard stops where its consumer does
		}
		t.Run(hname+"/a loop that stops at the result", func(t *testing.T) {
			var records []string
			for ev := range build(&records).Stream(t.Context(), call) {
				if ev.Result != nil {
					break
				}
			}
			if !slices.Equal(records, want) {
				t.Errorf("audit records = %q, want %q", records, want)
			}
		})
	}
}

// TestDrainProgress checks that Drain passes every progress event, in
// order, to its function on the calling goroutine, and that a function that
// returns false cancels the call.
func TestDrainProgress(t *testing.T) {
	counter := tool.New("count", "Count to three.", func(ctx context.Context, _ struct{}) (string, error) {
		for i := range 3 {
			tool.Progress(ctx, tool.ProgressReport{Done: float64(i + 1), Total: 3})
		}
		return "done", nil
	})
	call := tool.Call{ID: "1", Name: "count", Args: json.RawMessage(`{}`)}
	for _, h := range []tool.Handler{counter, passOn(counter), mustRegistry(t, counter)} {
		for _, ctx := range []context.Context{context.Background(), t.Context()} {
			var got []tool.ProgressReport
			res := tool.Drain(ctx, h, call, func(v any) bool {
				got = append(got, v.(tool.ProgressReport)) // on this goroutine: no lock
				return true
			})
			want := []tool.ProgressReport{{Done: 1, Total: 3}, {Done: 2, Total: 3}, {Done: 3, Total: 3}}
			if res.IsError || res.Content != "done" || !slices.Equal(got, want) {
				t.Errorf("Drain = %+v with progress %v, want %v", res, got, want)
			}
			stopped := tool.Drain(ctx, h, call, func(any) bool { return false })
			if !errors.Is(stopped.Err, tool.ErrCanceled) || !errors.Is(stopped.Err, context.Canceled) {
				t.Errorf("Drain stopped by its progress function = %+v, want a cancelled result", stopped)
			}
		}
	}
}

// TestRunAllReports checks that RunAll reports each call's start, progress
// and result on the calling goroutine, and stops when a function returns
// false: the calls not yet started are not run.
func TestRunAllReports(t *testing.T) {
	var runs atomic.Int32
	counter := tool.New("count", "Count to two.", func(ctx context.Context, _ struct{}) (string, error) {
		runs.Add(1)
		tool.Progress(ctx, 1)
		tool.Progress(ctx, 2)
		return "done", nil
	})
	calls := []tool.Call{{ID: "a", Name: "count"}, {ID: "b", Name: "count"}, {ID: "c", Name: "count"}}
	for _, parallel := range []int{1, 3} {
		var log []string
		results := tool.RunAll(t.Context(), counter, calls, &tool.BatchOptions{
			Parallel: parallel,
			Started:  func(i int) bool { log = append(log, calls[i].ID+" start"); return true },
			Progress: func(i int, v any) bool { log = append(log, calls[i].ID+" progress"); return true },
			Finished: func(i int, res tool.Result) bool { log = append(log, res.CallID+" "+res.Content); return true },
		})
		for i, res := range results {
			if res.CallID != calls[i].ID || res.Content != "done" {
				t.Errorf("parallel %d: result %d = %+v", parallel, i, res)
			}
		}
		if len(log) != 12 {
			t.Errorf("parallel %d: %d reports, want 12: %q", parallel, len(log), log)
		}
		if parallel == 1 {
			want := []string{"a start", "a progress", "a progress", "a done", "b start", "b progress", "b progress", "b done", "c start", "c progress", "c progress", "c done"}
			if !slices.Equal(log, want) {
				t.Errorf("parallel 1: reports %q, want %q", log, want)
			}
		}
	}
	for _, parallel := range []int{1, 2} {
		runs.Store(0)
		results := tool.RunAll(t.Context(), counter, calls, &tool.BatchOptions{
			Parallel: parallel,
			Finished: func(i int, res tool.Result) bool { return false },
		})
		if n := runs.Load(); n > int32(parallel) {
			t.Errorf("parallel %d: %d calls ran after the first result stopped the batch", parallel, n)
		}
		if !errors.Is(results[2].Err, tool.ErrCanceled) {
			t.Errorf("parallel %d: the last call's result = %+v, want a cancelled result", parallel, results[2])
		}
	}
}
