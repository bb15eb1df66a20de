package durable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
)

var growthTurns = flag.String("growth-turns", "10,100", "the run lengths, in turns, whose workflow histories TestHistoryGrowsLinearly measures, comma-separated, shortest first")

// reader calls the read tool once a turn, on a file named after the turn,
// until its run has turns turns, and then answers. It reads only the
// request, so that any worker answers as another would.
type reader struct{ turns int }

func (m reader) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	n := 0
	for _, msg := range req.Messages {
		if msg.Role == agent.RoleAssistant {
			n++
		}
	}
	if n+1 >= m.turns {
		return &agent.Response{Text: fmt.Sprintf("read %d files", n), FinishReason: agent.FinishStop}, nil
	}
	return &agent.Response{
		Calls:        []agent.ToolCall{{Name: "read", Args: fmt.Appendf(nil, `{"path":"file-%d"}`, n+1)}},
		FinishReason: agent.FinishToolCalls,
	}, nil
}

// historyBytes returns the size of the events of a workflow's history, as
// the server keeps them.
func historyBytes(ctx context.Context, t testing.TB, c client.Client, id string) int {
	t.Helper()
	n := 0
	for it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT); it.HasNext(); {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		n += proto.Size(ev)
	}
	return n
}

// TestHistoryGrowsLinearly runs the workflow for 10 and 100 turns (or the
// lengths -growth-turns gives), each turn a call of the read tool, on a
// Temporal server, and checks that its history grows in proportion to its
// turns: the bytes a turn adds to the history do not grow with the turns
// before it. A turn that sent the whole history to its activity would add
// a tenth of the history to it at 10 turns and a hundredth at 100, and
// the history of 100 turns would be tens of times that of 10.
func TestHistoryGrowsLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	var lengths []int
	for f := range strings.SplitSeq(*growthTurns, ",") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 2 {
			t.Fatalf("-growth-turns: %q is not a number of turns of 2 or more", f)
		}
		lengths = append(lengths, n)
	}
	c := devtest.Shared(t).Dial(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	perTurn := make([]float64, len(lengths))
	for i, turns := range lengths {
		queue := fmt.Sprintf("hands-growth-%d", turns)
		w := worker.New(c, queue, worker.Options{})
		durable.New(reader{turns}, (&files{}).registry(t), nil).Register(w)
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("growth-%d", turns)
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue},
			durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("read the files")}, MaxTurns: turns})
		if err != nil {
			t.Fatal(err)
		}
		var h agent.History
		err = run.Get(ctx, &h)
		w.Stop()
		if err != nil {
			t.Fatalf("%d turns: %v", turns, err)
		}
		if len(h) != 2*turns {
			t.Fatalf("%d turns: a history of %d messages, want %d", turns, len(h), 2*turns)
		}
		size := historyBytes(ctx, t, c, id)
		perTurn[i] = float64(size) / float64(turns)
		t.Logf("%d turns: %d bytes of history, %.0f a turn", turns, size, perTurn[i])
	}
	// What a turn adds is the same at any length; the first and last
	// messages, and the run's start and end, make the shorter run's turns
	// a little dearer.
	if first, last := perTurn[0], perTurn[len(perTurn)-1]; last > 1.25*first {
		t.Errorf("a turn of a run of %d turns adds %.0f bytes to its history, of a run of %d turns %.0f: the history grows faster than the turns",
			lengths[len(lengths)-1], last, lengths[0], first)
	}
}

// TestTurnOnAnotherWorker: a turn whose worker does not hold the run's
// earlier messages — the worker that ran the turns before it was stopped
// while the run waited for a person, and another took over — asks the run
// for them, and the model reads the whole history.
func TestTurnOnAnotherWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	c := devtest.Shared(t).Dial(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	turns := []agent.Response{
		turnWith(agenttest.Call("c1", "read", `{"path":"a"}`)),
		turnWith(agenttest.Call("c2", "delete", `{"path":"b"}`)),
		{Text: "read a, deleted b", FinishReason: agent.FinishStop},
	}
	const queue = "hands-restart"
	first := worker.New(c, queue, worker.Options{})
	scenarioAgent(t, agenttest.NewScript(turns[:2]...), nil).Register(first)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "restart", TaskQueue: queue},
		durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("read a, delete b")}})
	if err != nil {
		t.Fatal(err)
	}
	waitPending(ctx, t, c, run.GetID(), func(p agent.Pending) bool { return p.Call.ID == "c2" })
	first.Stop()

	model := agenttest.NewScript(turns[2:]...)
	second := worker.New(c, queue, worker.Options{})
	scenarioAgent(t, model, nil).Register(second)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	if err := decideRemote(ctx, c, run.GetID(), agent.Approve("c2")); err != nil {
		t.Fatal(err)
	}
	var h agent.History
	if err := run.Get(ctx, &h); err != nil {
		t.Fatal(err)
	}
	if len(h) != 6 || h[5].Text != "read a, deleted b" {
		t.Fatalf("history %+v, want 6 messages ending with the answer", h)
	}
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the second worker's model was asked %d times, want once", len(reqs))
	}
	got, err := json.Marshal(reqs[0].Messages)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(h[:5])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the second worker's model read:\n%s\nwant the history before its turn:\n%s", got, want)
	}
}
