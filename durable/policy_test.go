package durable_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

// attempts records the call activities a test environment started: the
// options each ran with, by tool name, in order.
type attempts struct {
	mu   sync.Mutex
	info map[string][]activity.Info
}

func (a *attempts) of(name string) []activity.Info {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.info[name]
}

// envWith returns a test environment with an Agent on model, reg and opts,
// which records the call activities it starts.
func envWith(t *testing.T, model agent.Model, reg *tool.Registry, opts *durable.Options) (*testsuite.TestWorkflowEnvironment, *attempts) {
	var s testsuite.WorkflowTestSuite
	e := s.NewTestWorkflowEnvironment()
	e.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	durable.New(model, reg, opts).Register(e)
	at := &attempts{info: map[string][]activity.Info{}}
	e.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name != durable.CallActivity {
			return
		}
		var in durable.CallInput
		if err := args.Get(&in); err != nil {
			t.Error(err)
			return
		}
		at.mu.Lock()
		defer at.mu.Unlock()
		at.info[in.Call.Name] = append(at.info[in.Call.Name], *info)
	})
	return e, at
}

func newRegistry(t *testing.T, tools ...tool.Interface) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "test", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func echo(context.Context, pathArgs) (string, error) { return "ok", nil }

// TestActivityTimeouts: a call's StartToCloseTimeout is its policy's, or
// else its tool's own timeout plus the margin, or else the default.
func TestActivityTimeouts(t *testing.T) {
	reg := newRegistry(t,
		tool.New("timed", "Bounded by the tool.", echo, tool.WithTimeout(30*time.Second)),
		tool.New("plain", "Not bounded.", echo),
		tool.New("ruled", "Bounded by its policy.", echo, tool.WithTimeout(30*time.Second)),
	)
	e, at := envWith(t, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "timed", `{"path":"a"}`), agenttest.Call("c2", "plain", `{"path":"a"}`), agenttest.Call("c3", "ruled", `{"path":"a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	), reg, &durable.Options{Tools: map[string]durable.ToolPolicy{
		"ruled": {Timeout: 2 * time.Minute, HeartbeatTimeout: 10 * time.Second},
	}})
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
	result(t, e)
	for _, tt := range []struct {
		tool                    string
		startToClose, heartbeat time.Duration
	}{
		{"timed", 30*time.Second + durable.TimeoutMargin, 0},
		{"plain", durable.DefaultToolTimeout, 0},
		{"ruled", 2 * time.Minute, 10 * time.Second},
	} {
		infos := at.of(tt.tool)
		if len(infos) != 1 {
			t.Errorf("%s: %d attempts, want 1", tt.tool, len(infos))
			continue
		}
		if got := infos[0].StartToCloseTimeout; got != tt.startToClose {
			t.Errorf("%s: StartToCloseTimeout %v, want %v", tt.tool, got, tt.startToClose)
		}
		if got := infos[0].HeartbeatTimeout; got != tt.heartbeat {
			t.Errorf("%s: HeartbeatTimeout %v, want %v", tt.tool, got, tt.heartbeat)
		}
	}
}

// TestToolTimeoutEndsTheCall: a call past its tool's timeout ends with
// the tool's *TimeoutError, which the model reads, before the activity's
// own timeout, and a tool that may not be safe to run twice is not retried.
func TestToolTimeoutEndsTheCall(t *testing.T) {
	reg := newRegistry(t, tool.New("stuck", "Never returns in time.", func(ctx context.Context, _ pathArgs) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, tool.WithTimeout(20*time.Millisecond)))
	e, at := envWith(t, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "stuck", `{"path":"a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	), reg, nil)
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
	h := result(t, e)
	if !h[2].IsError || !strings.Contains(h[2].Text, "timed out") {
		t.Errorf("tool message %+v, want the tool's timeout", h[2])
	}
	if n := len(at.of("stuck")); n != 1 {
		t.Errorf("%d attempts, want 1: the tool is neither read-only nor idempotent", n)
	}
}

// TestProgressIsAHeartbeat: a call's progress reports reach Temporal as
// the activity's heartbeats, with the progress as the detail.
func TestProgressIsAHeartbeat(t *testing.T) {
	f := &files{}
	e := env(t, f, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "read", `{"path":"a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	))
	var mu sync.Mutex
	var beats []string
	e.SetOnActivityHeartbeatListener(func(info *activity.Info, details converter.EncodedValues) {
		var s string
		if err := details.Get(&s); err != nil {
			t.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		beats = append(beats, info.ActivityType.Name+" "+s)
	})
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("read a")}})
	result(t, e)
	mu.Lock()
	defer mu.Unlock()
	if len(beats) == 0 || beats[0] != durable.CallActivity+" reading" {
		t.Errorf("heartbeats %q, want the call's progress, reading", beats)
	}
}

// TestRetryPolicies: a tool's policy decides how often a failed call is
// tried; without one, a tool that may not be safe to run twice is tried
// once. Once retries end, the model reads the last failure.
func TestRetryPolicies(t *testing.T) {
	for _, tt := range []struct {
		name     string
		idem     bool
		policy   *temporal.RetryPolicy
		attempts int
	}{
		{name: "policy", policy: &temporal.RetryPolicy{MaximumAttempts: 2, InitialInterval: time.Millisecond}, attempts: 2},
		{name: "default, not idempotent", attempts: 1},
		{name: "default, idempotent", idem: true, attempts: 3},
		{name: "policy over the default of an idempotent tool", idem: true, policy: &temporal.RetryPolicy{MaximumAttempts: 5, InitialInterval: time.Millisecond}, attempts: 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, tool.New("fail", "Always fails.", func(context.Context, pathArgs) (string, error) {
				return "", errors.New("disk busy")
			}, tool.WithAnnotations(tool.Annotations{Idempotent: tt.idem})))
			var opts durable.Options
			if tt.policy != nil {
				opts.Tools = map[string]durable.ToolPolicy{"fail": {Retry: tt.policy}}
			}
			e, at := envWith(t, agenttest.NewScript(
				turnWith(agenttest.Call("c1", "fail", `{"path":"a"}`)),
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			), reg, &opts)
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
			h := result(t, e)
			if n := len(at.of("fail")); n != tt.attempts {
				t.Errorf("%d attempts, want %d", n, tt.attempts)
			}
			if !h[2].IsError || !strings.Contains(h[2].Text, "disk busy") {
				t.Errorf("tool message %+v, want the last failure", h[2])
			}
		})
	}
}

// TestNotRetried: invalid arguments, an unknown tool and a denial are
// tried once, whatever the tool's policy, and the model reads why.
func TestNotRetried(t *testing.T) {
	retry := &temporal.RetryPolicy{MaximumAttempts: 5, InitialInterval: time.Millisecond}
	for _, tt := range []struct {
		name, call, args, text string
	}{
		{name: "invalid arguments", call: "guarded", args: `{"path":""}`, text: "path"},
		{name: "unknown tool", call: "nosuch", args: `{}`, text: "nosuch"},
		{name: "denied", call: "guarded", args: `{"path":"/etc"}`, text: "outside the workspace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			reg := newRegistry(t, tool.New("guarded", "Reads inside the workspace.", func(context.Context, pathArgs) (string, error) {
				ran++
				return "ok", nil
			}, tool.WithAnnotations(tool.Annotations{ReadOnly: true})))
			reg.Use(tool.BeforeCall(func(_ context.Context, c *tool.Call) error {
				if strings.Contains(string(c.Args), "/etc") {
					return errors.New("outside the workspace")
				}
				return nil
			}))
			e, at := envWith(t, agenttest.NewScript(
				turnWith(agenttest.Call("c1", tt.call, tt.args)),
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			), reg, &durable.Options{Tools: map[string]durable.ToolPolicy{"guarded": {Retry: retry}, "nosuch": {Retry: retry}}})
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
			h := result(t, e)
			if n := len(at.of(tt.call)); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
			if ran != 0 {
				t.Errorf("the handler ran %d times", ran)
			}
			if !h[2].IsError || !strings.Contains(h[2].Text, tt.text) {
				t.Errorf("tool message %+v, want an error naming %q", h[2], tt.text)
			}
		})
	}
}

// TestCallAnswersAtItsDeadline: the call activity answers when its context
// ends, even while the tool's handler ignores its context, so a handler
// cannot hold an activity past the timeout Temporal gave it.
func TestCallAnswersAtItsDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	reg := newRegistry(t, tool.New("deaf", "Ignores its context.", func(context.Context, pathArgs) (string, error) {
		<-release
		return "late", nil
	}))
	a := durable.New(agenttest.NewScript(), reg, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.Call(ctx, durable.CallInput{Call: agent.ToolCall{ID: "c1", Name: "deaf", Args: []byte(`{"path":"a"}`)}})
		done <- err
	}()
	select {
	case err := <-done:
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != durable.ErrTypeFailed {
			t.Errorf("Call = %v, want an application error of type %s", err, durable.ErrTypeFailed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Call did not answer at its context's deadline while the handler ignored it")
	}
}
