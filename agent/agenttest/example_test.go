package agenttest_test

import (
	"context"
	"fmt"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
)

// A Script answers each turn with the next response and records what it was
// asked.
func ExampleScript() {
	model := agenttest.NewScript(agent.Response{Text: "Hello."})
	resp, err := model.Generate(context.Background(), &agent.Request{
		System:   "You are terse.",
		Messages: []agent.Message{agent.UserText("Say hello.")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Text)
	fmt.Println(model.Requests()[0].Messages[0].Text)

	_, err = model.Generate(context.Background(), &agent.Request{})
	fmt.Println(err)
	// Output:
	// Hello.
	// Say hello.
	// agenttest: the script has no more responses
}
