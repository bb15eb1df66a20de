package mcptrace_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/hands-go/hands/internal/mcptrace"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/trace"
)

// spanContext returns a sampled span context of the given IDs.
func spanContext(t *testing.T, traceID, spanID string) trace.SpanContext {
	t.Helper()
	tid, err := trace.TraceIDFromHex(traceID)
	if err != nil {
		t.Fatal(err)
	}
	sid, err := trace.SpanIDFromHex(spanID)
	if err != nil {
		t.Fatal(err)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
}

// TestRoundTrip injects a span context and baggage into _meta and the
// headers, and extracts them on the other side: _meta wins over the
// headers and over the span the server's context had, which it returns
// for a link; without _meta, a span the context has is kept, and
// without either, the headers are read.
func TestRoundTrip(t *testing.T) {
	caller := spanContext(t, "0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7")
	other := spanContext(t, "4bf92f3577b34da6a3ce929d0e0e4736", "b7ad6b7169203331")
	member, _ := baggage.NewMember("user", "ada")
	bag, _ := baggage.New(member)
	ctx := baggage.ContextWithBaggage(trace.ContextWithSpanContext(context.Background(), caller), bag)

	if m := mcptrace.Inject(context.Background(), nil); m != nil {
		t.Errorf("Inject without a trace = %v, want nil", m)
	}
	meta := mcptrace.Inject(ctx, map[string]any{"progressToken": "p"})
	if meta["traceparent"] != "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01" || meta["baggage"] != "user=ada" || meta["progressToken"] != "p" {
		t.Errorf("Inject = %v", meta)
	}
	h := http.Header{}
	mcptrace.InjectHeader(ctx, h)
	if h.Get("Traceparent") != meta["traceparent"] {
		t.Errorf("InjectHeader set traceparent %q, want %q", h.Get("Traceparent"), meta["traceparent"])
	}
	otherHeader := http.Header{}
	mcptrace.InjectHeader(trace.ContextWithSpanContext(context.Background(), other), otherHeader)

	for _, tt := range []struct {
		name    string
		ambient trace.SpanContext
		meta    map[string]any
		header  http.Header
		want    trace.SpanContext
		link    trace.SpanContext
	}{
		{"meta", trace.SpanContext{}, meta, otherHeader, caller, trace.SpanContext{}},
		{"meta over the context's span", other, meta, nil, caller, other},
		{"the context's span", other, nil, h, other, trace.SpanContext{}},
		{"headers", trace.SpanContext{}, map[string]any{"progressToken": "p"}, h, caller, trace.SpanContext{}},
		{"nothing", trace.SpanContext{}, nil, nil, trace.SpanContext{}, trace.SpanContext{}},
	} {
		base := context.Background()
		if tt.ambient.IsValid() {
			base = trace.ContextWithSpanContext(base, tt.ambient)
		}
		got, link := mcptrace.Extract(base, tt.meta, tt.header)
		sc := trace.SpanContextFromContext(got)
		if sc.TraceID() != tt.want.TraceID() || sc.SpanID() != tt.want.SpanID() || !link.Equal(tt.link) {
			t.Errorf("%s: extracted %v, link %v; want %v, link %v", tt.name, sc, link, tt.want, tt.link)
		}
		if tt.name == "meta" && baggage.FromContext(got).Member("user").Value() != "ada" {
			t.Errorf("%s: the baggage did not cross", tt.name)
		}
	}
}
