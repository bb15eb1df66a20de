package durable_test

import (
	"context"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

// TestLostWorker: a call whose worker stops (no heartbeat) or does not
// answer within its time limit ends with a tool message the model can act
// on — what happened, whether the call may have taken effect, and whether
// calling it again is safe, from the tool's annotations — and never with
// Temporal's own text. A tool that may not be safe to run twice is tried
// once; a read-only or idempotent one is tried again.
func TestLostWorker(t *testing.T) {
	heartbeat := temporal.NewHeartbeatTimeoutError()
	startToClose := temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	retry := &temporal.RetryPolicy{MaximumAttempts: 2, InitialInterval: time.Millisecond}
	for _, tt := range []struct {
		name     string
		an       tool.Annotations
		policy   durable.ToolPolicy
		lost     error
		attempts int
		want     string
	}{
		{
			name: "destructive, no heartbeat", an: tool.Annotations{Destructive: true},
			policy: durable.ToolPolicy{HeartbeatTimeout: 30 * time.Second}, lost: heartbeat, attempts: 1,
			want: "The call to act did not finish: the worker running it stopped reporting (no heartbeat for 30s). " +
				"It may or may not have taken effect, and it was not run again, since act may not be safe to run twice. " +
				"Check whether it took effect before you call it again.",
		},
		{
			name: "not annotated, past its time limit", lost: startToClose, attempts: 1,
			want: "The call to act did not finish: its worker stopped, or did not answer within the call's time limit of 1m0s. " +
				"It may or may not have taken effect, and it was not run again, since act may not be safe to run twice. " +
				"Check whether it took effect before you call it again.",
		},
		{
			name: "not annotated, retried by its policy", policy: durable.ToolPolicy{Retry: retry}, lost: startToClose, attempts: 2,
			want: "The call to act did not finish: its worker stopped, or did not answer within the call's time limit of 1m0s. " +
				"It was tried again, as its retry policy allows, and its last attempt ended this way; any attempt may have taken effect. " +
				"Check what it did before you call it again.",
		},
		{
			name: "read-only", an: tool.Annotations{ReadOnly: true},
			policy: durable.ToolPolicy{HeartbeatTimeout: time.Minute}, lost: heartbeat, attempts: 3,
			want: "The call to act did not finish: the worker running it stopped reporting (no heartbeat for 1m0s). " +
				"It was tried again, as its retry policy allows, and its last attempt ended this way. " +
				"act changes nothing, so you may call it again.",
		},
		{
			name: "idempotent", an: tool.Annotations{Idempotent: true, Destructive: true}, lost: startToClose, attempts: 3,
			want: "The call to act did not finish: its worker stopped, or did not answer within the call's time limit of 1m0s. " +
				"It was tried again, as its retry policy allows, and its last attempt ended this way. " +
				"act is idempotent, so you may call it again with the same arguments: if a call took effect, another has no further effect.",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := newRegistry(t, tool.New("act", "Act.", echo, tool.WithAnnotations(tt.an)))
			a := durable.New(agenttest.NewScript(
				turnWith(agenttest.Call("c1", "act", `{"path":"a"}`)),
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			), reg, &durable.Options{Tools: map[string]durable.ToolPolicy{"act": tt.policy}})
			// The worker's call activity ends as Temporal ends one whose
			// worker was lost.
			var s testsuite.WorkflowTestSuite
			e := s.NewTestWorkflowEnvironment()
			e.RegisterWorkflowWithOptions(a.Run, workflow.RegisterOptions{Name: durable.WorkflowName})
			e.RegisterActivityWithOptions(a.Turn, activity.RegisterOptions{Name: durable.TurnActivity})
			attempts := 0
			e.RegisterActivityWithOptions(func(context.Context, durable.CallInput) (agent.Message, error) {
				attempts++
				return agent.Message{}, tt.lost
			}, activity.RegisterOptions{Name: durable.CallActivity})
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("go")}})
			h := result(t, e)
			if attempts != tt.attempts {
				t.Errorf("%d attempts, want %d", attempts, tt.attempts)
			}
			msg := h[2]
			if msg.Role != agent.RoleTool || msg.CallID != "c1" || !msg.IsError {
				t.Fatalf("tool message %+v, want an error message of call c1", msg)
			}
			if msg.Text != tt.want {
				t.Errorf("the model reads:\n%s\nwant:\n%s", msg.Text, tt.want)
			}
			for _, internal := range []string{"activity", "scheduledEventID", durable.CallActivity, "Timeout"} {
				if strings.Contains(msg.Text, internal) {
					t.Errorf("the model reads %q, which shows Temporal's %q", msg.Text, internal)
				}
			}
		})
	}
}
