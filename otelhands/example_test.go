package otelhands_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
	"go.opentelemetry.io/otel"
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

// A program installs the OTLP exporter from the environment at start-up
// and flushes it on the way out. Without OTEL_EXPORTER_OTLP_ENDPOINT, no
// provider is installed and the spans go nowhere; with it, nothing connects
// until there are spans to send.
func ExampleInstallFromEnv() {
	ctx := context.Background()
	shutdown, err := otelhands.InstallFromEnv(ctx, "notes-agent")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
			otel.Handle(err)
		}
	}()

	// The middleware uses the global provider that InstallFromEnv set.
	opts := &agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(&otelhands.Options{AgentName: "notes"})}}
	_ = opts // pass to agent.Run
}
