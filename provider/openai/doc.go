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
// # Strict tools
//
// Tools are sent with strict: true unless [Options.NonStrict] is set, so
// that the model's arguments always match the tool's schema. Strict mode
// takes a subset of JSON Schema, so each schema is rewritten by
// dialect.OpenAIStrict, with its properties in their order: every property
// becomes required, an optional one accepting null instead (which a tool
// reads as absent, by default), and the constraints strict mode cannot carry
// are folded into descriptions. The tool still validates the arguments
// against its own schema; tool.Lint lists what the rewriting changed. A
// request whose tools strict mode cannot express (a map, a value of any
// type, objects nested more than ten deep) is refused before it is sent,
// with an error that matches dialect.ErrRejected and names each field;
// [Options.Dialect] takes the rules and limits of a compatible server.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, OpenAI's error code and
// message, and matches provider.ErrRateLimit and the other kinds with
// errors.Is.
package openai
