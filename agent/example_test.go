package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// A conversation with two scopes — notes for everyone, and an admin scope
// gated on the signed-in user — driven by a scripted model. The model's
// first call is invalid; it reads the issues in the tool message and fixes
// its call on the next turn.
func Example() {
	type NewNote struct {
		Title string   `json:"title" jsonschema:"a short title" tool:"minLength=1,maxLength=40"`
		Tags  []string `json:"tags,omitempty" jsonschema:"labels" tool:"enum=home|work"`
	}
	type Purge struct {
		Before string `json:"before" jsonschema:"delete notes older than this" tool:"format=date"`
	}
	var notes []string
	createNote := tool.New("create_note", "Save a note.", func(ctx context.Context, n NewNote) (string, error) {
		notes = append(notes, n.Title)
		return fmt.Sprintf("saved note %d", len(notes)), nil
	})
	purge := tool.New("purge_notes", "Delete old notes.", func(ctx context.Context, p Purge) (string, error) {
		return "purged", nil
	})

	signedInAsAdmin := false
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{createNote}},
		&tool.Scope{
			Name:         "admin",
			Tools:        []tool.Interface{purge},
			Enabled:      func(context.Context) bool { return signedInAsAdmin },
			Instructions: "The user is an administrator.",
		},
	)
	if err != nil {
		panic(err)
	}

	model := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "create_note", `{"title":"","tags":["shopping"]}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c2", "create_note", `{"title":"Groceries","tags":["home"]}`)}},
		agent.Response{Text: "Saved your note."},
	)
	history, err := agent.Run(context.Background(), model, reg,
		agent.History{agent.UserText("Note: groceries, for home.")},
		&agent.Options{System: "You keep notes."})
	if err != nil {
		panic(err)
	}
	for _, m := range history {
		switch {
		case len(m.Calls) > 0:
			fmt.Printf("%s: call %s %s %s\n", m.Role, m.Calls[0].ID, m.Calls[0].Name, m.Calls[0].Args)
		case m.Role == agent.RoleTool:
			fmt.Printf("%s %s (error=%v): %s\n", m.Role, m.CallID, m.IsError, strings.ReplaceAll(m.Text, "\n", " | "))
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Text)
		}
	}
	req := model.Requests()[0]
	fmt.Printf("turn 1 showed %d tool(s); system prompt %q\n", len(req.Tools), req.System)
	// Output:
	// user: Note: groceries, for home.
	// assistant: call c1 create_note {"title":"","tags":["shopping"]}
	// tool c1 (error=true): The arguments for create_note are invalid: | - /title: must be at least 1 character, got 0 | - /tags/0: must be one of "home", "work"; got "shopping" | Fix these and call create_note again.
	// assistant: call c2 create_note {"title":"Groceries","tags":["home"]}
	// tool c2 (error=false): saved note 1
	// assistant: Saved your note.
	// turn 1 showed 1 tool(s); system prompt "You keep notes."
}
