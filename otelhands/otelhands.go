package otelhands

import (
	"context"
	"errors"
	"iter"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/internal/mcptrace"
	"github.com/hands-go/hands/tool"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/hands-go/hands/otelhands"

// DefaultMaxContentBytes bounds a recorded argument or result when
// Options.MaxContentBytes is zero.
const DefaultMaxContentBytes = 1024

// Options configure the instrumentation. A nil *Options selects every
// default.
type Options struct {
	// TracerProvider makes the tracer. If nil, otel.GetTracerProvider() is
	// used.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter. If nil, otel.GetMeterProvider() is
	// used.
	MeterProvider metric.MeterProvider
	// AgentName is the agent's name (gen_ai.agent.name), which also ends
	// the name of a run's span. Empty leaves it out.
	AgentName string
	// Provider is the model's provider (gen_ai.provider.name), such as
	// "openai", "anthropic" or "gcp.gemini". Empty leaves it out.
	Provider string
	// Model is the model asked for (gen_ai.request.model), which also ends
	// the name of a model call's span. Empty leaves it out.
	Model string
	// RecordContent records each tool call's arguments and result
	// (gen_ai.tool.call.arguments, gen_ai.tool.call.result), cut to
	// MaxContentBytes. They are left out by default, because they may hold
	// personal data.
	RecordContent bool
	// MaxContentBytes bounds each recorded value, when RecordContent is
	// set. Zero selects DefaultMaxContentBytes.
	MaxContentBytes int
	// Registry is where an execute_tool span finds the called tool's
	// description (gen_ai.tool.description). Without it, the span finds
	// it in the handler it wraps when that handler has a Lookup method,
	// as the *tool.Registry an agent run calls does; tool middleware
	// installed with Registry.Use wraps the registry's inner dispatch,
	// which has none, so reg.Use(otelhands.Tools(&otelhands.Options{Registry: reg}))
	// names the registry here.
	Registry *tool.Registry
}

// Attributes of hands' own, where the semantic conventions have none.
const (
	// PendingKindKey is the kind of wait (approval, answer) of a call
	// that waits for a person, on the run's "hands.pending" span event.
	PendingKindKey = attribute.Key("hands.pending.kind")
	// PausedKey marks a run that paused for a person.
	PausedKey = attribute.Key("hands.run.paused")
	// InterruptedKey marks a tool call that asked a question (tool.Ask).
	InterruptedKey = attribute.Key("hands.tool.interrupted")
	// DeprecatedKey lists what a tool call used that is deprecated
	// (tool.Result.Deprecated): "" for the tool itself, the JSON Pointer
	// of each deprecated argument.
	DeprecatedKey = attribute.Key("hands.tool.deprecated")
)

// The operation names of the GenAI semantic conventions.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
)

// instruments are what one Middleware or Tools records with.
type instruments struct {
	opts       Options
	tracer     trace.Tracer
	duration   metric.Float64Histogram // gen_ai.client.operation.duration
	served     metric.Float64Histogram // mcp.server.operation.duration
	tokens     metric.Int64Histogram   // gen_ai.client.token.usage
	errors     metric.Int64Counter     // hands.tool.errors
	deprecated metric.Int64Counter     // hands.tool.deprecated_uses
}

func newInstruments(o *Options) *instruments {
	in := &instruments{}
	if o != nil {
		in.opts = *o
	}
	if in.opts.MaxContentBytes <= 0 {
		in.opts.MaxContentBytes = DefaultMaxContentBytes
	}
	tp, mp := in.opts.TracerProvider, in.opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	in.tracer = tp.Tracer(ScopeName)
	meter := mp.Meter(ScopeName)
	var err, errs error
	in.duration, err = meter.Float64Histogram("gen_ai.client.operation.duration",
		metric.WithDescription("GenAI operation duration."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92))
	errs = errors.Join(errs, err)
	in.served, err = meter.Float64Histogram("mcp.server.operation.duration",
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
	errs = errors.Join(errs, err)
	in.tokens, err = meter.Int64Histogram("gen_ai.client.token.usage",
		metric.WithDescription("Number of input and output tokens used."), metric.WithUnit("{token}"),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864))
	errs = errors.Join(errs, err)
	in.errors, err = meter.Int64Counter("hands.tool.errors",
		metric.WithDescription("Failed tool calls, by kind of failure (error.type)."), metric.WithUnit("{call}"))
	errs = errors.Join(errs, err)
	in.deprecated, err = meter.Int64Counter("hands.tool.deprecated_uses",
		metric.WithDescription("Uses of deprecated tools and arguments, by what was used (hands.tool.deprecated)."), metric.WithUnit("{use}"))
	if errs = errors.Join(errs, err); errs != nil {
		otel.Handle(errs) // the instruments are then no-ops
	}
	return in
}

