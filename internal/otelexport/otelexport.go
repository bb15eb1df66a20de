// Package otelexport sets up OpenTelemetry's SDK for the programs of this
// module: a tracer provider that exports over OTLP/HTTP when the standard
// environment variables ask for it. It is apart from otelhands, which
// depends on the OpenTelemetry API only, as instrumentation should: which
// SDK and exporter a program uses is the program's choice.
package otelexport

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// EnabledByEnv reports whether the environment asks for traces to be
// exported, as InstallFromEnv reads it: an OTLP endpoint is set and the SDK
// is not disabled.
func EnabledByEnv() bool {
	return !strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") &&
		(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "")
}

// InstallFromEnv installs, as the global tracer provider, one that exports
// spans over OTLP/HTTP, when the environment asks for it: when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
// and OTEL_SDK_DISABLED is not "true". Otherwise it installs nothing, and
// the shutdown it returns does nothing: tracing is off by default.
//
// The exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself
// (endpoint, headers, timeout, compression, certificates); the protocol, if
// given, must be http/protobuf. The resource reads OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES; service is the service name when
// OTEL_SERVICE_NAME is not set. Nothing connects until the first spans are
// exported, so a missing collector costs only failed exports, which are
// reported through otel.Handle.
//
// Call shutdown before the program exits: it flushes the spans still
// buffered and stops the provider.
func InstallFromEnv(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	off := func(context.Context) error { return nil }
	if !EnabledByEnv() {
		return off, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := os.Getenv(name); p != "" {
			if p != "http/protobuf" {
				return off, fmt.Errorf("otelexport: %s=%q: only http/protobuf is supported", name, p)
			}
			break
		}
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return off, fmt.Errorf("otelexport: OTLP exporter: %w", err)
	}
	res := sdkresource.Default()
	if os.Getenv("OTEL_SERVICE_NAME") == "" && service != "" {
		res, err = sdkresource.Merge(res, sdkresource.NewSchemaless(semconv.ServiceName(service)))
		if err != nil {
			return off, fmt.Errorf("otelexport: resource: %w", err)
		}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}
