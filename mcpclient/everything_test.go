package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingVersion is the version of the reference server
// @modelcontextprotocol/server-everything that .ci/run installs.
const everythingVersion = "2026.8.31"

// everything returns the path of the reference server's entry point: the
// file $HANDS_SERVER_EVERYTHING names (.ci/run sets it), or where .ci/run
// installs it. It skips the test when Node or the server is missing
// locally; in CI (CI=true), or when $HANDS_SERVER_EVERYTHING names a file
// that is not there, it fails instead.
func everything(t *testing.T) (node, script string) {
	t.Helper()
	script = os.Getenv("HANDS_SERVER_EVERYTHING")
	required := script != "" || os.Getenv("CI") == "true"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+"; the reference server must run here (.ci/run installs it)", args...)
		}
		t.Skipf(format+"; .ci/run installs it", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if script == "" {
		home, _ := os.UserHomeDir()
		script = filepath.Join(home, ".cache", "hands", "server-everything@"+everythingVersion,
			"node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	if _, err := os.Stat(script); err != nil {
		missing("@modelcontextprotocol/server-everything@%s is not installed: %v", everythingVersion, err)
	}
	return node, script
}

// wire records the JSON-RPC requests and notifications a client sends and
// receives.
type wire struct {
	mcp.Transport
	mu       sync.Mutex
	sent     []*jsonrpc.Request
	received []*jsonrpc.Request
}

func (w *wire) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wireConn{Connection: conn, w: w}, nil
}

// count returns how many requests or notifications of method were sent.
func (w *wire) count(method string) int { return w.tally(&w.sent, method) }

// countReceived returns how many of method were received.
func (w *wire) countReceived(method string) int { return w.tally(&w.received, method) }

func (w *wire) tally(list *[]*jsonrpc.Request, method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, r := range *list {
		if r.Method == method {
			n++
		}
	}
	return n
}

type wireConn struct {
	mcp.Connection
	w *wire
}

func (c *wireConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok {
		c.w.mu.Lock()
		c.w.sent = append(c.w.sent, r)
		c.w.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Request); ok {
		c.w.mu.Lock()
		c.w.received = append(c.w.received, r)
		c.w.mu.Unlock()
	}
	return msg, err
}

