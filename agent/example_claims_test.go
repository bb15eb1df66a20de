package agent_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/claims"
	"github.com/hands-go/hands/tool"
)

// Workers that resume each other's interrupts share a pause key and a
// claim store — here a table of a SQLite file — so that an approval
// delivered twice runs its call once.
func ExampleOptions_claims() {
	dir, err := os.MkdirTemp("", "claims")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite3", filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	store := &claims.SQL{DB: db} // Placeholder: "$1" on PostgreSQL
	if err := store.CreateTable(context.Background()); err != nil {
		panic(err)
	}

	type Target struct {
		Path string `json:"path"`
	}
	remove := tool.New("remove", "Remove a file.",
		func(ctx context.Context, t Target) (string, error) { return "removed " + t.Path, nil },
		tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{remove}})
	if err != nil {
		panic(err)
	}
	opts := &agent.Options{
		NeedsApproval: agent.Destructive(reg),
		PauseKey:      []byte("a 32-byte secret the workers share"), // from a secret store
		Claims:        store,
	}
	model := agenttest.NewScript(agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "remove", `{"path":"/tmp/old"}`)}})
	_, err = agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Tidy /tmp.")}, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		panic(err)
	}

	for range 2 { // the approval arrives twice
		model := agenttest.NewScript(agent.Response{Text: "Done."})
		history, err := agent.Resume(context.Background(), model, reg, in, []agent.Decision{agent.Approve("c1")}, opts)
		switch {
		case errors.Is(err, agent.ErrInterruptClaimed):
			fmt.Println("already resumed; nothing ran")
		case err != nil:
			panic(err)
		default:
			fmt.Println(history[len(history)-2].Text)
		}
	}
	// Output:
	// removed /tmp/old
	// already resumed; nothing ran
}
