package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/otelexport"
	"github.com/hands-go/hands/internal/otlptest"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestTracedUpstreamServer is not a test: run as a process by
// TestTraceAcrossGateway, with HANDS_TEST_TRACED_UPSTREAM=1, it is an
// upstream MCP server on stdio whose calls are traced with otelhands and
// exported over OTLP as the environment says, as service "upstream".
func TestTracedUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_TRACED_UPSTREAM") != "1" {
		t.Skip("the upstream server of TestTraceAcrossGateway")
	}
	ctx := context.Background()
	shutdown, err := otelexport.InstallFromEnv(ctx, "upstream")
	if err != nil {
		t.Fatal(err)
	}
	shout := tool.New("shout", "Shout a text.", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "upstream", Tools: []tool.Interface{shout}})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(otelhands.Tools(&otelhands.Options{Registry: reg}))
	if err := mcpserver.New(reg, &mcpserver.Options{Name: "upstream"}).Run(ctx, &mcpserver.StdioTransport{Reader: os.Stdin, Writer: os.Stdout}); err != nil {
		t.Log(err)
	}
	shutdown(ctx) // flushes the spans
	os.Exit(0)
}

// TestTraceAcrossGateway runs an agent whose tool is served by hands
// serve --upstream from an upstream server process, every one of them
// exporting its spans over OTLP/HTTP to one receiver on 127.0.0.1: the
// run, the gateway's span of the call and the upstream's are one trace,
// each hop's span a child of the one before, the trace context carried
// in the requests' _meta (SEP-414) over HTTP and over stdio.
func TestTraceAcrossGateway(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	recv := &otlptest.Receiver{}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("HANDS_TOKEN", "")
	t.Setenv("HANDS_TEST_TRACED_UPSTREAM", "1")

	line, stopServe := startServe(t, "--http", "127.0.0.1:0",
		"--upstream-env", "HANDS_TEST_TRACED_UPSTREAM", "--upstream-env", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"--upstream", "up="+exe+" -test.run=^TestTracedUpstreamServer$")
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, "up_shout") {
		stopServe()
		t.Fatalf("startup line %q names no address or no up_shout", line)
	}

	// The agent, with a tracer provider of its own, service "agent".
	exporter, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(sdkresource.NewSchemaless(semconv.ServiceName("agent"))))
	c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(m[1]+"/mcp", nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "gateway", Tools: c.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	model := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "up_shout", `{"text":"hi"}`)}, FinishReason: agent.FinishToolCalls},
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	)
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("shout hi")},
		&agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(&otelhands.Options{AgentName: "shouter", TracerProvider: tp})}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(history); !strings.Contains(got, "HI") {
		t.Errorf("the run's history lacks the upstream's answer HI: %s", got)
	}
	c.Close()
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := stopServe(); err != nil { // flushes the gateway's spans, and ends the upstream, which flushes its own
		t.Fatal(err)
	}

	chain := []struct{ service, name string }{
		{"agent", "invoke_agent shouter"},
		{"agent", "execute_tool up_shout"},
		{"hands", "tools/call up_shout"},
		{"upstream", "tools/call shout"},
	}
	deadline := time.Now().Add(time.Minute) // the upstream process exports as it exits
	var spans []otlptest.Span
	for _, hop := range chain {
		s, ok := recv.Find(hop.service, hop.name)
		for ; !ok && time.Now().Before(deadline); s, ok = recv.Find(hop.service, hop.name) {
			time.Sleep(20 * time.Millisecond)
		}
		if !ok {
			t.Fatalf("the receiver has no span %q of %s; it has %v", hop.name, hop.service, recv.Spans())
		}
		spans = append(spans, s)
	}
	for i, s := range spans {
		if s.Trace != spans[0].Trace {
			t.Errorf("%s's span %q is in trace %s, want the run's %s", s.Service, s.Name, s.Trace, spans[0].Trace)
		}
		if i > 0 && s.Parent != spans[i-1].ID {
			t.Errorf("%s's span %q has parent %s, want %s's %q, %s", s.Service, s.Name, s.Parent, spans[i-1].Service, spans[i-1].Name, spans[i-1].ID)
		}
	}
	if spans[0].Parent != "" {
		t.Errorf("the run's span has a parent, %s", spans[0].Parent)
	}
	for _, s := range spans[2:] {
		if s.Kind != tracepb.Span_SPAN_KIND_SERVER {
			t.Errorf("%s's span %q is of kind %v, want server", s.Service, s.Name, s.Kind)
		}
	}
}
