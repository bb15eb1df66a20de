// Package provider holds what the model adapters share: the error a
// provider's API returns, with its HTTP status and a portable kind.
//
// Each adapter lives in its own package below this one and implements
// agent.Model on its vendor's official Go SDK:
//
//	provider/openai     OpenAI: the Responses API, or Chat Completions
//	provider/anthropic  Anthropic: the Messages API
//	provider/gemini     Google: the Gemini API
//
// An adapter is built from our own configuration — an API key, a base URL,
// an *http.Client — so a caller never imports the vendor SDK.
//
// # Tools
//
// Each adapter converts a tool's input schema with the dialect of its API
// (package dialect), and refuses a request whose tools that dialect
// rejects before sending anything: Generate returns an error that matches
// dialect.ErrRejected and lists each problem with its tool, its field and
// what to change ([CheckTools]). A tool is never sent with part of its
// schema left out, nor in a form the provider would answer with a 400.
//
// # Rich results
//
// A tool message may carry the result's parts (agent.Message.Parts) next
// to its text. An adapter whose API takes images in a tool result sends
// each image of a type it takes as an image, and the rest as text:
// [ResultParts] splits the parts so, given a test such as [Images]. A
// result with no such image goes as its text.
//
// # State
//
// What a provider needs back to continue a conversation — reasoning
// items, thinking blocks, thought signatures, its own call IDs — travels
// in the history, in agent.Message.State and agent.ToolCall.State, as a
// JSON object keyed by the provider's name ([State], [LoadState]). An
// adapter reads only its own key, so a history can move between providers
// and what belongs to another one is left out of the request.
//
// # Errors
//
// When a provider's API answers with an error status, the adapter returns an
// error that wraps an [*Error]. It keeps the HTTP status, the provider's
// machine-readable code and its message, and it matches one of the
// sentinels by kind, so that a caller can decide what to do without looking
// at the text or knowing which provider failed:
//
//	_, err := model.Generate(ctx, req)
//	switch {
//	case errors.Is(err, provider.ErrRateLimit), errors.Is(err, provider.ErrUnavailable):
//		// wait and try again
//	case errors.Is(err, provider.ErrAuth):
//		// check the API key
//	}
//	if perr, ok := errors.AsType[*provider.Error](err); ok {
//		log.Printf("%s answered %d", perr.Provider, perr.StatusCode)
//	}
//
// Failures before an answer (a cancelled context, a network error) are
// returned wrapped as they are, so errors.Is(err, context.Canceled) works.
//
// # Tests
//
// Each adapter is tested with its vendor's SDK against a local server that
// replays two kinds of responses, kept apart in its testdata: traffic
// recorded against the live API and published by other projects
// (langchaingo, pydantic-ai), copied unmodified with each file's source
// and commit in a manifest; and hand-written fixtures in the API's
// documented format for what no recording covers (errors, refusals,
// truncations), each marked "source": "hand-written". TestLive makes one
// real tool-calling exchange when the provider's API key is set.
package provider
