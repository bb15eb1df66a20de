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
// with an error that matches dialect.ErrRejected. An assistant message becomes a model turn with a functionCall part per
// call; each tool message becomes a functionResponse part whose response is
// {"output": text}, or {"error": text} for a failed call. Consecutive
// messages of one role are joined into one turn, so that the responses to
// one turn's calls go back together. The whole conversation is sent on
// every turn.
//
// # Call IDs and thought signatures
//
// The API may return a call without an ID; the Model then makes one from
// the response's ID, so that agent.Run can match the result to its call.
// Thinking models attach a thought signature to their calls, which must
// come back with the conversation. A Model remembers, for the last few
// thousand calls it returned, the API's own ID and the signature, and
// sends them back with those calls; calls it did not return (from another
// Model, another process, another provider) are sent without either, and
// matched by name and order as the API has always done.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, Google's status (such as
// "RESOURCE_EXHAUSTED") and message, and matches provider.ErrRateLimit and
// the other kinds with errors.Is. A prompt the API blocked, or a turn that
// stopped without an answer (for safety, say), is an error too.
package gemini
