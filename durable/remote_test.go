package durable_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// A span is the input of the remote tool book, whose Validate method
// refuses what its schema cannot express, so that only the server tells.
type span struct {
	From int `json:"from" tool:"minimum=0"`
	To   int `json:"to" tool:"minimum=0"`
}

func (s *span) Validate() error {
	if s.To < s.From {
		return errors.New("to is before from")
	}
	return nil
}

// remoteFiles is an MCP server of hands tools, as a worker reaches it
// through mcpclient: lookup is read-only and reports progress, remove is
// destructive, book is idempotent and refuses some arguments only on the
// server, and full is idempotent and always fails. It records the calls
// its handlers ran, as files does.
type remoteFiles struct {
	files
	beat chan struct{} // when not nil, lookup waits for a receive from it after its progress
}

func (f *remoteFiles) server(t testing.TB) *mcpserver.Server {
	t.Helper()
	lookup := tool.New("lookup", "Read a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("lookup " + a.Path)
		tool.Progress(ctx, "reading "+a.Path)
		if f.beat != nil {
			// Wait until the worker reports the progress as a heartbeat: the
			// client hands progress on as it arrives, which may be after the
			// result.
			select {
			case <-f.beat:
			case <-time.After(10 * time.Second):
			}
		}
		return "contents of " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{ReadOnly: true}))
	remove := tool.New("remove", "Remove a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("remove " + a.Path)
		return "removed " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	book := tool.New("book", "Book the disk for a span of days.", func(ctx context.Context, s span) (string, error) {
		f.record(fmt.Sprintf("book %d-%d", s.From, s.To))
		return "booked", nil
	}, tool.WithAnnotations(tool.Annotations{Idempotent: true}))
	full := tool.New("full", "Write to a full disk.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("full " + a.Path)
		return "", errors.New("the disk is full")
	}, tool.WithAnnotations(tool.Annotations{Idempotent: true}))
	s, err := mcpserver.NewTools(nil, lookup, remove, book, full)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// remoteRegistry returns a registry of the tools of the MCP server at the
// other end of transport, prefixed with fs_, and the client, which is
// closed when the test ends.
func remoteRegistry(ctx context.Context, transport mcp.Transport) (*tool.Registry, *mcpclient.Client, error) {
	c, err := mcpclient.Connect(ctx, transport, &mcpclient.Options{Name: "files", Prefix: "fs_"})
	if err != nil {
		return nil, nil, err
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: c.Tools()})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return reg, c, nil
}

// inMemory connects to f's server over an in-memory transport and returns
// the registry of its tools.
func (f *remoteFiles) inMemory(t *testing.T) *tool.Registry {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.server(t).MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	reg, c, err := remoteRegistry(t.Context(), ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return reg
}

// TestRemoteTools: the tools of an MCP server, through mcpclient, run as
// activities like local ones. The destructive one waits for approval, as
// its annotations say; progress is a heartbeat; arguments the client
// refuses, and arguments only the server refuses, are tried once and the
// model reads why; a remote failure is retried by the tool's policy and
// the model reads the server's text.
func TestRemoteTools(t *testing.T) {
	f := &remoteFiles{beat: make(chan struct{}, 1)}
	reg := f.inMemory(t)
	model := agenttest.NewScript(
		turnWith(
			agenttest.Call("c1", "fs_lookup", `{"path":"a"}`),
			agenttest.Call("c2", "fs_remove", `{"path":"b"}`),
			agenttest.Call("c3", "fs_book", `{"from":3,"to":1}`),
			agenttest.Call("c4", "fs_full", `{"path":"c"}`),
			agenttest.Call("c5", "fs_lookup", `{"path":""}`),
		),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	)
	e, at := envWith(t, model, reg, &durable.Options{NeedsApproval: agent.Destructive(reg)})
	var mu sync.Mutex
	var beats []string
	e.SetOnActivityHeartbeatListener(func(info *activity.Info, details converter.EncodedValues) {
		if info.ActivityType.Name != durable.CallActivity {
			return
		}
		var p tool.ProgressReport
		if err := details.Get(&p); err != nil {
			t.Errorf("a heartbeat's detail: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		beats = append(beats, p.Message)
		select {
		case f.beat <- struct{}{}:
		default:
		}
	})
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
		if len(pending) != 1 || pending[0].Kind != agent.PendingApproval || pending[0].Call.Name != "fs_remove" {
			t.Errorf("pending = %+v, want the approval of fs_remove", pending)
		}
		if got := f.calls(); !reflect.DeepEqual(got, []string{"lookup a"}) {
			t.Errorf("the server ran %q before the approval, want [lookup a]", got)
		}
	}, time.Minute)
	var refused error
	decide(e, 2*time.Minute, agent.Approve("c2"), &refused)
	e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("tidy up")}})
	h := result(t, e)
	if refused != nil {
		t.Fatalf("the approval was refused: %v", refused)
	}

	if got, want := f.calls(), []string{"lookup a", "remove b", "full c", "full c", "full c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the server ran %q, want %q", got, want)
	}
	for _, tt := range []struct {
		id, tool string
		attempts int
		isError  bool
		text     string
	}{
		{"c1", "fs_lookup", 2, false, "contents of a"}, // two calls of fs_lookup: c1 and c5
		{"c2", "fs_remove", 1, false, "removed b"},
		{"c3", "fs_book", 1, true, "to is before from"},
		{"c4", "fs_full", 3, true, "the disk is full"},
		{"c5", "fs_lookup", 2, true, "/path"},
	} {
		i := slices.IndexFunc(h, func(m agent.Message) bool { return m.Role == agent.RoleTool && m.CallID == tt.id })
		if i < 0 {
			t.Errorf("%s: no tool message", tt.id)
			continue
		}
		if m := h[i]; m.IsError != tt.isError || !strings.Contains(m.Text, tt.text) {
			t.Errorf("%s: tool message %+v, want isError %v and %q", tt.id, m, tt.isError, tt.text)
		}
		if n := len(at.of(tt.tool)); n != tt.attempts {
			t.Errorf("%s: %d attempts of %s, want %d", tt.id, n, tt.tool, tt.attempts)
		}
	}
	// The remote tool's own timeout, plus the margin, bounds the activity.
	if infos := at.of("fs_remove"); len(infos) != 1 || infos[0].StartToCloseTimeout != mcpclient.DefaultTimeout+durable.TimeoutMargin {
		t.Errorf("fs_remove's attempts %+v, want one whose StartToCloseTimeout is mcpclient's default timeout plus the margin", infos)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(beats, "reading a") {
		t.Errorf("heartbeats %q, want the remote tool's progress, reading a", beats)
	}
}
