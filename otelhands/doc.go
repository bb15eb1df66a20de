// Package otelhands traces agent runs and tool calls with OpenTelemetry,
// following the semantic conventions for generative AI of version 1.41.0
// (go.opentelemetry.io/otel/semconv/v1.41.0). It is a package of its own
// so that agent and tool never depend on OpenTelemetry.
//
//	opts := &agent.Options{Middleware: []agent.Middleware{
//		otelhands.Middleware(&otelhands.Options{AgentName: "notes", Provider: "openai", Model: "gpt-5"}),
//	}}
//	history, err := agent.Run(ctx, model, reg, history, opts)
//
// # Spans
//
// [Middleware] gives a run an invoke_agent span, and in it a chat span
// (kind client) for each model call and an execute_tool span for each tool
// call:
//
//	invoke_agent notes      gen_ai.operation.name, gen_ai.agent.name, gen_ai.provider.name,
//	│                       gen_ai.request.model, the run's gen_ai.usage.*;
//	│                       hands.run.paused and a hands.pending event per waiting call
//	├─ chat gpt-5           gen_ai.request.stream, gen_ai.response.id, gen_ai.response.model,
//	│                       gen_ai.response.finish_reasons, the turn's gen_ai.usage.*
//	├─ execute_tool save    gen_ai.tool.name, gen_ai.tool.description, gen_ai.tool.call.id,
//	│                       gen_ai.tool.type
//	└─ …
//
// The usage is gen_ai.usage.input_tokens and output_tokens, and, when the
// provider reports them, the parts of those: cache_read.input_tokens and
// cache_creation.input_tokens (agent.Usage's CachedInputTokens and
// CacheWriteTokens) and reasoning.output_tokens. gen_ai.request.stream is
// what the model's Streams method reports, as the provider adapters'
// Models have one (their Options.Stream), or else whether the model is an
// agent.StreamingModel. The response's
// ID and model are those the provider gave (agent.Response's ID and Model).
// An execute_tool span names the tool's description when it can find the
// tool: in the *tool.Registry an agent run calls, or in Options.Registry.
//
// A failed call, model call or run has status Error and an error.type: for
// a tool call, the kind of failure from the tool.Err… sentinel its error
// matches ([ErrorType]); for a run, turn_limit, canceled, timeout or
// _OTHER. A run that pauses for a person (agent.Interrupt) is not an
// error. A call that asks a question has hands.tool.interrupted set.
//
// [Tools] is the execute_tool part alone, as tool middleware, for a
// registry served without the agent loop (by mcpserver, say):
// reg.Use(otelhands.Tools(&otelhands.Options{Registry: reg})).
//
// # Across MCP
//
// A call that an MCP client made of a tool mcpserver serves is traced as
// OpenTelemetry's MCP semantic conventions trace the server's side of a
// tools/call (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md;
// the mcp.* names of semantic conventions 1.41.0, which later releases of
// the main conventions deprecate in its favour): its execute_tool span,
// which those conventions take as the MCP span, is named "tools/call
// {tool}", of kind server, with mcp.method.name, mcp.protocol.version and,
// on a session that has one, mcp.session.id; its parent is the client's
// span that the request's _meta named (SEP-414: traceparent, tracestate,
// baggage, which mcpclient puts there for every call made inside a span,
// and mcpserver reads, else the request's W3C headers), and a span the
// server's context had already (an HTTP server span) is linked. So one
// trace runs from an agent's run through every gateway to the tool that
// answers.
//
// # Metrics
//
// gen_ai.client.operation.duration (seconds, by gen_ai.operation.name and
// error.type), mcp.server.operation.duration (seconds, for calls served
// over MCP, by mcp.method.name, gen_ai.tool.name, mcp.protocol.version and
// error.type), gen_ai.client.token.usage (by gen_ai.token.type), and
// hands.tool.errors (failed tool calls, by gen_ai.tool.name and
// error.type), and hands.tool.deprecated_uses (uses of a deprecated tool or
// argument, by gen_ai.tool.name and hands.tool.deprecated: "" for the tool,
// the argument's JSON Pointer), so that a tool's last callers can be found
// before its sunset.
//
// # Content
//
// Arguments and results are not recorded by default, because they may
// hold personal data. Options.RecordContent records them as
// gen_ai.tool.call.arguments and gen_ai.tool.call.result, each cut to
// Options.MaxContentBytes.
//
// # Export
//
// The providers are the global ones unless Options names others. The
// package depends on the OpenTelemetry API only (go.opentelemetry.io/otel,
// its trace and metric packages), never on the SDK or an exporter: as for
// any instrumentation library, which SDK records the spans and where they
// go is the program's choice, made once at start-up. Without one, the
// spans and metrics cost next to nothing and go nowhere. The hands command
// installs an OTLP/HTTP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set.
package otelhands
