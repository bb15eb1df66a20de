package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// TestEveryFailureMatchesItsSentinel runs one call for each kind of failure
// and checks the result's error against its sentinel, its detail type, and
// the tool and call ID the detail type names.
func TestEveryFailureMatchesItsSentinel(t *testing.T) {
	greet := newGreet(nil)
	boom := newGreet(func(context.Context, greetArgs) (string, error) { panic("boom") })
	slow := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
		time.Sleep(time.Second) // ignores its context
		return "late", nil
	}, tool.WithTimeout(20*time.Millisecond))
	hidden := newGreetWith(nil, tool.WithEnabled(func(context.Context) bool { return false }))
	reg := func(tools ...tool.Interface) *tool.Registry {
		r, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	denying := reg(greet)
	denying.Use(tool.BeforeCall(func(context.Context, *tool.Call) error { return errors.New("not today") }))
	silent := reg(greet)
	silent.Use(func(tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(context.Context, tool.Call) iter.Seq[tool.Event] { return func(func(tool.Event) bool) {} })
	})
	asking := newGreet(func(ctx context.Context, _ greetArgs) (string, error) { return tool.Ask(ctx, "Who?") })

	args := json.RawMessage(`{"name":"Ann"}`)
	for _, tt := range []struct {
		name     string
		cancel   bool // the caller's context has ended before the call
		h        tool.Handler
		args     string
		sentinel error
		detail   func(error) (tool, callID string, ok bool)
	}{
		{"unknown", false, reg(greet), "", tool.ErrUnknownTool, detail[*tool.UnknownToolError](func(e *tool.UnknownToolError) (string, string) { return e.Tool, e.CallID })},
		{"disabled", false, reg(hidden), "", tool.ErrDisabled, detail[*tool.DisabledToolError](func(e *tool.DisabledToolError) (string, string) { return e.Tool, e.CallID })},
		{"invalid", false, greet, `{"name":""}`, tool.ErrInvalidArguments, detail[*tool.ValidationError](func(e *tool.ValidationError) (string, string) { return e.Tool, e.CallID })},
		{"denied", false, denying, "", tool.ErrDenied, detail[*tool.DeniedError](func(e *tool.DeniedError) (string, string) { return e.Tool, e.CallID })},
		{"panicked", false, boom, "", tool.ErrPanicked, detail[*tool.PanicError](func(e *tool.PanicError) (string, string) { return e.Tool, e.CallID })},
		{"timed out", false, slow, "", tool.ErrTimedOut, detail[*tool.TimeoutError](func(e *tool.TimeoutError) (string, string) { return e.Tool, e.CallID })},
		{"cancelled", true, greet, "", tool.ErrCanceled, detail[*tool.CanceledError](func(e *tool.CanceledError) (string, string) { return e.Tool, e.CallID })},
		{"no result", false, silent, "", tool.ErrNoResult, detail[*tool.NoResultError](func(e *tool.NoResultError) (string, string) { return e.Tool, e.CallID })},
		{"interrupted", false, asking, "", tool.ErrInterrupted, detail[*tool.InterruptError](func(e *tool.InterruptError) (string, string) { return e.Tool, e.CallID })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				defer time.Sleep(time.Second) // the abandoned slow handler returns before the bubble ends
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancel {
					cancel()
				}
				call := tool.Call{ID: "c7", Name: "greet", Args: args}
				if tt.name == "unknown" {
					call.Name = "gret"
				}
				if tt.args != "" {
					call.Args = json.RawMessage(tt.args)
				}
				res := tool.Run(ctx, tt.h, call)
				if !res.IsError || !errors.Is(res.Err, tt.sentinel) {
					t.Fatalf("Run(%s) = %+v, want an error matching %v", tt.name, res, tt.sentinel)
				}
				for _, other := range []error{tool.ErrUnknownTool, tool.ErrDisabled, tool.ErrInvalidArguments, tool.ErrDenied, tool.ErrPanicked, tool.ErrTimedOut, tool.ErrCanceled, tool.ErrNoResult, tool.ErrInterrupted, tool.ErrUpstream} {
					if other != tt.sentinel && errors.Is(res.Err, other) {
						t.Errorf("Run(%s) error %v also matches %v", tt.name, res.Err, other)
					}
				}
				name, id, ok := tt.detail(res.Err)
				if !ok {
					t.Fatalf("Run(%s) error %T has not the expected detail type", tt.name, res.Err)
				}
				if name != call.Name || id != "c7" {
					t.Errorf("Run(%s) detail names tool %q call %q, want %q %q", tt.name, name, id, call.Name, "c7")
				}
				if res.CallID != "c7" {
					t.Errorf("Run(%s).CallID = %q", tt.name, res.CallID)
				}
			})
		})
	}
}

