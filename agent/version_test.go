package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// TestHistoryRecordsVersions runs a call made against a tool's current
// version and one made against its previous version: each tool message
// records the version the call was made against and the one it ran as.
func TestHistoryRecordsVersions(t *testing.T) {
	type greetV1 struct {
		Who string `json:"who" tool:"minLength=1"`
	}
	type greetV2 struct {
		Name string `json:"name" tool:"minLength=1"`
	}
	greet := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetV2) (string, error) {
		return "hello " + a.Name, nil
	}, tool.WithVersion("2"), tool.Migrate("1", func(old greetV1) (greetV2, error) { return greetV2{Name: old.Who}, nil }))
	unversioned := tool.New("wave", "Wave.", func(ctx context.Context, a greetV2) (string, error) { return "waved", nil })
	reg := newRegistry(t, &tool.Scope{Name: "people", Tools: []tool.Interface{greet, unversioned}})
	model := agenttest.NewScript(
		respond(agenttest.Call("c1", "greet", `{"name":"Ada"}`), agenttest.Call("c2", "greet", `{"who":"Alan"}`),
			agenttest.Call("c3", "greet", `{"who":""}`), agenttest.Call("c4", "wave", `{"name":"Ada"}`)),
		agent.Response{Text: "done"})
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type versions struct {
		migrated       bool
		version, ranAs string
	}
	want := map[string]versions{
		"c1": {version: "2", ranAs: "2"},                 // valid under the current input
		"c2": {migrated: true, version: "1", ranAs: "2"}, // made against version 1, upgraded
		"c3": {version: "2", ranAs: "2"},                 // fits neither: failed against the current input
		"c4": {},                                         // a tool without a version
	}
	seen := 0
	for _, m := range history {
		if m.Role != agent.RoleTool {
			continue
		}
		seen++
		if got := (versions{m.Migrated, m.Version, m.RanAs}); got != want[m.CallID] {
			t.Errorf("tool message %s: %+v, want %+v", m.CallID, got, want[m.CallID])
		}
	}
	if seen != len(want) {
		t.Errorf("%d tool messages, want %d", seen, len(want))
	}
	// A stored history keeps them.
	b, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.History
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i, m := range back {
		if m.Version != history[i].Version || m.RanAs != history[i].RanAs {
			t.Errorf("message %d after JSON: version %q ran as %q, want %q and %q", i, m.Version, m.RanAs, history[i].Version, history[i].RanAs)
		}
	}
}

// TestContinueAcrossAChainOfChanges stores a history written against
// version 1 of a tool, then continues it after two breaking changes: the
// record of the old call stays as it was made, and a call the model makes
// in the old shape, as models copy their history, is upgraded through both
// migrations and recorded as made against version 1.
func TestContinueAcrossAChainOfChanges(t *testing.T) {
	type greetV1 struct {
		Who string `json:"who" tool:"minLength=1"`
	}
	type greetV2 struct {
		Name string `json:"name" tool:"minLength=1"`
	}
	type greetV3 struct {
		Name     string `json:"name" tool:"minLength=1"`
		Greeting string `json:"greeting" tool:"enum=hello|hi"`
	}
	before := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetV1) (string, error) {
		return "hello " + a.Who, nil
	}, tool.WithVersion("1"))
	history, err := agent.Run(t.Context(), agenttest.NewScript(respond(agenttest.Call("c1", "greet", `{"who":"Ada"}`)), agent.Response{Text: "done"}),
		newRegistry(t, &tool.Scope{Name: "people", Tools: []tool.Interface{before}}), agent.History{agent.UserText("greet Ada")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}

	// The deploy: version 3, with migrations from 1 and 2.
	after := tool.New("greet", "Greet someone.", func(ctx context.Context, a greetV3) (string, error) {
		return a.Greeting + " " + a.Name, nil
	}, tool.WithVersion("3"),
		tool.Migrate("1", func(old greetV1) (greetV2, error) { return greetV2{Name: old.Who}, nil }),
		tool.Migrate("2", func(old greetV2) (greetV3, error) { return greetV3{Name: old.Name, Greeting: "hello"}, nil }))
	var resumed agent.History
	if err := json.Unmarshal(stored, &resumed); err != nil {
		t.Fatal(err)
	}
	resumed = append(resumed, agent.UserText("and Alan"))
	history, err = agent.Run(t.Context(), agenttest.NewScript(respond(agenttest.Call("c2", "greet", `{"who":"Alan"}`)), agent.Response{Text: "done"}),
		newRegistry(t, &tool.Scope{Name: "people", Tools: []tool.Interface{after}}), resumed, nil)
	if err != nil {
		t.Fatal(err)
	}
	type record struct {
		text, version, ranAs string
		migrated             bool
	}
	want := map[string]record{
		"c1": {"hello Ada", "1", "1", false}, // as it was made, before the deploy
		"c2": {"hello Alan", "1", "3", true}, // made in the old shape after it, upgraded twice
	}
	for _, m := range history {
		if m.Role != agent.RoleTool {
			continue
		}
		if got := (record{m.Text, m.Version, m.RanAs, m.Migrated}); got != want[m.CallID] {
			t.Errorf("tool message %s: %+v, want %+v", m.CallID, got, want[m.CallID])
		}
		delete(want, m.CallID)
	}
	if len(want) != 0 {
		t.Errorf("no tool messages for %v", want)
	}
}
