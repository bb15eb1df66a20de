package durable_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
	"github.com/hands-go/hands/tool"
)

// quiet is a logger for the replayer, which logs a replay's every step and
// the workflow panics it turns into errors.
var quiet = log.NewStructuredLogger(slog.New(slog.DiscardHandler))

var update = flag.Bool("update", false, "record the workflow histories in testdata from runs on a Temporal server")

// A step is a decision a person sends while the run waits, and whether
// the Update's validator refuses it ("" when it is accepted, else the
// refusal's type).
type step struct {
	waits   string            // the call that waits when it is sent; "" for d's
	kind    agent.PendingKind // what that call waits for
	d       agent.Decision
	refused string
}

// A scenario is a run whose workflow history testdata holds: the model's
// turns and the people's decisions.
type scenario struct {
	name  string
	turns []agent.Response
	steps []step
	// before is the change of the workflow (workflow.GetVersion) before
	// which the history was recorded, "" for none: -update records it no
	// more, and the workflow must go on replaying it, as runs started
	// then go on after a deploy.
	before string
}

var scenarios = []scenario{
	{
		name: "approval",
		turns: []agent.Response{
			turnWith(agenttest.Call("c1", "delete", `{"path":"a"}`)),
			{Text: "deleted a", FinishReason: agent.FinishStop},
		},
		steps:  []step{{kind: agent.PendingApproval, d: agent.Approve("c1")}},
		before: "hands.turn-deltas",
	},
	{
		name: "ask",
		turns: []agent.Response{
			turnWith(agenttest.Call("c1", "confirm", `{"path":"a"}`)),
			{Text: "a is touched", FinishReason: agent.FinishStop},
		},
		steps: []step{
			{kind: agent.PendingAnswer, d: agent.Approve("c1"), refused: durable.ErrTypeInvalidDecision},
			{kind: agent.PendingAnswer, d: agent.Answer("c1", "yes")},
		},
		before: "hands.turn-deltas",
	},
	{
		name: "refused",
		turns: []agent.Response{
			turnWith(agenttest.Call("c1", "delete", `{"path":"a"}`), agenttest.Call("c2", "delete", `{"path":"b"}`)),
			{Text: "kept a, deleted b2", FinishReason: agent.FinishStop},
		},
		steps: []step{
			{kind: agent.PendingApproval, d: agent.Edit("c1", json.RawMessage(`{"path":""}`)), refused: durable.ErrTypeInvalidEdit},
			{kind: agent.PendingApproval, d: agent.Answer("c1", "yes"), refused: durable.ErrTypeInvalidDecision},
			{waits: "c1", kind: agent.PendingApproval, d: agent.Approve("c2"), refused: durable.ErrTypeStaleDecision},
			{kind: agent.PendingApproval, d: agent.Reject("c1", "keep a")},
			{kind: agent.PendingApproval, d: agent.Edit("c2", json.RawMessage(`{"path":"b2"}`))},
		},
		before: "hands.turn-deltas",
	},
	{
		name:   "several-calls",
		turns:  severalCalls.turns,
		steps:  severalCalls.steps,
		before: "hands.turn-deltas",
	},
	{
		name:  "deltas",
		turns: severalCalls.turns,
		steps: severalCalls.steps,
	},
}

// severalCalls is a run of several turns, each of several calls, of which
// some wait for people.
var severalCalls = scenario{
	turns: []agent.Response{
		turnWith(
			agenttest.Call("c1", "read", `{"path":"a"}`),
			agenttest.Call("c2", "read", `{"path":"b"}`),
			agenttest.Call("c3", "delete", `{"path":"c"}`),
			agenttest.Call("c4", "confirm", `{"path":"d"}`),
		),
		turnWith(agenttest.Call("c5", "read", `{"path":"e"}`), agenttest.Call("c6", "flaky", `{"path":"f"}`)),
		{Text: "all done", FinishReason: agent.FinishStop},
	},
	steps: []step{
		{kind: agent.PendingApproval, d: agent.Approve("c3")},
		{kind: agent.PendingAnswer, d: agent.Answer("c4", "yes")},
	},
}

// scenarioAgent returns the Agent the scenarios run on: model, which a
// replay does not need (it runs no activity), the tools of files, where a
// deletion waits for approval, and opts.
func scenarioAgent(t *testing.T, model agent.Model, opts *durable.Options) *durable.Agent {
	if opts == nil {
		opts = &durable.Options{}
	}
	opts.NeedsApproval = func(_ context.Context, c tool.Call) bool { return c.Name == "delete" }
	return durable.New(model, (&files{}).registry(t), opts)
}

func historyFile(name string) string { return filepath.Join("testdata", name+".history.json") }

// TestReplay replays the recorded histories of the scenarios through the
// worker's replayer: a change to the workflow that would break the runs
// under way fails it. It needs no server; with -update, it first records
// the histories again from runs on one, but for those recorded before a
// change of the workflow, which it keeps.
func TestReplay(t *testing.T) {
	if *update {
		record(t)
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			scenarioAgent(t, nil, nil).Register(r)
			if err := r.ReplayWorkflowHistoryFromJSONFile(quiet, historyFile(sc.name)); err != nil {
				t.Fatalf("replay: %v", err)
			}
			// Only the accepted decisions are in the history: a refused one
			// was never recorded.
			var want []agent.Decision
			for _, s := range sc.steps {
				if s.refused == "" {
					want = append(want, s.d)
				}
			}
			if got := acceptedDecisions(t, loadHistory(t, historyFile(sc.name))); !reflect.DeepEqual(got, want) {
				t.Errorf("the history records the decisions %+v, want %+v", got, want)
			}
		})
	}
}

