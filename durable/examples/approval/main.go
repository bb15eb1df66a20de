// Command approval runs an agent on Temporal whose destructive tool waits
// for a person's approval for as long as it takes: the run is a workflow,
// so it outlives the worker process that started it, and the approval can
// come from anywhere, days later.
//
// It needs a Temporal server. The durable module has one, which its tests
// use: internal/devserver, a server in memory on 127.0.0.1:7233 with the
// namespace "default", the address and namespace this example dials by
// default (-hostport and -namespace choose others; TEMPORAL_ADDRESS, when
// set, is the address of both). From the durable directory, build it once
// — a cold build takes about 520 CPU-seconds, ten minutes on a busy
// machine of two cores, and 2.6 GB of memory — into $(go env GOBIN), or else
// $(go env GOPATH)/bin, which your PATH should hold, and start it in the
// background, where it stays without the terminal until you kill the
// process it names; it returns once the server takes clients:
//
//	go install -C internal/devserver .
//	devserver -detach
//
// The server keeps nothing: its runs are gone once it stops. A Temporal
// CLI's development server (temporal server start-dev) serves as well.
//
// Then, from the durable directory, the whole run in one process — a
// worker, a run that pauses, the approval, the answer:
//
//	go run ./examples/approval
//
// Or across processes, as in production: a worker, a run started, the
// worker stopped and another started, then the decision; the worker and
// start print the command to run next:
//
//	go install ./examples/approval
//	approval worker &
//	approval start -id tidy 'remove notes.txt'
//	kill %1; approval worker &
//	approval approve -id tidy
//
// (or approval reject -id tidy 'keep it'). Start, approve and reject wait
// for the run to pause at most -wait (a minute by default), and give up at
// once, saying why, on an ID no run has or on a run that has ended.
//
// The files it uses: the worker's workspace, a directory from which the
// remove tool removes files — -dir names it, by default hands-approval in
// the system's temporary directory ($TMPDIR, else /tmp) — which the worker
// creates when it is missing, with a notes.txt in it for the run to
// remove; the one-process run makes a workspace of its own, and removes
// it. Nothing else: the run's state is the Temporal server's.
//
// The model is a stand-in that answers by rule, so that the example needs
// no API key; a program gives durable.New a provider's agent.Model
// instead. Every worker of a task queue must have the same tools and
// options.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "approval:", err)
		os.Exit(1)
	}
}

// config is what the flags set.
type config struct {
	hostPort, namespace, queue string
	id                         string        // the run's workflow ID
	dir                        string        // the workspace the tool removes files from
	wait                       time.Duration // how long to wait for the run to pause
	// server are the flags given of hostPort, namespace and queue, for
	// the next command printed; nil when none is (the demonstration).
	server []string
}

// next prints the command to run next, with the server's flags given to
// this one.
func (cfg config) next(stdout io.Writer, command string, args ...string) {
	if cfg.server == nil {
		return
	}
	fmt.Fprintln(stdout, "next: approval "+strings.Join(append(append([]string{command}, cfg.server...), args...), " "))
}

// defaultDir is the worker's workspace when -dir names none.
func defaultDir() string { return filepath.Join(os.TempDir(), "hands-approval") }

// Why start, approve and reject find no call waiting for a decision.
var (
	errNoRun       = errors.New("no run has this ID")
	errRunEnded    = errors.New("the run has ended: no call waits for a decision")
	errNoCallWaits = errors.New("no call waits for a decision yet: is a worker of the run's task queue running?")
)

