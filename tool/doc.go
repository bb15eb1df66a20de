// Package tool defines typed tools that a model can call: one short block
// per tool — a name, a description, an input struct and a handler.
//
//	type Args struct {
//		City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
//		Days int    `json:"days,omitempty" jsonschema:"days ahead" tool:"minimum=1,maximum=7,default=1"`
//	}
//
//	var weather = tool.New("weather", "Report the weather for a city.",
//		func(ctx context.Context, a Args) (string, error) { ... })
//
// The input struct is the schema: [Tool.Spec] shows the model its JSON Schema
// (draft 2020-12, with each field's description and constraints), the same
// type validates the model's arguments before the handler runs, and the
// handler receives a plain Go value with defaults applied. The tag language
// is described in package [github.com/hands-go/hands/schema].
//
// # Calling a tool
//
// There are two ways in. Direct calls are for Go code and tests:
// [Tool.Call] takes a typed value, and [Tool.CallJSON] takes raw JSON; both
// return the handler's output and an error. Calls from a model go through
// [Tool.Run], which returns one [Result], or [Tool.Stream], which yields the
// handler's [Progress] reports and then exactly one result. Run and Stream
// never return a Go error: malformed JSON, invalid arguments, a handler
// error, a handler panic and a cancelled context each become a Result with
// IsError set, whose Content tells the model what went wrong and how to fix
// its call, and whose Err keeps the Go error for the program.
//
// # One pass over the arguments
//
// Arguments are validated and decoded together, in one pass over the bytes,
// with a plan compiled once per input type. Validation costs about what plain
// decoding costs, and a failure lists every issue at once, each with its JSON
// Pointer path, so the model can fix all of them in one more call. See
// docs/PERFORMANCE.md in the repository for the figures.
//
// # Errors
//
// The errors are values: [*ValidationError] (every [Issue]), [*PanicError]
// (with the stack, for logs only), [*CanceledError], or the handler's own
// error. Match them with errors.AsType or errors.Is, never on their text.
// [ModelText] is the text a model is shown for each.
//
// # The call in the context
//
// A handler run by Run or Stream can read its [Call] — the call ID and the
// caller's invocation state — with [CallFrom]. In a direct call there is no
// Call, and CallFrom reports false.
package tool
