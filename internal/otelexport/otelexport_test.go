package otelexport_test

import (
	"testing"

	"github.com/hands-go/hands/internal/otelexport"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestInstallFromEnv checks that tracing is off unless the environment
// asks for it, that only OTLP over HTTP is accepted, and that
// OTEL_SDK_DISABLED turns it off.
func TestInstallFromEnv(t *testing.T) {
	global := otel.GetTracerProvider()
	t.Cleanup(func() {
		if otel.GetTracerProvider() != global {
			otel.SetTracerProvider(global)
		}
	})
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(name, "")
	}

	shutdown, err := otelexport.InstallFromEnv(t.Context(), "hands")
	if err != nil || shutdown(t.Context()) != nil {
		t.Fatalf("InstallFromEnv without an endpoint = %v", err)
	}
	if otel.GetTracerProvider() != global {
		t.Error("InstallFromEnv without an endpoint installed a provider; tracing must be off by default")
	}

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	if _, err := otelexport.InstallFromEnv(t.Context(), "hands"); err == nil {
		t.Error("InstallFromEnv with the grpc protocol succeeded, want an error")
	}

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	shutdown, err = otelexport.InstallFromEnv(t.Context(), "hands")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); !ok {
		t.Errorf("the global provider is a %T, want the SDK's", otel.GetTracerProvider())
	}
	if err := shutdown(t.Context()); err != nil { // no spans: nothing to send
		t.Errorf("shutdown: %v", err)
	}

	t.Setenv("OTEL_SDK_DISABLED", "true")
	otel.SetTracerProvider(global)
	if _, err := otelexport.InstallFromEnv(t.Context(), "hands"); err != nil || otel.GetTracerProvider() != global {
		t.Errorf("OTEL_SDK_DISABLED=true: InstallFromEnv = %v, provider %T; want nothing installed", err, otel.GetTracerProvider())
	}
}
