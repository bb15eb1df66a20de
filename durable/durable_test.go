package durable_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

type pathArgs struct {
	Path string `json:"path" tool:"minLength=1"`
}

// files is a small file system with a destructive tool and a tool that
// asks, for approval tests. It records the calls its handlers ran.
type files struct {
	mu  sync.Mutex
	ran []string
}

func (f *files) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, s)
}

func (f *files) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ran)
}

func (f *files) registry(t testing.TB) *tool.Registry {
	read := tool.New("read", "Read a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("read " + a.Path)
		tool.Progress(ctx, "reading")
		return "contents of " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{ReadOnly: true}))
	del := tool.New("delete", "Delete a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("delete " + a.Path)
		return "deleted " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	confirm := tool.New("confirm", "Ask before touching a file.", func(ctx context.Context, a pathArgs) (string, error) {
		answer, err := tool.Ask(ctx, "touch "+a.Path+"?")
		if err != nil {
			return "", err
		}
		f.record("confirm " + a.Path + " " + answer)
		return "told " + answer, nil
	})
	flaky := 0
	fail := tool.New("flaky", "Fails twice, then works.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("flaky " + a.Path)
		if flaky++; flaky < 3 {
			return "", errors.New("disk busy")
		}
		return "done", nil
	}, tool.WithAnnotations(tool.Annotations{Idempotent: true}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{read, del, confirm, fail}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// env returns a test workflow environment with an Agent on the scripted
// model and f's tools, where delete needs approval.
func env(t *testing.T, f *files, model agent.Model) *testsuite.TestWorkflowEnvironment {
	e, _ := envWith(t, model, f.registry(t), &durable.Options{
		NeedsApproval: func(_ context.Context, c tool.Call) bool { return c.Name == "delete" },
	})
	return e
}

func turnWith(calls ...agent.ToolCall) agent.Response {
	return agent.Response{Calls: calls, FinishReason: agent.FinishToolCalls}
}

func result(t *testing.T, e *testsuite.TestWorkflowEnvironment) agent.History {
	t.Helper()
	if !e.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := e.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var h agent.History
	if err := e.GetWorkflowResult(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// decide sends d after delay and records whether the validator refused it.
func decide(e *testsuite.TestWorkflowEnvironment, delay time.Duration, d agent.Decision, refused *error) {
	e.RegisterDelayedCallback(func() {
		e.UpdateWorkflow(durable.UpdateDecide, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) {
				if refused != nil {
					*refused = err
				}
			},
			OnAccept:   func() {},
			OnComplete: func(any, error) {},
		}, d)
	}, delay)
}

func TestRunWithoutPeople(t *testing.T) {
	f := &files{}
	model := agenttest.NewScript(
		turnWith(agenttest.Call("c1", "read", `{"path":"a"}`)),
		agent.Response{Text: "a holds its contents", FinishReason: agent.FinishStop},
	)
	e := env(t, f, model)
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("read a")}})
	h := result(t, e)

	want, err := agent.Run(t.Context(), agenttest.NewScript(
		turnWith(agenttest.Call("c1", "read", `{"path":"a"}`)),
		agent.Response{Text: "a holds its contents", FinishReason: agent.FinishStop},
	), (&files{}).registry(t), agent.History{agent.UserText("read a")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("durable history:\n%+v\nwant agent.Run's:\n%+v", h, want)
	}
	if got := f.calls(); !reflect.DeepEqual(got, []string{"read a"}) {
		t.Errorf("ran %q, want [read a]", got)
	}
}

func TestApproval(t *testing.T) {
	for _, tt := range []struct {
		name     string
		decision agent.Decision
		ran      []string
		isError  bool
	}{
		{name: "approve", decision: agent.Approve("c1"), ran: []string{"delete a"}},
		{name: "edit", decision: agent.Edit("c1", []byte(`{"path":"b"}`)), ran: []string{"delete b"}},
		{name: "reject", decision: agent.Reject("c1", "keep it"), isError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &files{}
			e := env(t, f, agenttest.NewScript(
				turnWith(agenttest.Call("c1", "delete", `{"path":"a"}`)),
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			))
			e.RegisterDelayedCallback(func() {
				v, err := e.QueryWorkflow(durable.QueryPending)
				if err != nil {
					t.Error(err)
					return
				}
				var pending []agent.Pending
				if err := v.Get(&pending); err != nil {
					t.Error(err)
				}
				if len(pending) != 1 || pending[0].Kind != agent.PendingApproval || pending[0].Call.ID != "c1" {
					t.Errorf("pending = %+v, want the approval of c1", pending)
				}
				if len(f.calls()) != 0 {
					t.Errorf("ran %q before the approval", f.calls())
				}
			}, time.Minute)
			var refused error
			decide(e, 2*time.Minute, tt.decision, &refused)
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("delete a")}})
			h := result(t, e)
			if refused != nil {
				t.Fatalf("decision refused: %v", refused)
			}
			if got := f.calls(); !reflect.DeepEqual(got, tt.ran) {
				t.Errorf("ran %q, want %q", got, tt.ran)
			}
			msg := h[2]
			if msg.Role != agent.RoleTool || msg.CallID != "c1" || msg.IsError != tt.isError {
				t.Errorf("tool message = %+v, want c1's with isError %v", msg, tt.isError)
			}
			if tt.decision.Args != nil && string(h[1].Calls[0].Args) != string(tt.decision.Args) {
				t.Errorf("recorded args %s, want the edit %s", h[1].Calls[0].Args, tt.decision.Args)
			}
		})
	}
}

