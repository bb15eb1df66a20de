// Package otlptest is an OTLP/HTTP trace receiver for tests: a real one,
// which decodes each export request with the collector's protobuf types,
// so that a test checks the spans a program exports as a collector would
// receive them, across processes and across modules of this repository.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sync"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// A Span is a span a Receiver was sent, and the service that sent it.
type Span struct {
	Service, Name     string
	Trace, ID, Parent string // hex; Parent is empty for a root span
	Kind              tracepb.Span_SpanKind
}

func (s Span) String() string {
	return fmt.Sprintf("%s %q (trace %s, span %s, parent %s, %v)", s.Service, s.Name, s.Trace, s.ID, s.Parent, s.Kind)
}

// A Receiver is an OTLP/HTTP trace receiver: an http.Handler of
// /v1/traces that keeps the spans of every export request. Its zero value
// is ready to use; serve it with httptest.NewServer and give the server's
// URL to the exporter (OTEL_EXPORTER_OTLP_ENDPOINT, or
// otlptracehttp.WithEndpointURL with "/v1/traces" added).
type Receiver struct {
	mu    sync.Mutex
	spans []Span
}

// ServeHTTP decodes an export request, gzipped or not, and keeps its
// spans.
func (o *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	data, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == string(semconv.ServiceNameKey) {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				o.spans = append(o.spans, Span{Service: service, Name: s.Name, Kind: s.Kind,
					Trace: hex.EncodeToString(s.TraceId), ID: hex.EncodeToString(s.SpanId), Parent: hex.EncodeToString(s.ParentSpanId)})
			}
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Find returns the first span of service named name that has arrived;
// an empty service matches any.
func (o *Receiver) Find(service, name string) (Span, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.spans {
		if (service == "" || s.Service == service) && s.Name == name {
			return s, true
		}
	}
	return Span{}, false
}

// Spans returns the spans that have arrived, in the order they did.
func (o *Receiver) Spans() []Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Span(nil), o.spans...)
}