// TestReplayRefusesChanges: the replayer reports a workflow that would do
// other than what a recorded run did, so TestReplay fails on such a
// change. Each case registers a changed workflow under WorkflowName.
func TestReplayRefusesChanges(t *testing.T) {
	for _, tt := range []struct {
		name     string
		workflow func(t *testing.T) any
	}{
		{"an activity before the first turn", func(t *testing.T) any {
			a := scenarioAgent(t, nil, nil)
			return func(ctx workflow.Context, in durable.Input) (agent.History, error) {
				ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
				if err := workflow.ExecuteActivity(ctx, "hands.Audit", in).Get(ctx, nil); err != nil {
					return nil, err
				}
				return a.Run(ctx, in)
			}
		}},
		{"a timer before the first turn", func(t *testing.T) any {
			a := scenarioAgent(t, nil, nil)
			return func(ctx workflow.Context, in durable.Input) (agent.History, error) {
				if err := workflow.Sleep(ctx, time.Second); err != nil {
					return nil, err
				}
				return a.Run(ctx, in)
			}
		}},
		{"a worker with another turn limit", func(t *testing.T) any {
			return scenarioAgent(t, nil, &durable.Options{MaxTurns: 1}).Run
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(tt.workflow(t), workflow.RegisterOptions{Name: durable.WorkflowName})
			err := r.ReplayWorkflowHistoryFromJSONFile(quiet, historyFile("several-calls"))
			if err == nil {
				t.Fatal("the changed workflow replayed the recorded history without an error")
			}
			// TMPRL1100 is the Go SDK's code for a nondeterminism error,
			// rather than, say, a history that cannot be read.
			if !strings.Contains(err.Error(), "[TMPRL1100]") {
				t.Errorf("replay: %v, want a nondeterminism error (TMPRL1100)", err)
			}
		})
	}
}

// TestReplayKeepsOtherPolicies: a worker whose tool policies, tools'
// annotations and timeouts, or approval rule differ from those a run was
// recorded with still replays it. Temporal matches a recorded activity by
// its type and ID, not its options, and the approval rule's answers are in
// the turns' recorded results; so a remote tool whose server changed its
// annotations or timeout, or a deploy that changes a policy, affects only
// the calls not yet scheduled.
func TestReplayKeepsOtherPolicies(t *testing.T) {
	retry := &temporal.RetryPolicy{MaximumAttempts: 9}
	reg := newRegistry(t,
		tool.New("read", "Read.", echo, tool.WithTimeout(time.Hour)),
		tool.New("delete", "Delete.", echo, tool.WithAnnotations(tool.Annotations{ReadOnly: true})),
		tool.New("confirm", "Confirm.", echo, tool.WithAnnotations(tool.Annotations{Idempotent: true})),
	)
	a := durable.New(nil, reg, &durable.Options{
		NeedsApproval: func(context.Context, tool.Call) bool { return false },
		Tools: map[string]durable.ToolPolicy{
			"read":  {Timeout: 3 * time.Hour, HeartbeatTimeout: time.Minute, Retry: retry},
			"flaky": {Retry: retry},
		},
		ModelTimeout: time.Hour,
		ModelRetry:   retry,
	})
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			a.Register(r)
			if err := r.ReplayWorkflowHistoryFromJSONFile(quiet, historyFile(sc.name)); err != nil {
				t.Fatalf("replay: %v", err)
			}
		})
	}
}

func loadHistory(t *testing.T, path string) *historypb.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// acceptedDecisions returns the decisions of the UpdateDecide Updates
// that h records as accepted.
func acceptedDecisions(t *testing.T, h *historypb.History) []agent.Decision {
	t.Helper()
	var out []agent.Decision
	for _, ev := range h.Events {
		if ev.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED {
			continue
		}
		req := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest()
		if req.GetInput().GetName() != durable.UpdateDecide {
			t.Errorf("an accepted Update %q", req.GetInput().GetName())
			continue
		}
		for _, p := range req.GetInput().GetArgs().GetPayloads() {
			var d agent.Decision
			if err := json.Unmarshal(p.GetData(), &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
	}
	return out
}

// record runs each scenario on a Temporal server, with a worker in this
// process, sends its decisions, and writes its workflow history to
// testdata.
func record(t *testing.T) {
	c := devtest.Start(t).Dial(t)
	for _, sc := range scenarios {
		if sc.before != "" {
			continue // recorded by an earlier workflow, for good
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		queue := "hands-replay-" + sc.name
		w := worker.New(c, queue, worker.Options{})
		scenarioAgent(t, agenttest.NewScript(sc.turns...), nil).Register(w)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "replay-" + sc.name, TaskQueue: queue},
			durable.WorkflowName, durable.Input{History: agent.History{agent.UserText(sc.name)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sc.steps {
			waits := s.waits
			if waits == "" {
				waits = s.d.CallID
			}
			waitPending(ctx, t, c, run.GetID(), func(p agent.Pending) bool { return p.Call.ID == waits && p.Kind == s.kind })
			err := decideRemote(ctx, c, run.GetID(), s.d)
			aerr, _ := errors.AsType[*temporal.ApplicationError](err)
			switch {
			case s.refused == "" && err != nil:
				t.Fatalf("%s: %+v: %v", sc.name, s.d, err)
			case s.refused != "" && (aerr == nil || aerr.Type() != s.refused):
				t.Fatalf("%s: %+v: %v, want it refused as %s", sc.name, s.d, err, s.refused)
			}
		}
		if err := run.Get(ctx, nil); err != nil {
			t.Fatalf("%s: %v", sc.name, err)
		}
		w.Stop()
		h := &historypb.History{}
		for it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT); it.HasNext(); {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			h.Events = append(h.Events, ev)
		}
		data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(historyFile(sc.name), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
