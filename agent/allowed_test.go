package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// allowingScript is a scripted model that is shown every tool and told
// which it may call.
type allowingScript struct{ *agenttest.Script }

func (allowingScript) AllowsTools() bool { return true }

// TestAllowedTools runs a model that allows tools over a registry whose
// predicate turns a tool off after the first turn: every request carries
// every tool, the same bytes in the same order, while Allowed follows the
// predicate; the model's call to the tool it is no longer allowed is
// refused by the registry and never runs.
func TestAllowedTools(t *testing.T) {
	var ran atomic.Int32
	var archiveOn atomic.Bool
	archiveOn.Store(true)
	note := func(_ context.Context, a cityArgs) (string, error) {
		archiveOn.Store(false) // from the next turn on, archive_notes is disabled
		return "noted " + a.City, nil
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "notes", Tools: []tool.Interface{
		tool.New("take_note", "Write a note about a city.", note),
		tool.New("archive_notes", "Archive the notes of a city.", func(_ context.Context, a cityArgs) (string, error) {
			ran.Add(1)
			return "archived " + a.City, nil
		}, tool.WithEnabled(func(context.Context) bool { return archiveOn.Load() })),
		tool.New("read_note", "Read the note about a city.", note),
	}})
	if err != nil {
		t.Fatal(err)
	}
	script := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "take_note", `{"city":"Oslo"}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c2", "archive_notes", `{"city":"Oslo"}`)}},
		agent.Response{Text: "Done."},
	)
	model := allowingScript{script}
	history, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Note Oslo, then archive it.")}, nil)
	if err != nil {
		t.Fatalf("Run: %v\n%v", err, history)
	}
	reqs := script.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	first, err := json.Marshal(reqs[0].Tools)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		b, err := json.Marshal(r.Tools)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, first) {
			t.Errorf("request %d's tools differ from the first's:\n%s\n%s", i+1, b, first)
		}
	}
	if got, want := names(reqs[0].Tools), []string{"take_note", "archive_notes", "read_note"}; !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	if got, want := reqs[0].Allowed, []string{"take_note", "archive_notes", "read_note"}; !slices.Equal(got, want) {
		t.Errorf("first request's Allowed = %v, want %v", got, want)
	}
	for i := 1; i < 3; i++ {
		if got, want := reqs[i].Allowed, []string{"take_note", "read_note"}; !slices.Equal(got, want) {
			t.Errorf("request %d's Allowed = %v, want %v", i+1, got, want)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("archive_notes ran %d times while it was disabled", n)
	}
	var refused *agent.Message
	for i := range history {
		if history[i].CallID == "c2" {
			refused = &history[i]
		}
	}
	if refused == nil || !refused.IsError {
		t.Fatalf("the call to the disallowed tool got %+v, want an error result", refused)
	}
}