// common returns the attributes every span and measurement carries.
func (in *instruments) common(op string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameKey.String(op)}
	if in.opts.Provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(in.opts.Provider))
	}
	if in.opts.Model != "" && op != opExecuteTool {
		attrs = append(attrs, semconv.GenAIRequestModelKey.String(in.opts.Model))
	}
	return attrs
}

// usage returns the token counts of u as span attributes: input and
// output always, the cached, cache-write and reasoning parts when the
// provider reports them.
func usage(u agent.Usage) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.GenAIUsageInputTokensKey.Int64(u.InputTokens),
		semconv.GenAIUsageOutputTokensKey.Int64(u.OutputTokens),
	}
	if u.CachedInputTokens != 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokensKey.Int64(u.CachedInputTokens))
	}
	if u.CacheWriteTokens != 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheCreationInputTokensKey.Int64(u.CacheWriteTokens))
	}
	if u.ReasoningTokens != 0 {
		attrs = append(attrs, semconv.GenAIUsageReasoningOutputTokensKey.Int64(u.ReasoningTokens))
	}
	return attrs
}

// spanName is the operation, then the agent's, model's or tool's name.
func spanName(op, name string) string {
	if name == "" {
		return op
	}
	return op + " " + name
}

// Middleware returns agent middleware that traces a run: an invoke_agent
// span for the run, and in it a chat span for each model call and an
// execute_tool span for each tool call, following the OpenTelemetry
// semantic conventions for generative AI. It records the operations'
// durations, the tokens the model reports and failed tool calls by kind.
// A run that pauses for a person ends its span with hands.run.paused set
// and a "hands.pending" event for each waiting call; that is not an error.
func Middleware(opts *Options) agent.Middleware {
	in := newInstruments(opts)
	return agent.Middleware{Run: in.run, Model: in.model, Tool: in.tool}
}

// Tools returns tool middleware that traces each call with an execute_tool
// span and records its duration and its failure, for a registry served
// without an agent loop (such as by mcpserver). Middleware includes it for
// the calls of a run, so a registry used by a traced run needs no Tools.
func Tools(opts *Options) tool.Middleware { return newInstruments(opts).tool }

func (in *instruments) run(next agent.RunFunc) agent.RunFunc {
	return func(ctx context.Context) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			attrs := in.common(opInvokeAgent)
			if in.opts.AgentName != "" {
				attrs = append(attrs, semconv.GenAIAgentNameKey.String(in.opts.AgentName))
			}
			start := time.Now()
			ctx, span := in.tracer.Start(ctx, spanName(opInvokeAgent, in.opts.AgentName),
				trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
			defer span.End()
			for ev, err := range next(ctx) {
				switch ev.Kind {
				case agent.EventPending:
					span.AddEvent("hands.pending", trace.WithAttributes(
						semconv.GenAIToolNameKey.String(ev.Call.Name),
						semconv.GenAIToolCallIDKey.String(ev.Call.ID),
						PendingKindKey.String(string(ev.Pending.Kind))))
				case agent.EventEnd:
					span.SetAttributes(usage(ev.Usage)...)
					if errors.Is(err, agent.ErrPaused) {
						span.SetAttributes(PausedKey.Bool(true))
					} else if err != nil {
						kind := runErrorType(err)
						span.SetAttributes(semconv.ErrorTypeKey.String(kind))
						span.SetStatus(codes.Error, err.Error())
						attrs = append(attrs, semconv.ErrorTypeKey.String(kind))
					}
					in.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
				}
				if !yield(ev, err) {
					return
				}
			}
		}
	}
}

