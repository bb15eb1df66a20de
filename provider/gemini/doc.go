// Package gemini is an agent.Model for Google's Gemini models, on the
// Gemini API (not Vertex AI) through the official Go SDK
// (google.golang.org/genai), built from our own configuration so that
// callers never import the SDK.
//
//	model, err := gemini.New(&gemini.Options{APIKey: key, Model: "gemini-3-flash"})
//	if err != nil {
//		return err
//	}
//	history, err := agent.Run(ctx, model, registry, history, nil)
//
// # Mapping
//
// The system prompt is the system instruction. Each tool is a function
// declaration: its schema goes in parameters, rewritten for the OpenAPI 3.0
// subset Gemini takes, or with [Options.JSONSchema] in parametersJsonSchema.
// A request whose tools that dialect cannot express (a map, a recursive
// type, a property name such as "user-id") is refused before it is sent,
// with an error that matches dialect.ErrRejected. A function declaration
// has no field for examples, so a tool's examples (tool.WithExamples) are
// written at the end of its description, up to 1 KiB of them. An
// assistant message becomes a model turn with a functionCall part per
// call; each tool message becomes a functionResponse part whose response is
// {"output": text}, or {"error": text} for a failed call. Consecutive
// messages of one role are joined into one turn, so that the responses to
// one turn's calls go back together. The whole conversation is sent on
// every turn.
//
// A tool message with structured output (Message.Structured) goes back
// with that JSON value as its output instead of the text. The PNG, JPEG
// and WebP images among a tool message's parts (Message.Parts) go as
// inline data in the functionResponse's parts, next to the output; the
// other parts (audio, resources, links, images of other types) reach the
// model as the text, in which every part has its line (tool.PartsText).
//
// # Call IDs and thought signatures
//
// The API may return a call without an ID; the Model then makes one from
// the response's ID, so that agent.Run can match the result to its call;
// a streamed call has that ID in its delta too. The made-up ID is never
// sent to the API.
// Thinking models attach thought signatures to their calls and, on a turn
// without calls, to text, which must come back with the conversation. A
// call's own API ID and signature are kept in its State, and the text
// parts with their signatures in the message's State, so they survive a
// JSON round trip of the history and a Model made afresh sends them back.
// Calls without that state (from another provider, or an older history)
// are sent without either, and matched by name and order as the API has
// always done; text whose state no longer matches it is sent as it is.
//
// # Finish reasons
//
// STOP is agent.FinishStop, or FinishToolCalls when the turn has calls;
// MAX_TOKENS is FinishLength; SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII and the image kinds are FinishContentFilter, as
// is a prompt the API blocked (RawFinishReason "blocked: " and its
// reason); MALFORMED_FUNCTION_CALL and UNEXPECTED_TOOL_CALL are
// FinishMalformedCall, which agent.Run answers by asking again; any other
// reason is FinishOther. A CONTINUATION finish never reaches the Model:
// the SDK sends the request again with the continuation token and merges
// the answers (GenerateContentConfig.AutomaticContinuation, on by
// default). Usage counts tool-use prompt tokens into InputTokens and
// thoughts into OutputTokens, and reports cached and thought tokens apart.
//
// # Streaming
//
// With [Options.Stream], Model.Stream, which agent.Run uses, calls
// streamGenerateContent and yields text as it arrives; a call comes whole,
// as the API sends it.
//
// # Deferred tools
//
// The Gemini API has no tool search, and its dialect no
// dialect.DeferLoading: a Model refuses a deferred tool
// (tool.WithDeferLoading) given to it directly, and agent.Run sends it the
// tools not deferred, then its portable search_tools, then the tools that
// search loaded, in the order it loaded them, so the declarations sent
// before keep their bytes and places.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, Google's status (such as
// "RESOURCE_EXHAUSTED") and message, and matches provider.ErrRateLimit and
// the other kinds with errors.Is.
package gemini