// TestEverything runs the client against the MCP reference server, which
// this project did not write, over stdio.
func TestEverything(t *testing.T) {
	c, w, _, cmd := connectEverything(t, &mcpclient.Options{Prefix: "ev_"})
	t.Logf("server %s; refused: %v", c.Name(), c.Refused())
	ctx := t.Context()

	t.Run("list", func(t *testing.T) {
		got := names(c.Tools())
		for _, want := range []string{"ev_echo", "ev_get-sum", "ev_get-structured-content", "ev_trigger-long-running-operation"} {
			if !slices.Contains(got, want) {
				t.Errorf("Tools() = %v, lacks %s", got, want)
			}
		}
		spec := find(t, c, "ev_get-structured-content").Spec()
		if spec.OutputSchema == nil || spec.OutputSchema.Properties["temperature"] == nil {
			t.Errorf("get-structured-content's output schema = %+v", spec.OutputSchema)
		}
		if want := (tool.Annotations{ReadOnly: true, Idempotent: true}); spec.Annotations == nil || *spec.Annotations != want {
			t.Errorf("get-structured-content's annotations = %+v, want %+v", spec.Annotations, want)
		}
		if spec.Title == "" {
			t.Error("get-structured-content has no title")
		}
		// The server registers get-roots-list once it knows the client
		// has roots, and says so with notifications/tools/list_changed;
		// the client lists again and offers it.
		deadline := time.Now().Add(time.Minute) // a watchdog no load reaches
		for (w.countReceived("notifications/tools/list_changed") == 0 || w.count("tools/list") < 2) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if w.countReceived("notifications/tools/list_changed") == 0 || w.count("tools/list") < 2 {
			t.Errorf("list_changed received %d times, tools/list sent %d times; want the client to list again after it",
				w.countReceived("notifications/tools/list_changed"), w.count("tools/list"))
		}
		if !slices.Contains(names(c.Tools()), "ev_get-roots-list") {
			t.Errorf("Tools() = %v, lacks ev_get-roots-list", names(c.Tools()))
		}
		// The reference server's schemas go to every provider.
		tooltest.PortableTools(t, nil, c.Tools()...)
	})

	t.Run("calls", func(t *testing.T) {
		res := call(ctx, find(t, c, "ev_get-sum"), "ev_get-sum", `{"a":2,"b":3}`)
		if res.IsError || !strings.Contains(res.Content, "5") {
			t.Errorf("get-sum = %+v", res)
		}
		res = call(ctx, find(t, c, "ev_echo"), "ev_echo", `{"message":"hi there"}`)
		if res.IsError || !strings.Contains(res.Content, "hi there") {
			t.Errorf("echo = %+v", res)
		}
		res = call(ctx, find(t, c, "ev_get-structured-content"), "ev_get-structured-content", `{"location":"Chicago"}`)
		var weather struct{ Temperature float64 }
		if res.IsError || json.Unmarshal(res.Structured, &weather) != nil || weather.Temperature != 36 {
			t.Errorf("get-structured-content = %+v, want structured content", res)
		}
	})

	t.Run("invalid calls are not sent", func(t *testing.T) {
		before := w.count("tools/call")
		for _, tt := range []struct{ tool, args, path string }{
			{"ev_get-sum", `{"a":"2","b":3}`, "/a"},
			{"ev_get-sum", `{"a":2}`, ""},
			{"ev_get-structured-content", `{"location":"Paris"}`, "/location"},
			{"ev_echo", `{"message":["hi"]}`, "/message"},
		} {
			res := call(ctx, find(t, c, tt.tool), tt.tool, tt.args)
			verr, ok := errors.AsType[*tool.ValidationError](res.Err)
			if !ok || !slices.ContainsFunc(verr.Issues, func(is tool.Issue) bool { return is.Path == tt.path }) {
				t.Errorf("%s(%s) = %+v, want an issue at %q", tt.tool, tt.args, res, tt.path)
			}
		}
		if n := w.count("tools/call") - before; n != 0 {
			t.Errorf("%d invalid calls reached the server", n)
		}
	})

	t.Run("progress", func(t *testing.T) {
		var got []tool.ProgressReport
		var res *tool.Result
		op := find(t, c, "ev_trigger-long-running-operation")
		for ev := range op.Stream(ctx, tool.Call{Name: op.Name(), Args: json.RawMessage(`{"duration":1,"steps":4}`)}) {
			if ev.Result != nil {
				res = ev.Result
			} else if p, ok := ev.Progress.(tool.ProgressReport); ok {
				got = append(got, p)
			}
		}
		if res == nil || res.IsError || !strings.Contains(res.Content, "completed") {
			t.Fatalf("trigger-long-running-operation = %+v", res)
		}
		if len(got) == 0 || got[0].Total != 4 {
			t.Errorf("progress = %+v, want reports out of 4", got)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		op := find(t, c, "ev_trigger-long-running-operation")
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		start := time.Now()
		var res *tool.Result
		for ev := range op.Stream(ctx, tool.Call{Name: op.Name(), Args: json.RawMessage(`{"duration":60,"steps":120}`)}) {
			if ev.Result != nil {
				res = ev.Result
			} else {
				cancel() // at the first progress report
			}
		}
		if res == nil || !errors.Is(res.Err, tool.ErrCanceled) || time.Since(start) > time.Minute {
			t.Fatalf("a cancelled call = %+v after %v", res, time.Since(start))
		}
		deadline := time.Now().Add(time.Minute) // a watchdog no load reaches
		for w.count("notifications/cancelled") == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if w.count("notifications/cancelled") == 0 {
			t.Error("no notifications/cancelled was sent")
		}
	})

	t.Run("server dies mid-call", func(t *testing.T) {
		op := find(t, c, "ev_trigger-long-running-operation")
		start := time.Now()
		var res *tool.Result
		var kill sync.Once
		for ev := range op.Stream(ctx, tool.Call{Name: op.Name(), Args: json.RawMessage(`{"duration":60,"steps":120}`)}) {
			if ev.Result != nil {
				res = ev.Result
			} else {
				kill.Do(func() { cmd.Process.Kill() })
			}
		}
		if res == nil || !errors.Is(res.Err, mcpclient.ErrDisconnected) || time.Since(start) > time.Minute {
			t.Fatalf("a call whose server was killed = %+v after %v, want ErrDisconnected", res, time.Since(start))
		}
		if !strings.Contains(res.Content, "not connected") {
			t.Errorf("the model reads %q", res.Content)
		}
		after := call(ctx, find(t, c, "ev_get-sum"), "ev_get-sum", `{"a":2,"b":3}`)
		if !errors.Is(after.Err, mcpclient.ErrDisconnected) {
			t.Errorf("a call after the server died = %+v, want ErrDisconnected", after)
		}
	})
}

// connectEverything starts the reference server on stdio and connects to
// it with opts, recording the requests it sends on the returned wire; the
// server's standard error is kept for failure messages. The client is
// closed when the test ends; the command is the server's process.
func connectEverything(t *testing.T, opts *mcpclient.Options) (*mcpclient.Client, *wire, *bytes.Buffer, *exec.Cmd) {
	t.Helper()
	node, script := everything(t)
	cmd := exec.Command(node, script, "stdio")
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	w := &wire{Transport: &mcp.CommandTransport{Command: cmd}}
	c, err := mcpclient.Connect(t.Context(), w, opts)
	if err != nil {
		t.Fatalf("Connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { c.Close() })
	return c, w, stderr, cmd
}