// runErrorType is the error.type of a run that failed.
func runErrorType(err error) string {
	switch {
	case errors.Is(err, agent.ErrTurnLimit):
		return "turn_limit"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

// A tracedModel wraps a model with chat spans. It streams when the model
// it wraps does, and its spans say so (gen_ai.request.stream): the turn
// goes through agent.Chunks, which calls a StreamingModel's Stream. A
// model that has Stream but may not stream says which with a Streams
// method (a streamer), as the provider adapters do.
type tracedModel struct {
	in   *instruments
	next agent.Model
}

// A streamer is a StreamingModel that says whether its Stream really
// streams, as the provider adapters' Models do (their Options.Stream).
type streamer interface {
	Streams() bool
}

// streams reports whether a turn of m is made in streaming mode.
func streams(m agent.Model) bool {
	if s, ok := m.(streamer); ok {
		return s.Streams()
	}
	_, ok := m.(agent.StreamingModel)
	return ok
}

func (in *instruments) model(next agent.Model) agent.Model { return &tracedModel{in: in, next: next} }

// Generate is Stream drained.
func (m *tracedModel) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	for chunk, err := range m.Stream(ctx, req) {
		if err != nil {
			return nil, err
		}
		if chunk.Response != nil {
			return chunk.Response, nil
		}
	}
	return nil, errors.New("otelhands: the model's stream ended without a response")
}

// Stream passes the model's chunks on inside a chat span.
func (m *tracedModel) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		in := m.in
		attrs := in.common(opChat)
		start := time.Now()
		ctx, span := in.tracer.Start(ctx, spanName(opChat, in.opts.Model), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(append(attrs, semconv.GenAIRequestStream(streams(m.next)))...))
		defer span.End()
		for chunk, err := range agent.Chunks(ctx, m.next, req) {
			switch {
			case err != nil:
				kind := semconv.ErrorTypeOther.Value.AsString()
				if errors.Is(err, context.Canceled) {
					kind = "canceled"
				}
				span.SetAttributes(semconv.ErrorTypeKey.String(kind))
				span.SetStatus(codes.Error, err.Error())
				in.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(append(attrs, semconv.ErrorTypeKey.String(kind))...))
			case chunk.Response != nil:
				resp := chunk.Response
				u := resp.Usage
				span.SetAttributes(usage(u)...)
				if r := resp.FinishReason; r != "" {
					span.SetAttributes(semconv.GenAIResponseFinishReasons(string(r)))
				}
				if resp.ID != "" {
					span.SetAttributes(semconv.GenAIResponseID(resp.ID))
				}
				if resp.Model != "" {
					span.SetAttributes(semconv.GenAIResponseModel(resp.Model))
				}
				in.duration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
				if u != (agent.Usage{}) {
					in.tokens.Record(ctx, u.InputTokens, metric.WithAttributes(append(attrs, semconv.GenAITokenTypeInput)...))
					in.tokens.Record(ctx, u.OutputTokens, metric.WithAttributes(append(attrs, semconv.GenAITokenTypeOutput)...))
				}
			}
			if !yield(chunk, err) {
				return
			}
		}
	}
}

// A lookuper finds a tool by name, as a *tool.Registry does.
type lookuper interface {
	Lookup(name string) (tool.Interface, bool)
}

func (in *instruments) tool(next tool.Handler) tool.Handler {
	var tools lookuper
	if in.opts.Registry != nil {
		tools = in.opts.Registry
	} else if l, ok := next.(lookuper); ok {
		tools = l
	}
	return tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
		return func(yield func(tool.Event) bool) {
			attrs := in.common(opExecuteTool)
			attrs = append(attrs, semconv.GenAIToolNameKey.String(call.Name), semconv.GenAIToolTypeKey.String("function"))
			spanAttrs := append(attrs[:len(attrs):len(attrs)], semconv.GenAIToolCallIDKey.String(call.ID))
			if d := description(tools, call.Name); d != "" {
				spanAttrs = append(spanAttrs, semconv.GenAIToolDescription(d))
			}
			name, kind := spanName(opExecuteTool, call.Name), trace.SpanKindInternal
			var links []trace.Link
			var mcpAttrs []attribute.KeyValue // of mcp.server.operation.duration, for a call served over MCP
			if served, ok := mcptrace.ServedFrom(ctx); ok && served.Method == "tools/call" {
				// The call an MCP client made (mcpserver): this span is the
				// MCP server span too, and continues the client's trace.
				name, kind = spanName(served.Method, call.Name), trace.SpanKindServer
				method := semconv.McpMethodNameKey.String(served.Method)
				spanAttrs = append(spanAttrs, method)
				mcpAttrs = []attribute.KeyValue{method, semconv.GenAIOperationNameKey.String(opExecuteTool), semconv.GenAIToolNameKey.String(call.Name)}
				if served.ProtocolVersion != "" {
					version := semconv.McpProtocolVersionKey.String(served.ProtocolVersion)
					spanAttrs, mcpAttrs = append(spanAttrs, version), append(mcpAttrs, version)
				}
				if served.SessionID != "" {
					spanAttrs = append(spanAttrs, semconv.McpSessionIDKey.String(served.SessionID))
				}
				if served.Link.IsValid() {
					links = append(links, trace.Link{SpanContext: served.Link})
				}
				ctx = mcptrace.WithServed(ctx, mcptrace.Served{}) // a call this one makes in-process is not served
			}
			start := time.Now()
			ctx, span := in.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(spanAttrs...), trace.WithLinks(links...))
			defer span.End()
			if in.opts.RecordContent {
				span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(in.cut(string(call.Args))))
			}
			for ev := range next.Stream(ctx, call) {
				if res := ev.Result; res != nil {
					in.result(ctx, span, attrs, mcpAttrs, start, res)
				}
				if !yield(ev) {
					return
				}
			}
		}
	})
}