// detail returns a function that finds an error of type E and reads its
// tool and call ID.
func detail[E error](fields func(E) (string, string)) func(error) (string, string, bool) {
	return func(err error) (string, string, bool) {
		e, ok := errors.AsType[E](err)
		if !ok {
			return "", "", false
		}
		a, b := fields(e)
		return a, b, true
	}
}

func newGreetWith(run func(ctx context.Context, a greetArgs) (string, error), opts ...tool.Option) *tool.Tool[greetArgs, string] {
	if run == nil {
		run = func(ctx context.Context, a greetArgs) (string, error) { return "hi " + a.Name, nil }
	}
	return tool.New("greet", "Greet someone.", run, opts...)
}

func TestTimedOutMatchesDeadlineExceeded(t *testing.T) {
	err := error(&tool.TimeoutError{Tool: "t", Timeout: time.Second, Err: tool.ErrTimedOut})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, tool.ErrTimedOut) {
		t.Errorf("%v does not match context.DeadlineExceeded and ErrTimedOut", err)
	}
	cerr := error(&tool.CanceledError{Tool: "t", Cause: context.Canceled, Err: tool.ErrCanceled})
	if !errors.Is(cerr, context.Canceled) || !errors.Is(cerr, tool.ErrCanceled) || errors.Is(cerr, tool.ErrTimedOut) {
		t.Errorf("%v does not match context.Canceled and ErrCanceled only", cerr)
	}
}

// TestDefinitionErrors checks that every definition mistake is a
// *DefinitionError that New panics with and Define returns.
func TestDefinitionErrors(t *testing.T) {
	type chanField struct {
		C chan int `json:"c"`
	}
	run := func(context.Context, greetArgs) (string, error) { return "", nil }
	object := objectSchema
	rawRun := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	for _, tt := range []struct {
		name   string
		define func() error
		schema bool // the cause is a *schema.DefinitionError
	}{
		{"name", func() error { _, err := tool.Define("a b", "d", run); return err }, false},
		{"description", func() error { _, err := tool.Define("t", " ", run); return err }, false},
		{"handler", func() error { _, err := tool.Define[greetArgs, string]("t", "d", nil); return err }, false},
		{"input type", func() error {
			_, err := tool.Define("t", "d", func(context.Context, chanField) (string, error) { return "", nil })
			return err
		}, true},
		{"timeout", func() error { _, err := tool.Define("t", "d", run, tool.WithTimeout(0)); return err }, false},
		{"repair", func() error { _, err := tool.Define("t", "d", run, tool.WithoutRepairs("no-such")); return err }, false},
		{"nil option", func() error { _, err := tool.Define("t", "d", run, nil); return err }, false},
		{"raw null repair", func() error {
			_, err := tool.DefineRaw(tool.Spec{Name: "r", Description: "d", InputSchema: object}, nil, rawRun, tool.WithoutRepairs(tool.RepairNullOptional))
			return err
		}, false},
		{"raw schema", func() error {
			_, err := tool.DefineRaw(tool.Spec{Name: "r", Description: "d"}, nil, rawRun)
			return err
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.define()
			derr, ok := errors.AsType[*tool.DefinitionError](err)
			if !ok {
				t.Fatalf("Define = %v, want a *DefinitionError", err)
			}
			if _, ok := errors.AsType[*schema.DefinitionError](err); ok != tt.schema {
				t.Errorf("Define = %v: wraps a *schema.DefinitionError: %v, want %v", err, ok, tt.schema)
			}
			if derr.Tool == "" {
				t.Errorf("Define = %v: the error names no tool", err)
			}
		})
	}
	defer func() {
		v := recover()
		if _, ok := v.(*tool.DefinitionError); !ok {
			t.Errorf("New panicked with %T (%v), want a *DefinitionError", v, v)
		}
	}()
	tool.New("t", "d", run, tool.WithTimeout(-time.Second))
}

func TestRawToolKeepsUnnamedRepairsOff(t *testing.T) {
	// WithoutRepairs() with no names turns every repair off, which is fine
	// for a raw tool.
	echo := tool.NewRaw(tool.Spec{Name: "echo", Description: "d", InputSchema: objectSchema}, nil,
		func(_ context.Context, args json.RawMessage) (any, error) { return string(args), nil }, tool.WithoutRepairs())
	if res := tool.Run(t.Context(), echo, tool.Call{Name: "echo", Args: json.RawMessage(`""`)}); !res.IsError {
		t.Errorf("Run with repairs off = %+v, want an error", res)
	}
}

func TestModelTextOfTimeout(t *testing.T) {
	got := tool.ModelText("slow", &tool.TimeoutError{Tool: "slow", Timeout: time.Second})
	if !strings.Contains(got, "timed out") {
		t.Errorf("ModelText = %q", got)
	}
}
