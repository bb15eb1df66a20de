// Command memory is an agent that remembers across runs: its key-value
// tools are bound to a store that outlives the process (memory.db in the
// working directory, which git ignores in the clone, or MEMORY=redis://…).
// The model is scripted, so that it needs no provider:
//
//	go run ./examples/memory remember Ada   # the agent stores the name
//	go run ./examples/memory                # a later run reads it back
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/kv"
	_ "github.com/hands-go/hands/kv/memkv"
	_ "github.com/hands-go/hands/kv/rediskv"
	_ "github.com/hands-go/hands/kv/sqlitekv"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/kvtool"
)

// Env is what the tools are bound to.
type Env struct {
	Memory *kv.Store `bind:"MEMORY,default=sqlite://./memory.db"`
}

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, args []string) error {
	var env Env
	if err := bind.Load(ctx, &env, nil); err != nil {
		return err
	}
	defer bind.Close(&env)
	reg, err := tool.NewRegistry(&tool.Scope{Name: "memory", Tools: kvtool.Tools(env.Memory)})
	if err != nil {
		return err
	}

	// What a model would do: store the name when told it, look it up when
	// asked.
	var model *agenttest.Script
	var question string
	if len(args) == 2 && args[0] == "remember" {
		put, _ := json.Marshal(map[string]string{"key": "user/name", "value": args[1]})
		question = "My name is " + args[1] + "."
		model = agenttest.NewScript(
			agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "kv_put", string(put))}},
			agent.Response{Text: "I will remember that."})
	} else {
		question = "What is my name?"
		model = agenttest.NewScript(
			agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "kv_get", `{"key":"user/name"}`)}},
			agent.Response{Text: "That is what I remember."})
	}
	history, err := agent.Run(ctx, model, reg, agent.History{agent.UserText(question)}, nil)
	if err != nil {
		return err
	}
	for _, m := range history {
		switch m.Role {
		case agent.RoleUser:
			fmt.Println("user:", m.Text)
		case agent.RoleTool:
			fmt.Println("tool:", strings.TrimSpace(m.Text))
		case agent.RoleAssistant:
			if m.Text != "" {
				fmt.Println("agent:", m.Text)
			}
		}
	}
	return nil
}
