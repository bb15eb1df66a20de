package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// A response cut off at the token limit ends the run with an error that
// matches agent.ErrTruncated: its call, whose arguments are cut off, never
// runs, and the history ends before that turn.
func ExampleIncompleteError() {
	type Args struct {
		City string `json:"city"`
	}
	weather := tool.New("get_weather", "Report the weather in a city.", func(ctx context.Context, a Args) (string, error) {
		return "sunny in " + a.City, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{weather}})
	if err != nil {
		log.Fatal(err)
	}
	model := agenttest.NewScript(agent.Response{
		Calls:           []agent.ToolCall{agenttest.Call("c1", "get_weather", `{"city":"Par`)},
		FinishReason:    agent.FinishLength,
		RawFinishReason: "max_tokens",
	})
	history, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Weather in Paris?")}, nil)
	fmt.Println(errors.Is(err, agent.ErrTruncated), len(history))
	if ierr, ok := errors.AsType[*agent.IncompleteError](err); ok {
		fmt.Printf("turn %d: %s, arguments %s\n", ierr.Turn, ierr.Response.RawFinishReason, ierr.Response.Calls[0].Args)
	}
	// Output:
	// true 1
	// turn 1: max_tokens, arguments {"city":"Par
}
