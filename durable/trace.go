package durable

import (
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/otelhands"
)

// tracingScope is the instrumentation scope of the spans of Tracing's
// interceptor: the one Temporal's OpenTelemetry interceptor uses when it
// makes its own tracer.
const tracingScope = "temporal-sdk-go"

// Tracing returns the interceptor that carries a run's trace across
// Temporal: Temporal's OpenTelemetry interceptor
// (go.temporal.io/sdk/contrib/opentelemetry), whose spans tp makes (nil:
// otel.GetTracerProvider()) and which carries the W3C trace context and
// baggage in the headers of Temporal's requests, as Temporal's SDKs in
// other languages read them. Put it in the client.Options.Interceptors of
// the client that starts runs and of the client the workers are made
// from: a worker made from a client uses the client's interceptors.
//
// With it, a run started in a span is in that span's trace: starting it
// is a span of the caller's (StartWorkflow:hands.Run), the workflow a
// child of that one (RunWorkflow:hands.Run), and each activity a child of
// the workflow's span (StartActivity:…, and RunActivity:… on the worker
// that runs it). The client's other calls made in a span, such as an
// UpdateDecide, are spans of its trace too. What runs in an activity is
// in the activity's span: give Options.TracerProvider to trace the turns
// and the calls.
//
// The error is the interceptor's constructor's, which refuses none of
// the options Tracing gives it.
func Tracing(tp trace.TracerProvider) (interceptor.Interceptor, error) {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	i, err := opentelemetry.NewTracingInterceptor(opentelemetry.TracerOptions{Tracer: tp.Tracer(tracingScope)})
	if err != nil {
		return nil, fmt.Errorf("durable: Temporal's OpenTelemetry interceptor: %w", err)
	}
	return i, nil
}

// traced returns the otelhands middleware of the Agent's activities, or
// the zero agent.Middleware when Options.TracerProvider is nil.
func traced(a *Agent) agent.Middleware {
	if a.opts.TracerProvider == nil {
		return agent.Middleware{}
	}
	return otelhands.Middleware(&otelhands.Options{TracerProvider: a.opts.TracerProvider, Registry: a.reg})
}
