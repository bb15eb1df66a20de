package durable_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

// TestTurnsAsAgentRun: the workflow ends a turn as agent.Run does — a
// malformed call, an incomplete response, the turn limit, a rejected
// call — with the same history, and with an application error whose
// message is agent.Run's error's.
func TestTurnsAsAgentRun(t *testing.T) {
	read := func(id string) agent.Response { return turnWith(agenttest.Call(id, "read", `{"path":"a"}`)) }
	stop := agent.Response{Text: "done", FinishReason: agent.FinishStop}
	for _, tt := range []struct {
		name     string
		turns    []agent.Response
		maxTurns int
		reject   string // the delete call a person rejects, with reason "keep it"
		errType  string // the workflow's error, "" for none
		want     error  // the sentinel agent.Run's error matches
	}{
		{name: "malformed call", turns: []agent.Response{{FinishReason: agent.FinishMalformedCall, FinishMessage: "bad JSON at 12"}, stop}},
		{name: "malformed call without a message", turns: []agent.Response{{FinishReason: agent.FinishMalformedCall}, stop}},
		{name: "malformed call at the turn limit", maxTurns: 1, turns: []agent.Response{{FinishReason: agent.FinishMalformedCall}, stop}, errType: durable.ErrTypeTurnLimit, want: agent.ErrTurnLimit},
		{name: "truncated", turns: []agent.Response{{Calls: []agent.ToolCall{agenttest.Call("c1", "read", `{"pa`)}, FinishReason: agent.FinishLength, RawFinishReason: "max_tokens"}}, errType: durable.ErrTypeIncomplete, want: agent.ErrTruncated},
		{name: "refused", turns: []agent.Response{read("c1"), {Text: "no", FinishReason: agent.FinishRefusal}}, errType: durable.ErrTypeIncomplete, want: agent.ErrRefused},
		{name: "turn limit", maxTurns: 2, turns: []agent.Response{read("c1"), read("c2"), stop}, errType: durable.ErrTypeTurnLimit, want: agent.ErrTurnLimit},
		{name: "rejected call", reject: "c1", turns: []agent.Response{turnWith(agenttest.Call("c1", "delete", `{"path":"a"}`)), stop}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			needsApproval := func(_ context.Context, c tool.Call) bool { return c.Name == "delete" }
			start := agent.History{agent.UserText("go")}

			want, err := agent.Run(t.Context(), agenttest.NewScript(tt.turns...), (&files{}).registry(t), start,
				&agent.Options{MaxTurns: tt.maxTurns, NeedsApproval: needsApproval})
			if in, ok := errors.AsType[*agent.Interrupt](err); ok && tt.reject != "" {
				want, err = agent.Resume(t.Context(), agenttest.NewScript(tt.turns[1:]...), (&files{}).registry(t), in,
					[]agent.Decision{agent.Reject(tt.reject, "keep it")}, &agent.Options{MaxTurns: tt.maxTurns, NeedsApproval: needsApproval})
			}
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("agent.Run: %v, want an error matching %v", err, tt.want)
			}

			e, _ := envWith(t, agenttest.NewScript(tt.turns...), (&files{}).registry(t), &durable.Options{MaxTurns: tt.maxTurns, NeedsApproval: needsApproval})
			if tt.reject != "" {
				decide(e, time.Minute, agent.Reject(tt.reject, "keep it"), nil)
			}
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: start})
			if tt.errType == "" {
				if got := result(t, e); !reflect.DeepEqual(got, want) {
					t.Errorf("workflow history:\n%+v\nwant agent.Run's:\n%+v", got, want)
				}
				return
			}
			aerr, ok := errors.AsType[*temporal.ApplicationError](e.GetWorkflowError())
			if !ok || aerr.Type() != tt.errType {
				t.Fatalf("workflow error: %v, want an application error of type %s", e.GetWorkflowError(), tt.errType)
			}
			if aerr.Message() != err.Error() {
				t.Errorf("workflow error:\n%s\nwant agent.Run's:\n%s", aerr.Message(), err.Error())
			}
		})
	}
}