// run runs the command named by args[0] (none: the demonstration).
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cmd := "demo"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var cfg config
	hostPort := os.Getenv("TEMPORAL_ADDRESS")
	if hostPort == "" {
		hostPort = client.DefaultHostPort
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.StringVar(&cfg.hostPort, "hostport", hostPort, "the Temporal server's address (default $TEMPORAL_ADDRESS, or "+client.DefaultHostPort+")")
	fs.StringVar(&cfg.namespace, "namespace", client.DefaultNamespace, "the Temporal namespace")
	fs.StringVar(&cfg.queue, "queue", "hands-approval", "the task queue")
	fs.StringVar(&cfg.id, "id", "", "the run's workflow ID (start, approve, reject)")
	fs.StringVar(&cfg.dir, "dir", defaultDir(), "the workspace of the remove tool, created with a notes.txt when missing (worker)")
	fs.DurationVar(&cfg.wait, "wait", time.Minute, "how long to wait for the run to pause (start, approve, reject)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cmd != "demo" {
		cfg.server = []string{}
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "hostport" || f.Name == "namespace" || f.Name == "queue" {
				cfg.server = append(cfg.server, "-"+f.Name, f.Value.String())
			}
		})
	}
	// The SDK's warnings and errors, not its log of every step.
	logger := sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: cfg.hostPort, Namespace: cfg.namespace, Logger: logger})
	if err != nil {
		return fmt.Errorf("the Temporal server at %s: %w", cfg.hostPort, err)
	}
	defer c.Close()
	switch cmd {
	case "demo":
		return demo(ctx, c, cfg, stdout)
	case "worker":
		created, err := workspace(cfg.dir)
		if err != nil {
			return err
		}
		w, err := startWorker(c, cfg)
		if err != nil {
			return err
		}
		defer w.Stop()
		if created {
			fmt.Fprintf(stdout, "created the workspace %s, with notes.txt\n", cfg.dir)
		}
		fmt.Fprintf(stdout, "worker of task queue %s on %s, workspace %s\n", cfg.queue, cfg.hostPort, cfg.dir)
		cfg.next(stdout, "start", "-id", "tidy", "'remove notes.txt'")
		<-ctx.Done()
		return nil
	case "start":
		if cfg.id == "" || fs.NArg() != 1 {
			return errors.New("usage: start -id ID 'remove FILE'")
		}
		return start(ctx, c, cfg, fs.Arg(0), stdout)
	case "approve", "reject":
		if cfg.id == "" {
			return fmt.Errorf("usage: %s -id ID", cmd)
		}
		return decide(ctx, c, cfg, cmd == "approve", strings.Join(fs.Args(), " "), stdout)
	}
	return fmt.Errorf("unknown command %q: want worker, start, approve or reject, or none", cmd)
}

// workspace creates the workspace dir, with a notes.txt in it, when it is
// missing, and reports whether it did.
func workspace(dir string) (bool, error) {
	if _, err := os.Stat(dir); err == nil || !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old notes\n"), 0o644)
}

// demo runs a worker, starts a run that removes notes.txt from a new
// workspace, approves the removal once the run waits for it, and prints
// the run's answer.
func demo(ctx context.Context, c client.Client, cfg config, stdout io.Writer) error {
	dir, err := os.MkdirTemp("", "approval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old notes\n"), 0o644); err != nil {
		return err
	}
	cfg.dir = dir
	if cfg.id == "" {
		cfg.id = fmt.Sprintf("approval-%d", time.Now().UnixNano())
	}
	w, err := startWorker(c, cfg)
	if err != nil {
		return err
	}
	defer w.Stop()
	if err := start(ctx, c, cfg, "remove notes.txt", stdout); err != nil {
		return err
	}
	if err := decide(ctx, c, cfg, true, "", stdout); err != nil {
		return err
	}
	_, err = os.Stat(filepath.Join(dir, "notes.txt"))
	fmt.Fprintf(stdout, "notes.txt is gone: %v\n", errors.Is(err, os.ErrNotExist))
	return nil
}

// Args are the remove tool's arguments.
type Args struct {
	Path string `json:"path" jsonschema:"the file to remove, relative to the workspace" tool:"minLength=1"`
}

// startWorker starts a worker of the run's workflow and activities, whose
// remove tool works in cfg.dir and needs approval, being destructive.
func startWorker(c client.Client, cfg config) (worker.Worker, error) {
	remove := tool.New("remove", "Remove a file from the workspace.",
		func(ctx context.Context, a Args) (string, error) {
			root, err := os.OpenRoot(cfg.dir) // the path cannot leave the workspace
			if err != nil {
				return "", err
			}
			defer root.Close()
			if err := root.Remove(a.Path); err != nil {
				return "", err
			}
			return "removed " + a.Path, nil
		},
		tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithTimeout(10*time.Second)) // also bounds the call's activity
	reg, err := tool.NewRegistry(&tool.Scope{Name: "workspace", Tools: []tool.Interface{remove}})
	if err != nil {
		return nil, err
	}
	w := worker.New(c, cfg.queue, worker.Options{})
	durable.New(ruleModel{}, reg, &durable.Options{
		System:        "You tidy the workspace.",
		NeedsApproval: agent.Destructive(reg),
	}).Register(w)
	return w, w.Start()
}

