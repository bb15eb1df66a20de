// Command tracedagent runs a scripted agent whose run, model calls and tool
// calls are traced with OpenTelemetry, and whose destructive call waits for
// approval, which it gives. It needs no model provider and no collector:
//
//	go run ./examples/tracedagent
//
// exports nothing, and
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run ./examples/tracedagent
//
// sends the spans to a collector listening there (OTLP over HTTP).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/otelexport"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
)

// Target is the argument of the remove tool.
type Target struct {
	Path string `json:"path" jsonschema:"the file to remove" tool:"minLength=1"`
}

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) (err error) {
	shutdown, err := otelexport.InstallFromEnv(ctx, "tracedagent")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, shutdown(ctx)) }()
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		fmt.Println("tracing is off; set OTEL_EXPORTER_OTLP_ENDPOINT to export spans")
	}

	remove := tool.New("remove", "Remove a file.",
		func(ctx context.Context, t Target) (string, error) { return "removed " + t.Path, nil },
		tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: []tool.Interface{remove}})
	if err != nil {
		return err
	}
	opts := &agent.Options{
		NeedsApproval: agent.Destructive(reg),
		Middleware:    []agent.Middleware{otelhands.Middleware(&otelhands.Options{AgentName: "janitor", Model: "scripted"})},
	}

	model := agenttest.NewScript(agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "remove", `{"path":"old.log"}`)}})
	_, err = agent.Run(ctx, model, reg, agent.History{agent.UserText("Remove old.log.")}, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		return fmt.Errorf("the run did not pause: %v", err)
	}
	for _, p := range in.Pending {
		fmt.Printf("approving %s %s\n", p.Call.Name, p.Call.Args)
	}
	model = agenttest.NewScript(agent.Response{Text: "Removed old.log."})
	history, err := agent.Resume(ctx, model, reg, in, []agent.Decision{agent.Approve("c1")}, opts)
	if err != nil {
		return err
	}
	fmt.Println(history[len(history)-1].Text)
	return nil
}
