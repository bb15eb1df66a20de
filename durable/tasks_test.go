package durable_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/sqltasks"
	"github.com/hands-go/hands/tool"
)

// The environment of a replica process: the test binary runs as a
// replica — an MCP server on 127.0.0.1 whose tasks run on Temporal, and
// a worker that runs them — and nothing else, when replicaDir is set.
const (
	// replicaDir holds the task store (tasks.db), the files that release
	// the tools' calls (release-PATH) and the log of the calls that ran
	// (runs).
	replicaDir = "HANDS_DURABLE_REPLICA_DIR"
	// replicaLease is the task lease, as a Go duration.
	replicaLease = "HANDS_DURABLE_REPLICA_LEASE"
)

// The heartbeat timeout of the replicas' tasks and their lease: a lost
// worker is noticed after the first, and its call runs again on another
// before the second lapses. The lease is generous, so that a loaded
// machine does not let it lapse first; no duration is asserted.
const (
	replicaHeartbeat = 3 * time.Second
	replicaLeaseLong = 45 * time.Second
)

// replicaRegistry returns the tools of the replicas: fetch, idempotent,
// and send, not annotated, so at most once. Each reports, as its
// progress, the process it runs in, appends that to the log of runs, and
// waits until the file release-PATH exists in dir.
func replicaRegistry(dir string) (*tool.Registry, error) {
	pid := os.Getpid()
	handler := func(verb string) func(ctx context.Context, a pathArgs) (string, error) {
		return func(ctx context.Context, a pathArgs) (string, error) {
			f, err := os.OpenFile(filepath.Join(dir, "runs"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(f, "%s %s %d\n", verb, a.Path, pid)
			f.Close()
			tool.Progress(ctx, fmt.Sprintf("running in pid %d", pid))
			for {
				if _, err := os.Stat(filepath.Join(dir, "release-"+a.Path)); err == nil {
					return fmt.Sprintf("%s %s in pid %d", verb, a.Path, pid), nil
				}
				select {
				case <-ctx.Done():
					return "", ctx.Err()
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
	}
	fetch := tool.New("fetch", "Fetch a file.", handler("fetched"),
		tool.WithAnnotations(tool.Annotations{Idempotent: true}), tool.WithTaskSupport(tool.TaskRequired))
	send := tool.New("send", "Send a file.", handler("sent"), tool.WithTaskSupport(tool.TaskRequired))
	return tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{fetch, send}})
}

// replicaKey is the replicas' state key, which seals their task IDs.
var replicaKey = bytes.Repeat([]byte{7}, mcpserver.StateKeyBytes)

// runReplica runs a replica until the process is killed: it prints the
// URL of its MCP endpoint on a line of its own.
func runReplica() error {
	ctx := context.Background()
	dir := os.Getenv(replicaDir)
	lease, err := time.ParseDuration(os.Getenv(replicaLease))
	if err != nil {
		return err
	}
	db, err := sqlitedb.OpenFile(ctx, filepath.Join(dir, "tasks.db"), nil)
	if err != nil {
		return err
	}
	store, err := sqltasks.New(ctx, db, nil)
	if err != nil {
		return err
	}
	reg, err := replicaRegistry(dir)
	if err != nil {
		return err
	}
	warn := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: os.Getenv(workerHostPort), Namespace: os.Getenv(workerNamespace), Logger: warn})
	if err != nil {
		return err
	}
	defer c.Close()
	queue := os.Getenv(workerQueue)
	tasks := durable.NewTasks(c, reg, &durable.TaskOptions{Queue: queue, HeartbeatTimeout: replicaHeartbeat})
	srv := mcpserver.New(reg, &mcpserver.Options{StateKey: replicaKey, Tasks: mcpserver.TaskOptions{
		Store: store, Runner: tasks, Lease: lease, PollInterval: 50 * time.Millisecond,
	}})
	w := worker.New(c, queue, worker.Options{})
	tasks.Register(w, srv)
	if err := w.Start(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	return http.Serve(ln, srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
}

// A replica is a replica process of the test.
type replica struct {
	cmd *exec.Cmd
	url string
}

// startReplica starts a replica process, the test binary run again.
func startReplica(t *testing.T, s devtest.Server, queue, dir string) *replica {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		workerHostPort+"="+s.HostPort,
		workerNamespace+"="+s.Namespace,
		workerQueue+"="+queue,
		replicaDir+"="+dir,
		replicaLease+"="+replicaLeaseLong.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "http://") {
				lines <- s.Text()
				break
			}
		}
		close(lines)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case url, ok := <-lines:
		if !ok {
			t.Fatal("a replica exited before it printed its URL")
		}
		return &replica{cmd: cmd, url: url}
	case <-time.After(2 * time.Minute): // a bound on a failing test, not a measure
		t.Fatal("a replica printed no URL within 2 minutes")
	}
	return nil
}

