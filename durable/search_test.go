package durable_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/tool"
)

// TestActivitiesLoadSearchedTools checks that the durable activities run
// the portable tool search as agent.Run does: the call activity answers
// search_tools and records what it loaded, and the turn activity, given
// that history through JSON as Temporal passes it, sends the loaded tool
// after the others, as agent.Run would.
func TestActivitiesLoadSearchedTools(t *testing.T) {
	handler := func(context.Context, pathArgs) (string, error) { return "ok", nil }
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "files", Tools: []tool.Interface{tool.New("read_file", "Read a file.", handler)}},
		&tool.Scope{Name: "archive", DeferLoading: true, Tools: []tool.Interface{
			tool.New("compress_file", "Compress a file into a zip archive.", handler),
			tool.New("list_archive", "List the files of a zip archive.", handler),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	model := agenttest.NewScript(agent.Response{Text: "done"})
	a := durable.New(model, reg, nil)

	search := agent.ToolCall{ID: "s1", Name: agent.SearchToolName, Args: []byte(`{"query":"compress a file into an archive","limit":1}`)}
	msg, err := a.Call(t.Context(), durable.CallInput{Call: search})
	if err != nil {
		t.Fatalf("Call(search_tools) = %v", err)
	}
	if !slices.Equal(msg.Loaded, []string{"compress_file"}) {
		t.Fatalf("the search's tool message loaded %v, want [compress_file]: %s", msg.Loaded, msg.Text)
	}
	history := agent.History{agent.UserText("Zip a.txt."), {Role: agent.RoleAssistant, Calls: []agent.ToolCall{search}}, msg}
	data, err := json.Marshal(durable.TurnInput{Turn: 2, History: history})
	if err != nil {
		t.Fatal(err)
	}
	var in durable.TurnInput
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Turn(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range model.Requests()[0].Tools {
		got = append(got, s.Name)
	}
	if want := []string{"read_file", agent.SearchToolName, "compress_file"}; !slices.Equal(got, want) {
		t.Errorf("the turn activity sent %v, want %v", got, want)
	}
	if want := agent.NewRequest(t.Context(), reg, "", history).Tools; !slices.EqualFunc(model.Requests()[0].Tools, want, func(a, b tool.Spec) bool { return a.Name == b.Name }) {
		t.Errorf("the turn activity's tools differ from agent.NewRequest's")
	}
}
