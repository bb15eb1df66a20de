package durable_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
)

// The environment of a worker process: the test binary runs as a worker,
// and nothing else, when workerHostPort is set.
const (
	workerHostPort  = "HANDS_DURABLE_WORKER_HOSTPORT"
	workerNamespace = "HANDS_DURABLE_WORKER_NAMESPACE"
	workerQueue     = "HANDS_DURABLE_WORKER_QUEUE"
	workerLog       = "HANDS_DURABLE_WORKER_LOG" // each deletion appends a line
	// workerMCP, when set, is the URL of the MCP server whose tools the
	// worker runs, with thinker as its model, in place of the log's
	// deletions and deleter.
	workerMCP = "HANDS_DURABLE_WORKER_MCP"
)

func TestMain(m *testing.M) {
	if os.Getenv(replicaDir) != "" {
		if err := runReplica(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(workerHostPort) != "" {
		if err := runWorker(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if err := devtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// deleter is a model that deletes the file the user names, then says it is
// done. It answers from the request alone, so that a new process answers
// as the old one would.
type deleter struct{}

func (deleter) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleTool {
		return &agent.Response{Text: "done: " + last.Text, FinishReason: agent.FinishStop}, nil
	}
	path := strings.TrimPrefix(last.Text, "delete ")
	return &agent.Response{
		Calls:        []agent.ToolCall{{ID: "c1", Name: "delete", Args: []byte(fmt.Sprintf(`{"path":%q}`, path))}},
		FinishReason: agent.FinishToolCalls,
	}, nil
}

// logRegistry returns a registry whose destructive delete appends a line
// to the file at log for each time it runs.
func logRegistry(log string) (*tool.Registry, error) {
	del := tool.New("delete", "Delete a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "delete %s\n", a.Path); err != nil {
			return "", err
		}
		return "deleted " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	return tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{del}})
}

// thinker is a model that removes the file the user names through the
// MCP server's fs_remove, with provider state on its turn and on its call,
// and then says whether that state came back to it byte for byte. It
// answers from the request alone, so that a new process answers as the old
// one would.
type thinker struct{}

func (thinker) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != agent.RoleTool {
		path := strings.TrimPrefix(last.Text, "remove ")
		call := agent.ToolCall{ID: "c1", Name: "fs_remove", Args: []byte(fmt.Sprintf(`{"path":%q}`, path)), State: geminiCall}
		return &agent.Response{Text: "let me", State: anthropicThinking, Calls: []agent.ToolCall{call}, FinishReason: agent.FinishToolCalls}, nil
	}
	turn := req.Messages[len(req.Messages)-2]
	if !bytes.Equal(turn.State, anthropicThinking) || len(turn.Calls) != 1 || !bytes.Equal(turn.Calls[0].State, geminiCall) {
		return &agent.Response{Text: fmt.Sprintf("state lost: %s, calls %+v", turn.State, turn.Calls), FinishReason: agent.FinishStop}, nil
	}
	return &agent.Response{Text: "state kept; " + last.Text, FinishReason: agent.FinishStop}, nil
}

// runWorker runs a worker until the process is killed.
func runWorker() error {
	var model agent.Model = deleter{}
	var reg *tool.Registry
	var err error
	if url := os.Getenv(workerMCP); url != "" {
		var mc *mcpclient.Client
		model = thinker{}
		reg, mc, err = remoteRegistry(context.Background(), mcpclient.HTTP(url, nil))
		if err == nil {
			defer mc.Close()
		}
	} else {
		reg, err = logRegistry(os.Getenv(workerLog))
	}
	if err != nil {
		return err
	}
	c, err := client.Dial(client.Options{HostPort: os.Getenv(workerHostPort), Namespace: os.Getenv(workerNamespace)})
	if err != nil {
		return err
	}
	defer c.Close()
	w := worker.New(c, os.Getenv(workerQueue), worker.Options{})
	durable.New(model, reg, &durable.Options{NeedsApproval: agent.Destructive(reg)}).Register(w)
	return w.Run(worker.InterruptCh())
}

// startWorker starts a worker process, the test binary run again, with
// env (NAME=value) added to its environment.
func startWorker(t *testing.T, s devtest.Server, queue string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		workerHostPort+"="+s.HostPort,
		workerNamespace+"="+s.Namespace,
		workerQueue+"="+queue)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// TestWorkerKilledWhilePaused: a run pauses for approval, its worker
// process is killed, a new one starts, the approval arrives, and the run
// completes with the tool run once.
func TestWorkerKilledWhilePaused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	ts := devtest.Start(t)
	c := ts.Dial(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	log := t.TempDir() + "/deletions"
	const queue = "hands-e2e"

	first := startWorker(t, ts, queue, workerLog+"="+log)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "delete-a", TaskQueue: queue},
		durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("delete a")}})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(ctx, t, c, run.GetID(), nil)
	if len(pending) != 1 || pending[0].Call.Name != "delete" || pending[0].Kind != agent.PendingApproval {
		t.Fatalf("pending = %+v, want the approval of delete", pending)
	}

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	startWorker(t, ts, queue, workerLog+"="+log)

	// A decision Resume would refuse is refused here too, and the run
	// still waits.
	err = decideRemote(ctx, c, run.GetID(), agent.Answer(pending[0].Call.ID, "yes"))
	if aerr, ok := errors.AsType[*temporal.ApplicationError](err); !ok || aerr.Type() != durable.ErrTypeInvalidDecision {
		t.Errorf("an answer to an approval: %v, want an application error of type %s", err, durable.ErrTypeInvalidDecision)
	}
	if err := decideRemote(ctx, c, run.GetID(), agent.Approve(pending[0].Call.ID)); err != nil {
		t.Fatalf("approve: %v", err)
	}
	// The approval is used up: a second one is refused.
	err = decideRemote(ctx, c, run.GetID(), agent.Approve(pending[0].Call.ID))
	if err == nil {
		t.Error("a second approval of the same call was accepted")
	}

	var h agent.History
	if err := run.Get(ctx, &h); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := h[len(h)-1].Text; got != "done: deleted a" {
		t.Errorf("last message %q, want done: deleted a", got)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "delete a\n" {
		t.Errorf("deletions:\n%s\nwant exactly one, of a", data)
	}
}

