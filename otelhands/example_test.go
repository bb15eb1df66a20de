package otelhands_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A traced run, recorded in memory: one span for the run, one per model
// call and one per tool call.
func ExampleMiddleware() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	type City struct {
		Name string `json:"name" tool:"minLength=1"`
	}
	weather := tool.New("weather", "Report the weather.", func(ctx context.Context, c City) (string, error) {
		return "sunny in " + c.Name, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{weather}})
	if err != nil {
		log.Fatal(err)
	}
	model := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "weather", `{"name":"Oslo"}`)}},
		agent.Response{Text: "It is sunny in Oslo."},
	)
	opts := &agent.Options{Middleware: []agent.Middleware{
		otelhands.Middleware(&otelhands.Options{TracerProvider: tp, AgentName: "forecaster", Model: "test-model"}),
	}}
	if _, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Weather in Oslo?")}, opts); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.GetSpans() { // in the order they ended
		fmt.Println(s.Name)
	}
	// Output:
	// chat test-model
	// execute_tool weather
	// chat test-model
	// invoke_agent forecaster
}
