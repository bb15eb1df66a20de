package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// A destructive tool waits for a person's approval. The run pauses with an
// *Interrupt, which is saved as JSON; later, perhaps in another process,
// the run resumes from it with the person's decision — here, to run the
// call with narrower arguments.
func ExampleResume() {
	type Target struct {
		Path string `json:"path" jsonschema:"the file or directory to remove"`
	}
	remove := tool.New("remove", "Remove a file or a directory.",
		func(ctx context.Context, t Target) (string, error) { return "removed " + t.Path, nil },
		tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{remove}})
	if err != nil {
		panic(err)
	}
	opts := &agent.Options{NeedsApproval: agent.Destructive(reg)}

	model := agenttest.NewScript(agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "remove", `{"path":"/var/cache"}`)}})
	_, err = agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Clear the cache.")}, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		panic(err)
	}
	for _, p := range in.Pending {
		fmt.Printf("waits for %s: %s %s\n", p.Kind, p.Call.Name, p.Call.Args)
	}
	saved, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}

	// Later: the saved interrupt and the person's decision.
	var restored agent.Interrupt
	if err := json.Unmarshal(saved, &restored); err != nil {
		panic(err)
	}
	decisions := []agent.Decision{agent.Edit("c1", json.RawMessage(`{"path":"/var/cache/old"}`))}
	model = agenttest.NewScript(agent.Response{Text: "I removed the old part of the cache."})
	history, err := agent.Resume(context.Background(), model, reg, &restored, decisions, opts)
	if err != nil {
		panic(err)
	}
	for _, m := range history[1:] {
		switch {
		case len(m.Calls) > 0:
			fmt.Printf("%s: call %s %s\n", m.Role, m.Calls[0].Name, m.Calls[0].Args)
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Text)
		}
	}
	// Output:
	// waits for approval: remove {"path":"/var/cache"}
	// assistant: call remove {"path":"/var/cache/old"}
	// tool: removed /var/cache/old
	// assistant: I removed the old part of the cache.
}