// start starts a run on the user's message and prints the call that waits
// for approval once the run pauses.
func start(ctx context.Context, c client.Client, cfg config, message string, stdout io.Writer) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: cfg.id, TaskQueue: cfg.queue},
		durable.WorkflowName, durable.Input{History: agent.History{agent.UserText(message)}})
	if err != nil {
		return err
	}
	p, err := waitPending(ctx, c, cfg.id, cfg.wait)
	if errors.Is(err, errRunEnded) { // it needed no approval
		return answer(ctx, c, cfg.id, stdout)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "run %s waits for %s: %s %s\n", cfg.id, p.Kind, p.Call.Name, p.Call.Args)
	cfg.next(stdout, "approve", "-id", cfg.id)
	return nil
}

// decide approves or rejects the call that waits, then waits for the run
// to end and prints its answer.
func decide(ctx context.Context, c client.Client, cfg config, approve bool, reason string, stdout io.Writer) error {
	p, err := waitPending(ctx, c, cfg.id, cfg.wait)
	if err != nil {
		return err
	}
	d := agent.Reject(p.Call.ID, reason)
	if approve {
		d = agent.Approve(p.Call.ID)
	}
	// The Update's validator refuses a decision that does not fit the
	// call; a refused one is never recorded.
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   cfg.id,
		UpdateName:   durable.UpdateDecide,
		Args:         []any{d},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.Verdict, err)
	}
	fmt.Fprintf(stdout, "%s %s\n", d.Verdict, p.Call.ID)
	return answer(ctx, c, cfg.id, stdout)
}

// answer waits for the run to end and prints its answer.
func answer(ctx context.Context, c client.Client, id string, stdout io.Writer) error {
	var history agent.History
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &history); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "answer: %s\n", history[len(history)-1].Text)
	return nil
}

// waitPending asks the run which call waits, until one does or wait has
// passed. It gives up at once when no run has the ID (errNoRun) or the run
// has ended (errRunEnded), and after wait with errNoCallWaits: a run no
// worker moves answers no query.
func waitPending(ctx context.Context, c client.Client, id string, wait time.Duration) (agent.Pending, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		desc, err := c.DescribeWorkflowExecution(ctx, id, "")
		if _, ok := errors.AsType[*serviceerror.NotFound](err); ok {
			return agent.Pending{}, fmt.Errorf("run %s: %w", id, errNoRun)
		}
		if st := desc.GetWorkflowExecutionInfo().GetStatus(); err == nil && st != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return agent.Pending{}, fmt.Errorf("run %s: %w (%s)", id, errRunEnded, strings.ToLower(st.String()))
		}
		if err == nil {
			var v converter.EncodedValue
			if v, err = c.QueryWorkflow(ctx, id, "", durable.QueryPending); err == nil {
				var pending []agent.Pending
				if err := v.Get(&pending); err != nil {
					return agent.Pending{}, err
				}
				if len(pending) > 0 {
					return pending[0], nil
				}
			}
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return agent.Pending{}, fmt.Errorf("run %s: %w", id, parent.Err())
			}
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return agent.Pending{}, fmt.Errorf("run %s, after %v: %w (last error: %v)", id, wait, errNoCallWaits, err)
			}
			return agent.Pending{}, fmt.Errorf("run %s, after %v: %w", id, wait, errNoCallWaits)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ruleModel stands in for a model: asked to "remove FILE", it calls the
// remove tool; given the tool's result, it reports it. It reads only the
// request, so that any worker answers as another would.
type ruleModel struct{}

func (ruleModel) Generate(_ context.Context, req *agent.Request) (*agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleTool {
		return &agent.Response{Text: "done: " + last.Text, FinishReason: agent.FinishStop}, nil
	}
	file, ok := strings.CutPrefix(last.Text, "remove ")
	if !ok {
		return &agent.Response{Text: `I only remove files: say "remove FILE".`, FinishReason: agent.FinishStop}, nil
	}
	args, err := json.Marshal(Args{Path: file})
	if err != nil {
		return nil, err
	}
	return &agent.Response{
		Calls:        []agent.ToolCall{{Name: "remove", Args: args}},
		FinishReason: agent.FinishToolCalls,
	}, nil
}