// TestRefusedDecisions: a decision Resume would refuse is refused by the
// Update's validator, never recorded, and the run still waits for a good
// one. (Edited arguments that are not JSON never reach it: the sender's
// data converter cannot encode a json.RawMessage that is not JSON.)
func TestRefusedDecisions(t *testing.T) {
	for _, tt := range []struct {
		name     string
		decision agent.Decision
		errType  string
		issues   []string // path and keyword of each issue of an invalid edit
	}{
		{name: "unknown call", decision: agent.Approve("c9"), errType: durable.ErrTypeStaleDecision},
		{name: "answer to an approval", decision: agent.Answer("c1", "yes"), errType: durable.ErrTypeInvalidDecision},
		{name: "unknown verdict", decision: agent.Decision{CallID: "c1", Verdict: "maybe"}, errType: durable.ErrTypeInvalidDecision},
		{name: "edit invalid for the schema", decision: agent.Edit("c1", []byte(`{"path":""}`)), errType: durable.ErrTypeInvalidEdit, issues: []string{"/path minLength"}},
		{name: "edit missing a property", decision: agent.Edit("c1", []byte(`{}`)), errType: durable.ErrTypeInvalidEdit, issues: []string{" required"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &files{}
			e := env(t, f, agenttest.NewScript(
				turnWith(agenttest.Call("c1", "delete", `{"path":"a"}`)),
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			))
			var refused, refusedGood error
			decide(e, time.Minute, tt.decision, &refused)
			decide(e, 2*time.Minute, agent.Approve("c1"), &refusedGood)
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("delete a")}})
			result(t, e)
			if refused == nil {
				t.Fatalf("UpdateDecide(%+v) was accepted, want it refused", tt.decision)
			}
			if refusedGood != nil {
				t.Fatalf("the good decision after it was refused: %v", refusedGood)
			}
			aerr, ok := errors.AsType[*temporal.ApplicationError](refused)
			if !ok || aerr.Type() != tt.errType {
				t.Fatalf("refused with %v, want an application error of type %s", refused, tt.errType)
			}
			if tt.errType == durable.ErrTypeInvalidEdit {
				var detail []tool.Issue
				if err := aerr.Details(&detail); err != nil {
					t.Fatalf("the refusal's detail: %v", err)
				}
				var issues []string
				for _, is := range detail {
					issues = append(issues, is.Path+" "+is.Keyword)
				}
				if !reflect.DeepEqual(issues, tt.issues) {
					t.Errorf("the refusal's issues = %q, want %q", issues, tt.issues)
				}
			}
			if got := f.calls(); !reflect.DeepEqual(got, []string{"delete a"}) {
				t.Errorf("ran %q, want [delete a]", got)
			}
		})
	}
}

func TestAsk(t *testing.T) {
	f := &files{}
	e := env(t, f, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "confirm", `{"path":"a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	))
	var refused error
	decide(e, time.Minute, agent.Approve("c1"), &refused)
	decide(e, 2*time.Minute, agent.Answer("c1", "yes"), nil)
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("confirm a")}})
	h := result(t, e)
	if refused == nil {
		t.Error("an approval of a call that waits for an answer was accepted")
	}
	if got := f.calls(); !reflect.DeepEqual(got, []string{"confirm a yes"}) {
		t.Errorf("ran %q, want [confirm a yes]", got)
	}
	if h[2].Text != "told yes" {
		t.Errorf("tool message %+v, want told yes", h[2])
	}
}

func TestInvalidArgumentsAreNotRetried(t *testing.T) {
	f := &files{}
	e := env(t, f, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "read", `{"path":""}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	))
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("read")}})
	h := result(t, e)
	if !h[2].IsError {
		t.Errorf("tool message %+v, want the validation error the model reads", h[2])
	}
	if len(f.calls()) != 0 {
		t.Errorf("ran %q with invalid arguments", f.calls())
	}
}

func TestRetryPolicy(t *testing.T) {
	f := &files{}
	e := env(t, f, agenttest.NewScript(
		turnWith(agenttest.Call("c1", "flaky", `{"path":"a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	))
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
	h := result(t, e)
	if h[2].IsError || h[2].Text != "done" {
		t.Errorf("tool message %+v, want done after retries", h[2])
	}
	if got := len(f.calls()); got != 3 {
		t.Errorf("flaky ran %d times, want 3 (an idempotent tool is retried)", got)
	}
}
