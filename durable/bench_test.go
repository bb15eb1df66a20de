package durable_test

import (
	"context"
	"fmt"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
)

// benchTurns is how many turns a benchmarked run takes: each but the last
// calls the read tool once, and the last answers.
const benchTurns = 5

// turnModel answers as a script does, its turn chosen by the number of
// assistant messages in the request, so that one model serves runs that
// interleave (a worker's), and each run's turns are the same.
type turnModel []agent.Response

func (m turnModel) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	n := 0
	for _, msg := range req.Messages {
		if msg.Role == agent.RoleAssistant {
			n++
		}
	}
	if n >= len(m) {
		return nil, fmt.Errorf("turn %d of a script of %d", n+1, len(m))
	}
	r := m[n]
	return &r, nil
}

func benchModel() turnModel {
	var m turnModel
	for i := 1; i < benchTurns; i++ {
		m = append(m, turnWith(agenttest.Call("", "read", fmt.Sprintf(`{"path":"f%d"}`, i))))
	}
	return append(m, agent.Response{Text: "read them all", FinishReason: agent.FinishStop})
}

// BenchmarkTurn measures a run of benchTurns turns (each a model turn and
// a read-only call, but the last) on the same model and tools: agent.Run
// in memory, the workflow in the SDK's test environment, and the workflow
// on a Temporal server with a worker in this process. ns/turn is the time
// of a run divided by its turns; the difference between agent.Run's and
// the server's is what durability costs a turn.
func BenchmarkTurn(b *testing.B) {
	input := agent.History{agent.UserText("read f1 to f4")}
	check := func(b *testing.B, h agent.History) {
		if len(h) != 2*benchTurns {
			b.Fatalf("history of %d messages, want %d", len(h), 2*benchTurns)
		}
	}
	perTurn := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
	}

	b.Run("agent.Run", func(b *testing.B) {
		reg := (&files{}).registry(b)
		b.ReportAllocs()
		for b.Loop() {
			h, err := agent.Run(b.Context(), benchModel(), reg, input, nil)
			if err != nil {
				b.Fatal(err)
			}
			check(b, h)
		}
		perTurn(b)
	})

	b.Run("testsuite", func(b *testing.B) {
		reg := (&files{}).registry(b)
		a := durable.New(benchModel(), reg, nil)
		b.ReportAllocs()
		for b.Loop() {
			var s testsuite.WorkflowTestSuite
			s.SetLogger(quiet)
			e := s.NewTestWorkflowEnvironment()
			a.Register(e)
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: input})
			if err := e.GetWorkflowError(); err != nil {
				b.Fatal(err)
			}
			var h agent.History
			if err := e.GetWorkflowResult(&h); err != nil {
				b.Fatal(err)
			}
			check(b, h)
		}
		perTurn(b)
	})

	b.Run("server", func(b *testing.B) {
		srv := devtest.Start(b)
		c, err := client.Dial(client.Options{HostPort: srv.HostPort, Namespace: srv.Namespace, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		const queue = "hands-bench"
		w := worker.New(c, queue, worker.Options{})
		durable.New(benchModel(), (&files{}).registry(b), nil).Register(w)
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			run, err := c.ExecuteWorkflow(b.Context(), client.StartWorkflowOptions{ID: fmt.Sprintf("bench-%d-%d", b.N, i), TaskQueue: queue},
				durable.WorkflowName, durable.Input{History: input})
			if err != nil {
				b.Fatal(err)
			}
			var h agent.History
			if err := run.Get(b.Context(), &h); err != nil {
				b.Fatal(err)
			}
			check(b, h)
		}
		perTurn(b)
	})
}
