// Package dialect rewrites a tool's JSON Schema for each model provider,
// and reports what a provider would reject or cannot be told.
//
// hands describes a tool's input with one canonical schema, draft 2020-12,
// that package schema infers from a Go type. No provider takes all of it,
// and each takes a different part: OpenAI's strict mode wants every
// property required and every object closed, Anthropic's strict tool use
// has no numeric bounds and no recursion, Gemini's parameters are an
// OpenAPI 3.0 subset with upper-case types, nullable and no $ref. A
// [Dialect] is one of those subsets, written as data, and
// [Dialect.Convert] rewrites the canonical schema for it.
//
// # Dialects are data
//
// A Dialect holds the rule for tool names (a [NameRule]), the keywords its
// provider rejects at the root, a table that says which keyword is kept,
// folded into the description, dropped or rejected (an [Action]), the
// formats kept, a set of passes (a [Pass]: [RequireAll], [CloseObjects],
// [InlineRefs], [OneOfAsAnyOf], [OpenAPITypes], ...) and its limits. The
// predefined dialects are [MCP], [OpenAIStrict], [Anthropic],
// [AnthropicStrict], [Gemini] and [GeminiJSONSchema]; each doc comment
// names the pages its rules come from. To describe another provider, such
// as an OpenAI-compatible server with limits of its own, take a copy of the
// nearest one (each function returns a new one) and change its fields;
// nothing in hands needs to know, and nothing else in the program sees the
// change.
//
// # Problems
//
// What a dialect cannot carry as a keyword (a length, a bound, a pattern,
// a default, a format it does not list) is folded into the description of
// its property, "login name (3–20 characters; pattern ^[a-z]+$)", and
// reported as a [Problem] of [SeverityFolded]; the validator still
// enforces it when the call arrives. What the provider would reject, or
// what the dialect cannot express at all, is a Problem of [SeverityError]:
// Convert leaves it out of the schema, and [Dialect.Check] refuses the
// tool, with a Fix that says what to change. A [SeverityWarning] marks a schema every provider takes but that
// tells the model too little. Each Problem has the JSON Pointer of the
// schema concerned in the input, so a report points at the Go field.
//
// # Examples
//
// A tool's examples, whole arguments of calls that show the model how to
// call it (tool.Spec.Examples), are not part of its schema. A Dialect's
// Examples says what becomes of them, and [Dialect.ConvertExamples] does
// it: [MCP] keeps them, as the root "examples" of the input schema, where
// draft 2020-12 lists valid instances; [Anthropic] and [AnthropicStrict]
// keep them, as the tool's input_examples; [OpenAIStrict], [Gemini] and
// [GeminiJSONSchema], whose providers have no place for them, fold them
// into the tool's description, after a line that says what they are, up
// to MaxFoldedExamples bytes of whole examples, and report it as a Problem
// of SeverityFolded with the Keyword "examples". [Dialect.LintTools] and
// [Dialect.Check] take them in [ToolSchema.Examples].
//
//	Convert / ConvertJSON   the schema for the provider, and its problems
//	ConvertExamples         the description and examples for the provider, and their problems
//	Lint(name, schema)      CheckName + Convert's problems + warnings
//	LintTools(tools...)     Lint of each + the limits of one request
//	Check(tools...)         nil, or a *RejectError matching ErrRejected that lists the errors
//
// The package depends only on the standard library and
// github.com/google/jsonschema-go.
package dialect
