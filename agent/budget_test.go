package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/tool"
)

// TestKeepResults checks that the loop keeps the last KeepResults tool
// results in full and replaces older ones with a note naming a handle
// that reads them back whole; that the model is sent what the returned
// history records; and that a run resumed from that history sends the
// same context.
func TestKeepResults(t *testing.T) {
	page := func(_ context.Context, a titleArgs) (string, error) {
		return strings.Repeat("page "+a.Title+" ", 50), nil
	}
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{tool.New("page", "Read a page.", page)}})
	if err := reg.SetBudget(&tool.Budget{}); err != nil {
		t.Fatal(err)
	}
	var sent [][]agent.Message
	model := modelFunc(func(_ context.Context, req *agent.Request) (*agent.Response, error) {
		sent = append(sent, req.Messages)
		n := len(sent)
		if n > 4 {
			return &agent.Response{Text: "done"}, nil
		}
		return &agent.Response{Calls: []agent.ToolCall{{ID: "c" + strconv.Itoa(n), Name: "page", Args: json.RawMessage(`{"title":"` + strconv.Itoa(n) + `"}`)}}}, nil
	})
	opts := &agent.Options{KeepResults: 2, Recipient: "user 1"}
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("read")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var full, cleared int
	for _, m := range history {
		if m.Role != agent.RoleTool {
			continue
		}
		if !m.Cleared {
			full++
			continue
		}
		cleared++
		if !strings.HasPrefix(m.Text, agent.ClearedText) || m.Handle == "" || !strings.Contains(m.Text, m.Handle) {
			t.Errorf("cleared message %s = %q, want a note naming its handle %q", m.CallID, m.Text, m.Handle)
		}
		args, _ := json.Marshal(map[string]any{"handle": m.Handle})
		ctx := tool.WithRecipient(t.Context(), tool.Recipient{ID: "user 1"})
		got := tool.Run(ctx, reg, tool.Call{Name: tool.ReadResultName, Args: args})
		want, _ := page(nil, titleArgs{Title: strings.TrimPrefix(m.CallID, "c")})
		if !strings.HasPrefix(got.Content, want+"\n") {
			t.Errorf("read_result of %s = %q, want the whole result", m.CallID, got.Content[:min(60, len(got.Content))])
		}
	}
	if full != 2 || cleared != 2 {
		t.Errorf("history has %d results in full and %d cleared, want 2 and 2", full, cleared)
	}
	last := sent[len(sent)-1]
	if len(last) != len(history)-1 {
		t.Fatalf("the last request had %d messages, the history before the answer %d", len(last), len(history)-1)
	}
	for i, m := range last {
		if m.Text != history[i].Text {
			t.Errorf("the model was sent %q at %d, the history records %q", m.Text, i, history[i].Text)
		}
	}

	// A run from the returned history sends the model what it records.
	sent = nil
	again := modelFunc(func(_ context.Context, req *agent.Request) (*agent.Response, error) {
		sent = append(sent, req.Messages)
		return &agent.Response{Text: "ok"}, nil
	})
	if _, err := agent.Run(t.Context(), again, reg, append(history, agent.UserText("more")), opts); err != nil {
		t.Fatal(err)
	}
	for i, m := range history {
		if sent[0][i].Text != m.Text {
			t.Errorf("a run from the history sent %q at %d, want %q", sent[0][i].Text, i, m.Text)
		}
	}
}

// TestResultBudgetNeedsBudgets checks that a run with a result budget on a
// registry without budgets fails, before the model is asked.
func TestResultBudgetNeedsBudgets(t *testing.T) {
	model := modelFunc(func(context.Context, *agent.Request) (*agent.Response, error) {
		t.Fatal("the model was asked")
		return nil, nil
	})
	_, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{ResultBudget: 4096})
	if !errors.Is(err, tool.ErrBudgetsOff) {
		t.Errorf("Run = %v, want tool.ErrBudgetsOff", err)
	}
}

// TestResultBudget checks that the run's budget reaches the registry, and
// that the tool message of a cut result names its handle.
func TestResultBudget(t *testing.T) {
	long := tool.New("long", "Long.", func(context.Context, titleArgs) (string, error) { return strings.Repeat("word ", 2000), nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{long}})
	if err := reg.SetBudget(&tool.Budget{}); err != nil {
		t.Fatal(err)
	}
	turn := 0
	model := modelFunc(func(context.Context, *agent.Request) (*agent.Response, error) {
		if turn++; turn > 1 {
			return &agent.Response{Text: "done"}, nil
		}
		return &agent.Response{Calls: []agent.ToolCall{{ID: "c", Name: "long", Args: json.RawMessage(`{"title":"x"}`)}}}, nil
	})
	history, err := agent.Run(t.Context(), model, reg, nil, &agent.Options{ResultBudget: 1024})
	if err != nil {
		t.Fatal(err)
	}
	m := history[1]
	if len(m.Text) > 1024 || m.Handle == "" || !strings.Contains(m.Text, m.Handle) {
		t.Errorf("tool message of %d bytes, handle %q; want at most 1024 bytes naming its handle", len(m.Text), m.Handle)
	}
}
