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

// A script can stream its answers, for testing what a user interface shows
// while a model writes.
func ExampleStreamed() {
	model := agenttest.NewStreamScript(agenttest.Streamed("It is ", "sunny ", "in Paris."))
	for ev, err := range agent.Stream(context.Background(), model, nil, agent.History{agent.UserText("Weather?")}, nil) {
		if err != nil {
			panic(err)
		}
		switch ev.Kind {
		case agent.EventDelta:
			fmt.Printf("delta %q\n", ev.Delta.Text)
		case agent.EventEnd:
			fmt.Printf("end: %s\n", ev.History[len(ev.History)-1].Text)
		}
	}
	// Output:
	// delta "It is "
	// delta "sunny "
	// delta "in Paris."
	// end: It is sunny in Paris.
}
