// Package anthropic is an agent.Model for Anthropic's Claude models, on the
// Messages API through the official Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2), built from our own
// configuration so that callers never import the SDK.
//
//	model, err := anthropic.New(&anthropic.Options{APIKey: key, Model: "claude-sonnet-5-5"})
//	if err != nil {
//		return err
//	}
//	history, err := agent.Run(ctx, model, registry, history, nil)
//
// # Mapping
//
// The system prompt is the request's system field. Each tool is sent with
// its input_schema. An assistant message becomes a text block and one
// tool_use block per call; a tool message becomes a tool_result block with
// its tool_use_id, and with is_error set for a failed call. Its content is
// the message's text, or, when its parts (agent.Message.Parts) hold an
// image in a type the API takes (JPEG, PNG, GIF, WebP), each such image as
// a base64 image block, and the other parts — audio, resources, links,
// images of other types — as the text lines of tool.PartsText between
// them. The API wants
// the roles to alternate, so consecutive messages of one role are joined:
// the results of one turn's calls go back together in one user message, as
// the API requires. The whole conversation is sent on every turn; a Model
// keeps no state of its own.
//
// # Stop reasons and thinking
//
// A response's stop_reason becomes its agent.FinishReason: end_turn and
// stop_sequence are FinishStop, tool_use FinishToolCalls, max_tokens and
// model_context_window_exceeded FinishLength, refusal FinishRefusal, any
// other (pause_turn) FinishOther; RawFinishReason keeps it. agent.Run ends
// a truncated or refused turn with an *agent.IncompleteError and never runs
// its calls, whose input a max_tokens stop may have cut off; the adapter
// does not ask for the rest. With [Options.ThinkingBudget] the model
// thinks first; its thinking and redacted_thinking blocks, signatures
// included, are kept in the assistant message's State and sent back before
// its text and tool_use blocks, so a history decoded from JSON continues in
// another process. Usage counts cache reads and writes into InputTokens and
// reports them apart, with the thinking tokens as ReasoningTokens.
//
// # Streaming
//
// With [Options.Stream], Model.Stream, which agent.Run uses, sends a
// streaming request and yields text_delta and input_json_delta pieces as
// deltas; a call's arguments are then kept as they streamed, and a call
// that streamed none has {} in its last delta as in the response.
//
// # Schemas and defaults
//
// Each tool's schema is rewritten by dialect.Anthropic(), or by
// dialect.AnthropicStrict() when [Options.Strict] is set (strict tool use is
// off by default: it takes a smaller subset of JSON Schema and limits how
// many strict tools a request may carry); [Options.StrictTools] makes the
// tools it names strict alone, each rewritten by dialect.AnthropicStrict()
// and sent with strict: true, the others by dialect.Anthropic() and sent
// as usual, and the strict limits count the strict tools alone (the
// dialect's dialect.PerToolStrict). The properties keep their order;
// what the dialect cannot carry is folded into descriptions, and the tool
// still validates the arguments against its own schema. A request whose
// tools the dialect cannot express (a map or a recursive type in strict
// mode, a name with a '.') is refused before it is sent, with an error
// that matches dialect.ErrRejected.
//
// A tool's examples (tool.WithExamples) go as its input_examples, strict or
// not, each as the tool wrote it, its keys in the order of the schema's
// properties; the API checks them against the input_schema. The field is
// part of the Messages API and needs no beta header.
//
// Every request needs max_tokens; [DefaultMaxTokens] (8192) is used unless
// [Options.MaxTokens] says otherwise. It leaves room for a turn of text and
// tool calls, and stays below what the SDK refuses to send without
// streaming. A tool_use input must be an object, so a call whose arguments
// are not one goes back with {} (the API itself only sends objects).
//
// # Deferred tools
//
// A Model is an agent.ToolSearcher: agent.Run sends it every enabled tool,
// and a deferred one (tool.WithDeferLoading, tool.Scope.DeferLoading) goes
// with defer_loading: true, followed by the API's tool search tool,
// tool_search_tool_regex_20251119 or, with Options.ToolSearch set to
// ToolSearchBM25, tool_search_tool_bm25_20251119 (generally available in
// the Messages API, no beta header). The response's server_tool_use and
// tool_search_tool_result blocks, with their tool_reference items, are
// kept in the message's state as the API sent them and go back with the
// conversation, before the message's text and calls; a call of a tool the
// search loaded is a call like any other. A streamed turn keeps the same
// blocks, as the same bytes as a turn not streamed: the server_tool_use
// block as it started, with the input that streamed in its
// input_json_delta pieces in place of its empty one (or after its name,
// where a block not streamed has it, when its start carried none), and
// the tool_search_tool_result block as its start carried it whole.
// ToolSearchPortable leaves the
// search to agent.Run's portable search_tools, for a model the API's search
// does not serve; such a Model refuses a deferred tool given to it
// directly. Options.EagerInputStreaming sends every tool with
// eager_input_streaming: true. The Messages API cannot be told which of the
// tools sent may be called (OpenAI's allowed_tools): agent.Run sends it the
// enabled tools alone, and it refuses a request whose agent.Request.Allowed
// leaves a tool out.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, Anthropic's error type (such as
// "rate_limit_error" or "overloaded_error") and message, and matches
// provider.ErrRateLimit and the other kinds with errors.Is.
package anthropic
