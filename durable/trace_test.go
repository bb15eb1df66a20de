package durable_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/durable/internal/devtest"
	"github.com/hands-go/hands/internal/otlptest"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
)

// TestTraceIntoActivities: an agent run (agent.Run, traced by otelhands)
// calls a tool that starts a durable run on a Temporal server and waits
// for it; the durable run's model calls the read tool. Client and worker
// have durable.Tracing's interceptor, the Agent a TracerProvider, and
// every span goes over OTLP/HTTP to one receiver: they are one trace, from
// the caller's run through the workflow and its activities to the tool's
// span, each hop's span a child of the one before.
func TestTraceIntoActivities(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	recv := &otlptest.Receiver{}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	exporter, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(sdkresource.NewSchemaless(semconv.ServiceName("fleet"))))
	defer tp.Shutdown(context.Background())

	tracing, err := durable.Tracing(tp)
	if err != nil {
		t.Fatal(err)
	}
	ts := devtest.Shared(t)
	c, err := client.Dial(client.Options{HostPort: ts.HostPort, Namespace: ts.Namespace,
		Interceptors: []interceptor.ClientInterceptor{tracing}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	const queue = "hands-trace"
	w := worker.New(c, queue, worker.Options{}) // the client's interceptors are the worker's
	model := agenttest.NewScript(
		turnWith(agenttest.Call("c1", "read", `{"path":"a"}`)),
		agent.Response{Text: "a holds its contents", FinishReason: agent.FinishStop},
	)
	durable.New(model, (&files{}).registry(t), &durable.Options{TracerProvider: tp}).Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// The caller: a run whose tool hands the work to a durable run.
	delegate := tool.New("delegate", "Have a durable agent do it.", func(ctx context.Context, in struct {
		Task string `json:"task"`
	}) (string, error) {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trace", TaskQueue: queue},
			durable.WorkflowName, durable.Input{History: agent.History{agent.UserText(in.Task)}})
		if err != nil {
			return "", err
		}
		var h agent.History
		if err := run.Get(ctx, &h); err != nil {
			return "", err
		}
		return h[len(h)-1].Text, nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "caller", Tools: []tool.Interface{delegate}})
	if err != nil {
		t.Fatal(err)
	}
	caller := agenttest.NewScript(
		turnWith(agenttest.Call("d1", "delegate", `{"task":"read a"}`)),
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	)
	history, err := agent.Run(ctx, caller, reg, agent.History{agent.UserText("have a read")},
		&agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(&otelhands.Options{AgentName: "caller", TracerProvider: tp})}})
	if err != nil {
		t.Fatal(err)
	}
	if got := history[len(history)-2].Text; got != "a holds its contents" {
		t.Fatalf("the delegate's result is %q, want the durable run's answer", got)
	}

	// Each span, and the one it must be the child of.
	chain := []struct{ name, parent string }{
		{"invoke_agent caller", ""},
		{"execute_tool delegate", "invoke_agent caller"},
		{"StartWorkflow:" + durable.WorkflowName, "execute_tool delegate"},
		{"RunWorkflow:" + durable.WorkflowName, "StartWorkflow:" + durable.WorkflowName},
		{"StartActivity:" + durable.TurnActivity, "RunWorkflow:" + durable.WorkflowName},
		{"RunActivity:" + durable.TurnActivity, "StartActivity:" + durable.TurnActivity},
		{"chat", "RunActivity:" + durable.TurnActivity},
		{"StartActivity:" + durable.CallActivity, "RunWorkflow:" + durable.WorkflowName},
		{"RunActivity:" + durable.CallActivity, "StartActivity:" + durable.CallActivity},
		{"execute_tool read", "RunActivity:" + durable.CallActivity},
	}
	// The spans are exported as they end: the workflow's, as its worker
	// finishes the workflow task, may come after the run's result. Two
	// spans have each name of the turn's activities, and the caller's
	// turns are chat spans too: a hop is a span of its name whose parent
	// is the hop before.
	deadline := time.Now().Add(time.Minute)
	spans := map[string]otlptest.Span{}
	for _, hop := range chain {
		parent := spans[hop.parent]
		s, ok := child(recv, hop.name, parent)
		for ; !ok && time.Now().Before(deadline); s, ok = child(recv, hop.name, parent) {
			time.Sleep(20 * time.Millisecond)
		}
		if !ok {
			t.Fatalf("the receiver has no span %q whose parent is %q (%s); it has:\n%s", hop.name, hop.parent, parent.ID, spanList(recv.Spans()))
		}
		spans[hop.name] = s
	}
	root := spans[chain[0].name]
	for _, hop := range chain {
		if s := spans[hop.name]; s.Trace != root.Trace {
			t.Errorf("span %q is in trace %s, want the caller's %s", hop.name, s.Trace, root.Trace)
		}
	}
}

// child returns a span named name whose parent is parent (a root span,
// when parent is the zero Span), once it has arrived.
func child(recv *otlptest.Receiver, name string, parent otlptest.Span) (otlptest.Span, bool) {
	for _, s := range recv.Spans() {
		if s.Name == name && s.Parent == parent.ID && (parent.ID == "" || s.Trace == parent.Trace) {
			return s, true
		}
	}
	return otlptest.Span{}, false
}

// spanList returns spans one a line.
func spanList(spans []otlptest.Span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	return b.String()
}
