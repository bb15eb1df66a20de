package tool_test

import (
	"context"
	"errors"
	"iter"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/tool"
)

// A forwarder passes its calls to to, as a remote tool passes them to its
// current version, or answers them with the text "streamed" when to is
// nil.
type forwarder struct {
	tool.Interface // the name and spec
	to             tool.Interface
}

func (f *forwarder) Forward() tool.Interface { return f.to }

func (f *forwarder) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	if f.to != nil {
		return f.to.Stream(ctx, call)
	}
	return func(yield func(tool.Event) bool) {
		res := tool.Result{Tool: call.Name, Content: "streamed"}
		yield(tool.Event{Result: &res})
	}
}

// TestForwarder checks that Run, Drain and a Registry run a Forwarder's
// call as the forwarded tool's own, with no progress to report, that a
// streamed call still reaches the tool's progress, and that a Forwarder
// with nothing to forward to answers from its Stream.
func TestForwarder(t *testing.T) {
	type in struct {
		Text string `json:"text"`
	}
	echo := tool.New("echo", "Echo a text.", func(ctx context.Context, v in) (string, error) {
		tool.Progress(ctx, "working")
		if tool.ReportsProgress(ctx) {
			return v.Text + " (reported)", nil
		}
		return v.Text, nil
	})
	fwd := &forwarder{Interface: echo, to: echo}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{fwd}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background()) // a context that can end
	defer cancel()
	call := tool.Call{Name: "echo", Args: []byte(`{"text":"hi"}`)}
	var progress []any
	report := func(v any) bool { progress = append(progress, v); return true }
	for _, tc := range []struct {
		name string
		run  func() tool.Result
		want string
	}{
		{"Run", func() tool.Result { return tool.Run(ctx, fwd, call) }, "hi"},
		{"Registry", func() tool.Result { return tool.Run(ctx, reg, call) }, "hi"},
		{"Drain with progress", func() tool.Result { return tool.Drain(ctx, reg, call, report) }, "hi (reported)"},
	} {
		if res := tc.run(); res.IsError || res.Content != tc.want {
			t.Errorf("%s: result = %q (error %v), want %s", tc.name, res.Content, res.IsError, tc.want)
		}
	}
	if len(progress) != 1 || progress[0] != "working" {
		t.Errorf("progress of the streamed call = %v, want [working]", progress)
	}
	fwd.to = nil
	if res := tool.Run(ctx, reg, call); res.Content != "streamed" {
		t.Errorf("with nothing to forward to: result = %q, want the Stream's", res.Content)
	}
	if tool.ReportsProgress(ctx) {
		t.Error("ReportsProgress outside a call = true")
	}
}

// TestContextBoundHandler checks that a tool whose handler is bound by its
// context runs a call to its end on the caller's goroutine: at the
// timeout, a handler that waits on its context ends the call with a
// *TimeoutError, as on a goroutine of its own, while one that ignores it
// holds the caller until it returns — where, without the option, the call
// ends at the timeout.
func TestContextBoundHandler(t *testing.T) {
	type in struct{}
	waits := func(ctx context.Context, _ in) (string, error) { <-ctx.Done(); return "", ctx.Err() }
	ignores := func(context.Context, in) (string, error) { time.Sleep(time.Second); return "done", nil }
	for _, tc := range []struct {
		name    string
		handler func(context.Context, in) (string, error)
		bound   bool
		took    time.Duration
		timeout bool // the result is a *TimeoutError
	}{
		{"waits, bound", waits, true, 10 * time.Millisecond, true},
		{"waits", waits, false, 10 * time.Millisecond, true},
		{"ignores, bound", ignores, true, time.Second, false},
		{"ignores", ignores, false, 10 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := []tool.Option{tool.WithTimeout(10 * time.Millisecond)}
				if tc.bound {
					opts = append(opts, tool.WithContextBoundHandler())
				}
				tl := tool.New("slow", "Take a while.", tc.handler, opts...)
				start := time.Now()
				res := tool.Run(t.Context(), tl, tool.Call{Name: "slow", Args: []byte(`{}`)})
				if took := time.Since(start); took != tc.took {
					t.Errorf("Run took %v, want %v", took, tc.took)
				}
				if _, ok := errors.AsType[*tool.TimeoutError](res.Err); ok != tc.timeout {
					t.Errorf("Run = %+v, want a *TimeoutError: %v", res, tc.timeout)
				}
				time.Sleep(time.Second) // for an abandoned handler to return
			})
		})
	}
}