// extTask is a task as the tasks extension writes it.
type extTask struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send posts one request of protocol 2026-07-28, declaring the tasks
// extension, and returns the result's JSON.
func send(ctx context.Context, url, method string, params map[string]any) (json.RawMessage, error) {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return r.Result, nil
}

// getTask answers tasks/get.
func getTask(ctx context.Context, url, id string) (extTask, error) {
	data, err := send(ctx, url, "tasks/get", map[string]any{"taskId": id})
	var task extTask
	if err == nil {
		err = json.Unmarshal(data, &task)
	}
	return task, err
}

// awaitTask polls tasks/get at url until done says the task is as
// wanted, and returns it.
func awaitTask(ctx context.Context, t *testing.T, url, id string, done func(extTask) bool) extTask {
	t.Helper()
	for {
		task, err := getTask(ctx, url, id)
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		if done(task) {
			return task
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task still %s (%q): %v", task.Status, task.StatusMessage, ctx.Err())
		case <-time.After(50 * time.Millisecond): // a client's poll; no duration is asserted
		}
	}
}

// TestTaskSurvivesKilledReplica: three replicas share a task store (a
// SQLite file) and a Temporal task queue, and run their MCP tasks' calls
// as Temporal activities (durable.Tasks). A task's call runs on one
// replica's worker; that replica is killed with SIGKILL. An idempotent
// tool's call runs again on another replica's worker, and the task
// completes with its result, read through a surviving replica; a tool
// not annotated safe to run twice is not run again, and its task fails
// once its lease lapses, with the message that tells the model to call
// it again.
func TestTaskSurvivesKilledReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server and three replicas")
	}
	ts := devtest.Start(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // a bound on a failing test
	defer cancel()
	// The store's tables, made once before the replicas open it.
	db, err := sqlitedb.OpenFile(ctx, filepath.Join(dir, "tasks.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqltasks.New(ctx, db, nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	const queue = "hands-tasks-kill"
	var alive []*replica
	for range 3 {
		alive = append(alive, startReplica(t, ts, queue, dir))
	}

	// killRunner starts a call of name through the first replica alive,
	// kills the replica whose worker runs it, releases the call, and
	// returns the task's ID, the killed process's ID and when it was
	// killed.
	killRunner := func(name, path string) (id string, killed int, at time.Time) {
		data, err := send(ctx, alive[0].url, "tools/call", map[string]any{"name": name, "arguments": map[string]any{"path": path}})
		if err != nil {
			t.Fatal(err)
		}
		var task extTask
		if err := json.Unmarshal(data, &task); err != nil || task.ResultType != "task" {
			t.Fatalf("tools/call %s: %s, want a task", name, data)
		}
		running := awaitTask(ctx, t, alive[0].url, task.TaskID, func(task extTask) bool {
			return strings.HasPrefix(task.StatusMessage, "running in pid ")
		})
		killed, _ = strconv.Atoi(strings.TrimPrefix(running.StatusMessage, "running in pid "))
		i := slices.IndexFunc(alive, func(r *replica) bool { return r.cmd.Process.Pid == killed })
		if i < 0 {
			t.Fatalf("the call runs in pid %d, which is no replica", killed)
		}
		if err := alive[i].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		alive[i].cmd.Wait()
		at = time.Now()
		alive = slices.Delete(alive, i, i+1)
		if err := os.WriteFile(filepath.Join(dir, "release-"+path), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return task.TaskID, killed, at
	}
	// runs returns the processes in which a tool ran for path, in order.
	runs := func(verb, path string) []string {
		data, _ := os.ReadFile(filepath.Join(dir, "runs"))
		var pids []string
		for line := range strings.Lines(string(data)) {
			if pid, ok := strings.CutPrefix(strings.TrimSpace(line), verb+" "+path+" "); ok {
				pids = append(pids, pid)
			}
		}
		return pids
	}

	t.Run("idempotent completes", func(t *testing.T) {
		id, killed, at := killRunner("fetch", "a")
		done := awaitTask(ctx, t, alive[0].url, id, func(task extTask) bool { return taskstore.Terminal(task.Status) })
		t.Logf("the task was %s %v after its replica was killed", done.Status, time.Since(at).Round(time.Millisecond))
		if done.Status != taskstore.Completed {
			t.Fatalf("after the kill: %+v, want completed", done)
		}
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal(done.Result, &res); err != nil || len(res.Content) != 1 || res.IsError {
			t.Fatalf("result %s, want one text", done.Result)
		}
		var pid int
		if _, err := fmt.Sscanf(res.Content[0].Text, "fetched a in pid %d", &pid); err != nil || pid == killed ||
			!slices.ContainsFunc(alive, func(r *replica) bool { return r.cmd.Process.Pid == pid }) {
			t.Errorf("result %q, want fetched a in the pid of a surviving replica (killed: %d)", res.Content[0].Text, killed)
		}
		if got := runs("fetched", "a"); len(got) != 2 || got[0] != strconv.Itoa(killed) || got[1] != strconv.Itoa(pid) {
			t.Errorf("fetch ran in pids %q, want %d, then %d", got, killed, pid)
		}
	})

	t.Run("at most once fails", func(t *testing.T) {
		id, killed, at := killRunner("send", "b")
		done := awaitTask(ctx, t, alive[0].url, id, func(task extTask) bool { return taskstore.Terminal(task.Status) })
		t.Logf("the task was %s %v after its replica was killed", done.Status, time.Since(at).Round(time.Millisecond))
		if done.Status != taskstore.Failed || done.StatusMessage != taskstore.LapsedMessage || done.Error == nil {
			t.Errorf("after the kill: %+v, want failed, with taskstore.LapsedMessage", done)
		}
		if got := runs("sent", "b"); len(got) != 1 || got[0] != strconv.Itoa(killed) {
			t.Errorf("send ran in pids %q, want once, in %d", got, killed)
		}
	})
}

// TestTaskCallAlteredNotRetried: a task workflow whose call no replica
// sealed — started by whoever can start workflows on the task queue, with
// a call of their choosing — runs nothing: the worker's server refuses
// the call (mcpserver.ErrTaskCallAltered), and its activity fails with
// ErrTypeTaskCallAltered, tried once whatever attempts the input asks,
// since it will never run, and the workflow fails with it.
func TestTaskCallAlteredNotRetried(t *testing.T) {
	runs := 0
	fetch := tool.New("fetch", "Fetch a file.", func(ctx context.Context, a pathArgs) (string, error) {
		runs++
		return "fetched " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Idempotent: true}), tool.WithTaskSupport(tool.TaskRequired))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{fetch}})
	if err != nil {
		t.Fatal(err)
	}
	store := taskstore.NewMemory(nil)
	srv := mcpserver.New(reg, &mcpserver.Options{StateKey: replicaKey, Tasks: mcpserver.TaskOptions{Store: store}})
	forged := mcpserver.TaskCall{
		ID: "t1", Owner: "user root", Tool: "fetch", Arguments: json.RawMessage(`{"path":"/etc/shadow"}`),
		Token: &auth.TokenInfo{UserID: "root", Scopes: []string{"admin"}}, TTL: time.Minute, Lease: time.Minute,
	}
	if _, err := store.Create(t.Context(), taskstore.New{ID: forged.ID, Owner: forged.Owner, Tool: forged.Tool, TTL: time.Minute, Lease: time.Minute}, taskstore.Limits{}); err != nil {
		t.Fatal(err)
	}

	var s testsuite.WorkflowTestSuite
	e := s.NewTestWorkflowEnvironment()
	durable.NewTasks(nil, reg, nil).Register(e, srv)
	attempts := 0
	e.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { attempts++ })
	e.ExecuteWorkflow(durable.TaskWorkflowName, durable.TaskInput{Call: forged, Attempts: 3, HeartbeatTimeout: time.Minute})
	err = e.GetWorkflowError()
	if aerr, ok := errors.AsType[*temporal.ApplicationError](err); !ok || aerr.Type() != durable.ErrTypeTaskCallAltered {
		t.Errorf("the workflow of a forged call ended with %v, want an application error of type %s", err, durable.ErrTypeTaskCallAltered)
	}
	if attempts != 1 || runs != 0 {
		t.Errorf("the forged call's activity ran %d times and its tool %d; want once and never", attempts, runs)
	}
	if task, err := store.Get(t.Context(), forged.ID); err != nil || task.Status != taskstore.Working {
		t.Errorf("the task after: %+v, %v; want working, as the worker left it", task, err)
	}
}
