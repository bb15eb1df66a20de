package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// headerLog records the headers of the requests an HTTP handler serves.
type headerLog struct {
	next http.Handler
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.seen = append(l.seen, r.Header.Clone())
	l.mu.Unlock()
	l.next.ServeHTTP(w, r)
}

// TestTraceAcrossHop calls a remote tool from inside a span: the
// server's span of the call (otelhands.Tools) is a child of the client's
// span in the same trace, named and marked as OpenTelemetry's MCP
// conventions name an MCP server span, with the session's ID where there
// is one, and the call's duration is in mcp.server.operation.duration.
// The request carries the W3C headers and SEP-2243's Mcp-Method and
// Mcp-Name too.
func TestTraceAcrossHop(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := map[bool]string{false: "stateful", true: "stateless"}[stateless]
		t.Run(name, func(t *testing.T) {
			spans := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
			metrics := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))
			echo := tool.New("echo", "Echo a text.", func(_ context.Context, in struct {
				Text string `json:"text"`
			}) (string, error) {
				return in.Text, nil
			})
			reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{echo}})
			if err != nil {
				t.Fatal(err)
			}
			reg.Use(otelhands.Tools(&otelhands.Options{Registry: reg, TracerProvider: tp, MeterProvider: mp}))
			log := &headerLog{next: mcpserver.New(reg, nil).HTTPHandler(&mcpserver.HTTPOptions{Stateless: stateless})}
			ts := httptest.NewServer(log)
			defer ts.Close()
			c, err := mcpclient.Connect(t.Context(), mcpclient.HTTP(ts.URL, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()

			ctx, parent := tp.Tracer("test").Start(t.Context(), "caller")
			res := tool.Run(ctx, c.Tools()[0], tool.Call{Name: "echo", Args: json.RawMessage(`{"text":"hi"}`)})
			parent.End()
			if res.IsError {
				t.Fatalf("echo: %s", res.Content)
			}
			var served sdktrace.ReadOnlySpan
			for _, s := range spans.Ended() {
				if s.Name() == "tools/call echo" {
					served = s
				}
			}
			if served == nil {
				t.Fatalf("no span named tools/call echo among %d", len(spans.Ended()))
			}
			pc := parent.SpanContext()
			if served.SpanContext().TraceID() != pc.TraceID() || served.Parent().SpanID() != pc.SpanID() || !served.Parent().IsRemote() {
				t.Errorf("the server's span is in trace %s under %s, want trace %s under the caller's span %s, remote",
					served.SpanContext().TraceID(), served.Parent().SpanID(), pc.TraceID(), pc.SpanID())
			}
			if served.SpanKind() != trace.SpanKindServer {
				t.Errorf("the server's span is of kind %v, want server", served.SpanKind())
			}
			attrs := map[string]string{}
			for _, a := range served.Attributes() {
				attrs[string(a.Key)] = a.Value.Emit()
			}
			if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.operation.name"] != "execute_tool" || attrs["gen_ai.tool.name"] != "echo" || attrs["mcp.protocol.version"] == "" {
				t.Errorf("the server's span has %v, want mcp.method.name tools/call, execute_tool of echo and a protocol version", attrs)
			}
			if _, ok := attrs["mcp.session.id"]; ok == stateless {
				t.Errorf("the server's span has mcp.session.id %q; want one on a stateful session only", attrs["mcp.session.id"])
			}
			var rm metricdata.ResourceMetrics
			if err := metrics.Collect(t.Context(), &rm); err != nil {
				t.Fatal(err)
			}
			if !hasHistogram(rm, "mcp.server.operation.duration") {
				t.Error("no mcp.server.operation.duration was recorded")
			}

			log.mu.Lock()
			defer log.mu.Unlock()
			var call http.Header
			for _, h := range log.seen {
				if h.Get("Traceparent") != "" {
					call = h
				}
			}
			if call == nil || call.Get("Traceparent")[3:35] != pc.TraceID().String() {
				t.Fatalf("no request carried the caller's trace in traceparent: %v", log.seen)
			}
			if stateless { // 2026-07-28; stateful HTTP negotiates 2025-11-25, which has no such headers
				if call.Get("Mcp-Method") != "tools/call" || call.Get("Mcp-Name") != "echo" {
					t.Errorf("the call's Mcp-Method and Mcp-Name are %q and %q, want tools/call and echo", call.Get("Mcp-Method"), call.Get("Mcp-Name"))
				}
			}
		})
	}
}

// hasHistogram reports whether rm holds a histogram named name with a
// data point.
func hasHistogram(rm metricdata.ResourceMetrics, name string) bool {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == name && len(h.DataPoints) > 0 {
				return true
			}
		}
	}
	return false
}
