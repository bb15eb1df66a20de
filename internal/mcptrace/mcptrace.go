// Package mcptrace carries OpenTelemetry's trace context across the hops
// of MCP, as SEP-414 and OpenTelemetry's MCP semantic conventions set it
// down: the W3C Trace Context and Baggage keys (traceparent, tracestate,
// baggage) in a request's params._meta, unprefixed, and the same W3C
// headers on an HTTP request. mcpclient injects them; mcpserver extracts
// them, and marks the requests it serves (Served) for otelhands, which
// cannot import it, to record as MCP spans and metrics.
//
// The propagator is W3C Trace Context and Baggage whatever the program
// installed as OpenTelemetry's global one: SEP-414 names these keys and
// formats for _meta, and a server reads them whatever its client's
// program chose. It depends on OpenTelemetry's API alone.
package mcptrace

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The _meta keys of SEP-414.
const (
	TraceParent = "traceparent"
	TraceState  = "tracestate"
	Baggage     = "baggage"
)

// w3c is the propagator of SEP-414.
var w3c = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Carries reports whether ctx has anything to propagate: a valid span
// context, or baggage.
func Carries(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid() || baggage.FromContext(ctx).Len() > 0
}

// Inject returns meta with the trace context of ctx added under the keys
// of SEP-414, a new map when meta is nil; or meta as it is when ctx
// carries none. A key meta holds already is replaced.
func Inject(ctx context.Context, meta map[string]any) map[string]any {
	if !Carries(ctx) {
		return meta
	}
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	if len(c) == 0 {
		return meta
	}
	if meta == nil {
		meta = make(map[string]any, len(c))
	}
	for k, v := range c {
		meta[k] = v
	}
	return meta
}

// InjectHeader sets the W3C headers of the trace context of ctx on h; it
// sets nothing when ctx carries none.
func InjectHeader(ctx context.Context, h http.Header) {
	if Carries(ctx) {
		w3c.Inject(ctx, propagation.HeaderCarrier(h))
	}
}

// metaCarrier reads the string values of a request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Extract returns ctx continuing the trace that a request's _meta carries,
// else the one its HTTP headers carry (h may be nil), with the baggage
// of the same carrier; and the span context ctx had, which the request's
// _meta replaced as the parent (the transport's, an HTTP server span's,
// say), for a link — invalid when there was none or nothing replaced it.
// A context with a span of its own keeps it when _meta carries no trace:
// the headers are already that span's parent when an HTTP
// instrumentation made it.
func Extract(ctx context.Context, meta map[string]any, h http.Header) (context.Context, trace.SpanContext) {
	ambient := trace.SpanContextFromContext(ctx)
	if m := metaCarrier(meta); m.Get(TraceParent) != "" {
		if out := w3c.Extract(ctx, m); trace.SpanContextFromContext(out).IsValid() {
			if ambient.Equal(trace.SpanContextFromContext(out)) {
				ambient = trace.SpanContext{}
			}
			return out, ambient
		}
	}
	if !ambient.IsValid() && h != nil && h.Get(TraceParent) != "" {
		return w3c.Extract(ctx, propagation.HeaderCarrier(h)), trace.SpanContext{}
	}
	return ctx, trace.SpanContext{}
}

// Served is what the server knows of the MCP request a context serves,
// for the spans and metrics of otelhands (OpenTelemetry's MCP semantic
// conventions).
type Served struct {
	// Method is the request's method (mcp.method.name).
	Method string
	// SessionID is the session's ID (mcp.session.id); empty where there
	// is none (stdio, stateless HTTP).
	SessionID string
	// ProtocolVersion is the protocol version of the request
	// (mcp.protocol.version); empty when not known.
	ProtocolVersion string
	// Link is the span context the request's _meta replaced as the parent
	// (Extract); invalid when none.
	Link trace.SpanContext
}

// servedKey is the context key of Served.
type servedKey struct{}

// WithServed returns ctx marked as serving the MCP request s describes.
func WithServed(ctx context.Context, s Served) context.Context {
	return context.WithValue(ctx, servedKey{}, s)
}

// ServedFrom returns what ctx serves, and false outside an MCP request
// served by mcpserver.
func ServedFrom(ctx context.Context) (Served, bool) {
	s, ok := ctx.Value(servedKey{}).(Served)
	return s, ok
}
