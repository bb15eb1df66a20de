// Package openai is an agent.Model for OpenAI's models, on the official Go
// SDK (github.com/openai/openai-go/v3), built from our own configuration so
// that callers never import the SDK.
//
//	model, err := openai.New(&openai.Options{APIKey: key, Model: "gpt-5.5"})
//	if err != nil {
//		return err
//	}
//	history, err := agent.Run(ctx, model, registry, history, nil)
//
// # APIs
//
// A Model speaks either API, chosen by [Options.API]. The default,
// [Responses], is OpenAI's primary API: new models and features arrive
// there first, and some models are offered only there. [ChatCompletions]
// is for OpenAI-compatible servers (set [Options.BaseURL]) that implement
// only that API. Either way the whole conversation is sent on every turn,
// so a Model keeps no state and never chains responses with
// previous_response_id.
//
// # Reasoning state
//
// On the Responses API a request is sent with store: false unless
// [Options.Store] is set, and asks for reasoning.encrypted_content: the
// reasoning items of a response, with their encrypted content, are kept in
// the assistant message's State, and each function_call item's own ID in
// its call's State, and both go back, before the message's text and calls,
// with the rest of the conversation. A history decoded from JSON thus
// continues in another process, and OpenAI keeps nothing. A model that
// does not reason (gpt-4.1, gpt-4o) rejects that include; set
// [Options.NoReasoning] for one. Chat Completions
// has no such state.
//
// # Finish reasons
//
// A Responses API response with status "completed" is agent.FinishStop,
// or FinishToolCalls when it has calls, or FinishRefusal when its message
// holds a refusal; status "incomplete" is FinishLength for
// max_output_tokens, FinishContentFilter for content_filter, and
// FinishOther for any other reason (RawFinishReason is "incomplete: " and
// the reason). On Chat Completions, finish_reason length and
// content_filter map the same way, a refusal is FinishRefusal, and
// tool_calls (or stop with calls, which some compatible servers send) is
// FinishToolCalls. agent.Run ends a truncated, filtered or refused turn
// with an *agent.IncompleteError and never runs its calls, whose arguments
// may be cut off (a call of an incomplete response carries arguments such
// as {"city":"Par); the adapter does not ask for the rest. Usage reports
// cached input tokens and reasoning tokens apart.
//
// # Arguments and streaming
//
// A call's arguments are kept as the model sent them, even when they are
// not valid JSON: the tool's validation error then reaches the model, and
// the arguments go back unchanged. With [Options.Stream], Model.Stream,
// which agent.Run uses, streams either API and yields text and argument
// deltas (response.output_text.delta and
// response.function_call_arguments.delta, or a chunk's content and
// tool_calls); the response is the one response.completed carries, or
// the one the SDK's accumulator assembles from the chunks.
//
// # Mapping
//
// The system prompt is the Responses API's instructions, or the first,
// system message of a chat. User and assistant messages map one to one; an
// assistant's tool calls become function_call items (Responses) or
// tool_calls (Chat Completions), and each tool message becomes a
// function_call_output with its call_id, or a tool message with its
// tool_call_id. Neither API has a flag for a failed call, so the text of a
// tool message with IsError set is sent prefixed with "Error: ".
//
// On the Responses API, a tool message whose parts (agent.Message.Parts)
// hold an image in a type the API takes (PNG, JPEG, WebP, GIF) has a list
// as its output: each such image as an input_image with a base64 data URL,
// and the other parts — audio, resources, links, images of other types —
// as input_text with the text lines of tool.PartsText between them. A
// chat's tool message takes text only, so it is always the message's
// text, in which an image is a note such as "[image image/png, 5120
// bytes]".
//
// # Strict tools
//
// Tools are sent with strict: true unless [Options.NonStrict] is set, so
// that the model's arguments always match the tool's schema. Strict mode
// takes a subset of JSON Schema, so each schema is rewritten by
// dialect.OpenAIStrict(), with its properties in their order: every property
// becomes required, an optional one accepting null instead (which a tool
// reads as absent, by default), and the constraints strict mode cannot carry
// are folded into descriptions. The tool still validates the arguments
// against its own schema; tool.Lint lists what the rewriting changed. A
// request whose tools strict mode cannot express (a map, a value of any
// type, objects nested more than ten deep) is refused before it is sent,
// with an error that matches dialect.ErrRejected and names each field;
// [Options.Dialect] takes the rules and limits of a compatible server.
//
// A function has no field for examples, so a tool's examples
// (tool.WithExamples) are written at the end of its description, strict
// or not, as the dialect's Examples says (dialect.OpenAIStrict() folds up
// to 1 KiB of them).
//
// # Deferred tools
//
// On the Responses API a Model is an agent.ToolSearcher (when its dialect
// has dialect.ToolSearch, as dialect.OpenAIStrict does): agent.Run sends
// it every enabled tool, a deferred one (tool.WithDeferLoading) as a
// function with defer_loading: true, and the tools of a deferred scope
// (tool.Scope.DeferLoading) in a namespace tool named after the scope,
// described by the names of its tools; then the hosted tool_search. The
// response's tool_search_call and tool_search_output items are kept in the
// message's state as the API sent them, and a call's namespace in the
// call's, which the API wants back ("Missing namespace for
// function_call"). A dialect without dialect.Namespaces sends a deferred
// scope's tools one by one. Chat Completions has no tool search: such a
// Model refuses a deferred tool, and agent.Run gives it the portable
// search_tools instead.
//
// # Allowed tools
//
// With [Options.AllowedTools] a Model is an agent.ToolAllower: agent.Run
// sends it every tool of the registry on every turn, enabled or not, in
// the registry's order, and the adapter sends the enabled ones as a
// tool_choice of type allowed_tools in auto mode — on the Responses API
// {"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":…}]},
// on Chat Completions {"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":…}}]}};
// "none" when no tool is enabled. The tools array then stays the same
// bytes from turn to turn, and the prompt cache over it holds, however the
// enabled predicates turn. It is off by default because the model then
// reads the definitions of the tools disabled now; the registry still
// refuses a call to one of them. Such a Model searches no tools itself:
// deferred tools go behind the portable search_tools.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, OpenAI's error code and
// message, and matches provider.ErrRateLimit and the other kinds with
// errors.Is.
package openai
