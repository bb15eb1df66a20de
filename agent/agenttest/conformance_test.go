package agenttest_test

import (
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
)

// TestTestModel runs the kit on a Script that plays the exchange: its two
// turns, and no third for the Stream subtest.
func TestTestModel(t *testing.T) {
	calls := agent.Response{
		Calls: []agent.ToolCall{
			agenttest.Call("c1", agenttest.WeatherTool, `{"city":"Paris"}`),
			agenttest.Call("c2", agenttest.WeatherTool, `{"city":"Atlantis"}`),
		},
		FinishReason: agent.FinishToolCalls,
	}
	script := agenttest.NewStreamScript(
		agenttest.Turn{
			Deltas: []agent.Delta{
				{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: agenttest.WeatherTool, Args: `{"city":`}},
				{Call: &agent.CallDelta{Index: 0, Args: `"Paris"}`}},
				{Call: &agent.CallDelta{Index: 1, ID: "c2", Name: agenttest.WeatherTool, Args: `{"city":"Atlantis"}`}},
			},
			Response: calls,
		},
		agenttest.Turn{Response: agent.Response{Text: "It is 18 degrees Celsius and sunny in Paris; Atlantis has no weather station.", FinishReason: agent.FinishStop}},
	)
	agenttest.TestModel(t, script)

	reqs := script.Requests()
	if len(reqs) != 2 { // the exchange's two turns; a Script does not record a call with a cancelled context
		t.Fatalf("the script got %d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages
	if n := len(last); n != 4 { // the prompt, the calls, two results
		t.Fatalf("the second request has %d messages, want 4", n)
	}
	for i, want := range []struct {
		id      string
		isError bool
	}{{"c1", false}, {"c2", true}} {
		if m := last[2+i]; m.Role != agent.RoleTool || m.CallID != want.id || m.IsError != want.isError {
			t.Errorf("message %d = %+v, want the result of %s with IsError %v", 2+i, m, want.id, want.isError)
		}
	}
}