// description is the description of the tool named name in tools, or ""
// when tools is nil or has no such tool.
func description(tools lookuper, name string) string {
	if tools == nil {
		return ""
	}
	t, ok := tools.Lookup(name)
	if !ok {
		return ""
	}
	return t.Spec().Description
}

// result records the outcome of a tool call on its span and in the
// metrics.
// mcpAttrs, when not nil, are the attributes of the call's
// mcp.server.operation.duration, for a call served over MCP.
func (in *instruments) result(ctx context.Context, span trace.Span, attrs, mcpAttrs []attribute.KeyValue, start time.Time, res *tool.Result) {
	if in.opts.RecordContent {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(in.cut(res.Content)))
	}
	switch {
	case errors.Is(res.Err, tool.ErrInterrupted):
		span.SetAttributes(InterruptedKey.Bool(true))
	case res.IsError:
		kind := ErrorType(res.Err)
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
		msg := "tool call failed"
		if res.Err != nil {
			msg = res.Err.Error()
		}
		span.SetStatus(codes.Error, msg)
		attrs = append(attrs, semconv.ErrorTypeKey.String(kind))
		if mcpAttrs != nil {
			mcpAttrs = append(mcpAttrs, semconv.ErrorTypeKey.String(kind))
		}
		in.errors.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	if len(res.Deprecated) > 0 {
		span.SetAttributes(DeprecatedKey.StringSlice(res.Deprecated))
		for _, p := range res.Deprecated {
			in.deprecated.Add(ctx, 1, metric.WithAttributes(append(slices.Clip(attrs), DeprecatedKey.String(p))...))
		}
	}
	took := time.Since(start).Seconds()
	in.duration.Record(ctx, took, metric.WithAttributes(attrs...))
	if mcpAttrs != nil {
		in.served.Record(ctx, took, metric.WithAttributes(mcpAttrs...))
	}
}

// errorTypes name the kinds of tool failure, in the order they are
// matched.
var errorTypes = []struct {
	err  error
	name string
}{
	{tool.ErrInvalidArguments, "invalid_arguments"},
	{tool.ErrUnknownTool, "unknown_tool"},
	{tool.ErrDisabled, "disabled"},
	{tool.ErrDenied, "denied"},
	{tool.ErrPanicked, "panic"},
	{tool.ErrTimedOut, "timeout"},
	{tool.ErrCanceled, "canceled"},
	{tool.ErrNoResult, "no_result"},
	{tool.ErrInterrupted, "interrupted"},
	{tool.ErrUpstream, "upstream"},
}

// ErrorType returns the error.type value for a failed tool call: the kind
// of failure, from the tool.Err… sentinel the error matches —
// "invalid_arguments", "unknown_tool", "disabled", "denied", "panic",
// "timeout", "canceled", "no_result", "interrupted", "upstream" — or
// "tool_error" for a handler's own error.
func ErrorType(err error) string {
	for _, t := range errorTypes {
		if errors.Is(err, t.err) {
			return t.name
		}
	}
	return "tool_error"
}

// cut bounds a recorded value to MaxContentBytes, on a rune boundary, and
// marks the cut.
func (in *instruments) cut(s string) string {
	max := in.opts.MaxContentBytes
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
