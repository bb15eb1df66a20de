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
// its tool_use_id, and with is_error set for a failed call. The API wants
// the roles to alternate, so consecutive messages of one role are joined:
// the results of one turn's calls go back together in one user message, as
// the API requires. The whole conversation is sent on every turn; a Model
// keeps no state.
//
// # Schemas and defaults
//
// Each tool's schema is rewritten by dialect.Anthropic, or by
// dialect.AnthropicStrict when [Options.Strict] is set (strict tool use is
// off by default: it takes a smaller subset of JSON Schema and limits how
// many strict tools a request may carry). The properties keep their order;
// what the dialect cannot carry is folded into descriptions, and the tool
// still validates the arguments against its own schema. A request whose
// tools the dialect cannot express (a map or a recursive type in strict
// mode, a name with a '.') is refused before it is sent, with an error
// that matches dialect.ErrRejected.
//
// Every request needs max_tokens; [DefaultMaxTokens] (8192) is used unless
// [Options.MaxTokens] says otherwise. It leaves room for a turn of text and
// tool calls, and stays below what the SDK refuses to send without
// streaming.
//
// # Errors
//
// An error status from the API comes back as an error that wraps a
// *provider.Error: it keeps the HTTP status, Anthropic's error type (such as
// "rate_limit_error" or "overloaded_error") and message, and matches
// provider.ErrRateLimit and the other kinds with errors.Is.
package anthropic