// TestRemoteToolAcrossWorkers: a run whose model keeps provider state
// calls a destructive tool of an MCP server, reached over streamable HTTP
// by each worker process through mcpclient. The run pauses for approval;
// the history read while it waits holds the state byte for byte; the
// worker is killed, a new one connects to the MCP server, the approval
// arrives, the server runs the call once, and the model's next turn
// receives the state byte for byte.
func TestRemoteToolAcrossWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	f := &remoteFiles{}
	mcpServer := httptest.NewServer(f.server(t).HTTPHandler(nil))
	t.Cleanup(mcpServer.Close)
	ts := devtest.Start(t)
	c := ts.Dial(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const queue = "hands-e2e-remote"

	first := startWorker(t, ts, queue, workerMCP+"="+mcpServer.URL)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "remove-a", TaskQueue: queue},
		durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("remove a")}})
	if err != nil {
		t.Fatal(err)
	}
	pending := waitPending(ctx, t, c, run.GetID(), nil)
	if len(pending) != 1 || pending[0].Call.Name != "fs_remove" || pending[0].Kind != agent.PendingApproval {
		t.Fatalf("pending = %+v, want the approval of fs_remove", pending)
	}
	v, err := c.QueryWorkflow(ctx, run.GetID(), "", durable.QueryHistory)
	if err != nil {
		t.Fatal(err)
	}
	var paused agent.History
	if err := v.Get(&paused); err != nil {
		t.Fatal(err)
	}
	if len(paused) != 2 || !bytes.Equal(paused[1].State, anthropicThinking) || len(paused[1].Calls) != 1 || !bytes.Equal(paused[1].Calls[0].State, geminiCall) {
		t.Errorf("the history while the run waits is %+v, want the model's turn with its state and its call's, byte for byte", paused)
	}

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	startWorker(t, ts, queue, workerMCP+"="+mcpServer.URL)
	if err := decideRemote(ctx, c, run.GetID(), agent.Approve(pending[0].Call.ID)); err != nil {
		t.Fatalf("approve: %v", err)
	}
	var h agent.History
	if err := run.Get(ctx, &h); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := h[len(h)-1].Text; got != "state kept; removed a" {
		t.Errorf("last message %q, want state kept; removed a", got)
	}
	if got := f.calls(); !slices.Equal(got, []string{"remove a"}) {
		t.Errorf("the MCP server ran %q, want [remove a], once", got)
	}
}

// waitPending queries the run until a call waits for a person, and one
// of the calls that wait is as want says (any, when want is nil).
func waitPending(ctx context.Context, t *testing.T, c client.Client, id string, want func(agent.Pending) bool) []agent.Pending {
	t.Helper()
	for {
		v, err := c.QueryWorkflow(ctx, id, "", durable.QueryPending)
		if err == nil {
			var pending []agent.Pending
			if err := v.Get(&pending); err != nil {
				t.Fatal(err)
			}
			if len(pending) > 0 && (want == nil || slices.ContainsFunc(pending, want)) {
				return pending
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no call waits: %v (last query error: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// decideRemote sends d and waits for the Update to be accepted or refused.
func decideRemote(ctx context.Context, c client.Client, id string, d agent.Decision) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   id,
		UpdateName:   durable.UpdateDecide,
		Args:         []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, nil)
}
