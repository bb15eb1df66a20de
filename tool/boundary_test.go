package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/tool"
)

// TestMiddlewarePanicAfterTheResult checks that middleware that panics
// after yielding its result neither crashes the caller nor changes the
// result, and that the panic is logged.
func TestMiddlewarePanicAfterTheResult(t *testing.T) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{newGreetWith(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	reg.SetLogger(slog.New(slog.NewTextHandler(&log, nil)))
	reg.Use(func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
			return func(yield func(tool.Event) bool) {
				for ev := range next.Stream(ctx, call) {
					yield(ev) // ignores a false
				}
				panic("audit after the result")
			}
		})
	})
	call := tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}
	var results int
	for ev := range reg.Stream(t.Context(), call) {
		if ev.Result != nil {
			results++
			if ev.Result.IsError || ev.Result.Content != "hi Ann" {
				t.Errorf("result = %+v", ev.Result)
			}
		}
	}
	if res := tool.Run(t.Context(), reg, call); res.IsError {
		t.Errorf("Run = %+v", res)
	}
	if results != 1 || !strings.Contains(log.String(), "audit after the result") {
		t.Errorf("%d results; log %q", results, log.String())
	}
}

// TestRunRecoversAnyHandler checks that Run and RunAll turn a panic of any
// handler's stream — here middleware around a bare tool — into a result,
// also when the calls run in parallel.
func TestRunRecoversAnyHandler(t *testing.T) {
	var h tool.Handler = tool.BeforeCall(func(context.Context, *tool.Call) error { panic("broken hook") })(newGreetWith(nil))
	call := tool.Call{ID: "1", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}
	if res := tool.Run(t.Context(), h, call); !errors.Is(res.Err, tool.ErrPanicked) || res.CallID != "1" {
		t.Errorf("Run = %+v, want a panic result", res)
	}
	for _, res := range tool.RunAll(t.Context(), h, []tool.Call{call, call, call}, &tool.BatchOptions{Parallel: 3}) {
		if !errors.Is(res.Err, tool.ErrPanicked) {
			t.Errorf("RunAll result = %+v, want a panic result", res)
		}
	}
	empty := tool.HandlerFunc(func(context.Context, tool.Call) iter.Seq[tool.Event] { return func(func(tool.Event) bool) {} })
	if res := tool.Run(t.Context(), empty, call); !errors.Is(res.Err, tool.ErrNoResult) {
		t.Errorf("Run of a stream without a result = %+v", res)
	}
}

// TestHugeUnknownNameIsCheap checks that a call to a very long unknown name
// costs little and is not repeated whole to the model.
func TestHugeUnknownNameIsCheap(t *testing.T) {
	tools := make([]tool.Interface, 30)
	for i := range tools {
		tools[i] = tool.New("tool_"+strings.Repeat("x", i), "d", func(context.Context, struct{}) (string, error) { return "", nil })
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("y", 1<<20)
	res := tool.Run(t.Context(), reg, tool.Call{Name: name, Args: json.RawMessage(`{}`)})
	if !errors.Is(res.Err, tool.ErrUnknownTool) || len(res.Content) > 4096 || len(res.Err.Error()) > 512 {
		t.Errorf("Run of a 1 MiB name: %d bytes of content, %d of error", len(res.Content), len(res.Err.Error()))
	}
	res = tool.Run(t.Context(), reg, tool.Call{Name: "tool_xxy", Args: json.RawMessage(`{}`)})
	if !strings.Contains(res.Content, `Did you mean "tool_xx`) {
		t.Errorf("Run(tool_xxy).Content = %q, want a suggestion", res.Content)
	}
}

type rawMarkdown string

// TestRawStructuredIsJSON checks that a raw tool's Structured output is
// set only for a JSON object, never for text that looks like one.
func TestRawStructuredIsJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		out  any
		want string
	}{
		{"map", map[string]int{"a": 1}, `{"a":1}`},
		{"raw object", json.RawMessage(`{"a":1}`), `{"a":1}`},
		{"raw invalid", json.RawMessage(`{bad`), ""},
		{"string", `{"a":1}`, ""},
		{"named string", rawMarkdown(`{oops`), ""},
		{"array", []int{1}, ""},
	} {
		raw := tool.NewRaw(tool.Spec{Name: "r", Description: "d", InputSchema: objectSchema, OutputSchema: objectSchema}, nil,
			func(context.Context, json.RawMessage) (any, error) { return tt.out, nil })
		res := tool.Run(t.Context(), raw, tool.Call{Name: "r", Args: json.RawMessage(`{}`)})
		if string(res.Structured) != tt.want {
			t.Errorf("%s: Structured = %s, want %q", tt.name, res.Structured, tt.want)
		}
	}
}

// TestRawValidatorErrorIsInvalidArguments checks that a raw validator's
// own error is a *ValidationError naming the tool and the call.
func TestRawValidatorErrorIsInvalidArguments(t *testing.T) {
	raw := tool.NewRaw(tool.Spec{Name: "r", Description: "d", InputSchema: objectSchema},
		func(json.RawMessage) error { return errors.New("bad\narguments") },
		func(context.Context, json.RawMessage) (any, error) { return "", nil })
	res := tool.Run(t.Context(), raw, tool.Call{ID: "9", Name: "r", Args: json.RawMessage(`{}`)})
	verr, ok := errors.AsType[*tool.ValidationError](res.Err)
	if !ok || verr.CallID != "9" || verr.Tool != "r" || verr.Issues[0].Message != "bad; arguments" {
		t.Errorf("Run = %#v", res.Err)
	}
}

func TestWithEnabledNilIsADefinitionError(t *testing.T) {
	_, err := tool.Define("t", "d", func(context.Context, struct{}) (string, error) { return "", nil }, tool.WithEnabled(nil))
	if _, ok := errors.AsType[*tool.DefinitionError](err); !ok {
		t.Errorf("Define with WithEnabled(nil) = %v, want a *DefinitionError", err)
	}
}

// TestNestedTimeoutIsACancellation checks that an inner call ended by an
// outer call's timeout is a cancellation of the inner call, matching only
// ErrCanceled, while the outer call times out.
func TestNestedTimeoutIsACancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
		innerErrs := make(chan error, 1)
		outer := tool.New("outer", "d", func(ctx context.Context, _ struct{}) (string, error) {
			_, err := inner.Call(ctx, greetArgs{Name: "Ann"})
			innerErrs <- err
			return "", err
		}, tool.WithTimeout(20*time.Millisecond))
		res := tool.Run(t.Context(), outer, tool.Call{Name: "outer", Args: json.RawMessage(`{}`)})
		if !errors.Is(res.Err, tool.ErrTimedOut) {
			t.Fatalf("outer = %v, want a timeout", res.Err)
		}
		if err := <-innerErrs; !errors.Is(err, tool.ErrCanceled) || errors.Is(err, tool.ErrTimedOut) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("inner = %v, want a cancellation by the caller's deadline only", err)
		}
	})
}
