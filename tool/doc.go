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
// return the handler's output and an error. Calls from a model go through a
// [Handler] — a tool, a [Registry], or middleware around either: its
// Stream method yields the handler's [Progress] reports and then exactly one
// [Result]. [Drain] is the way to run such a call: it passes the progress to
// a function and returns the result, answering when the caller's context
// ends whatever the handler does; [Run] is Drain without progress, and
// [RunAll] runs the calls of one turn, in order or with bounded
// parallelism, reporting each call's start, progress and result. Drain and
// Stream never return a Go
// error: malformed JSON, invalid arguments, a handler error, a handler panic,
// a timeout and a cancelled context each become a Result with IsError set,
// whose Content tells the model what went wrong and how to fix its call, and
// whose Err keeps the Go error for the program.
//
// A streamed call runs its handler on a goroutine of its own, and every event
// is delivered on the goroutine that ranges over the stream, whichever
// goroutine reported it; a panic in the consumer's loop body propagates
// unchanged. Run runs the handler on the caller's goroutine only when
// nothing can end the call early: a context that never ends, and no
// timeout.
//
// # Timeouts and limits
//
// [WithTimeout] bounds every call of a tool, direct calls included: at the
// deadline the call ends with a [*TimeoutError], whatever the handler does.
// A handler still running then is abandoned: it keeps its goroutine until it
// returns, its context is done, and its result and progress are dropped.
// [WithLimits] bounds the size and nesting of the arguments and how many
// issues are listed, for every kind of tool.
//
// # Examples
//
// [WithExamples] gives a tool a few calls to show the model, as values of
// its input type ([WithExamplesJSON] takes them as JSON, for a [RawTool]):
//
//	weather := tool.New("weather", "Report the weather for a city.", report,
//		tool.WithExamples(Args{City: "Oslo"}, Args{City: "Lima", Days: 3}))
//
// Each example is checked when the tool is defined, by the validator every
// call goes through; one it refuses is an [*ExampleError] in the
// [*DefinitionError]. [Spec.Examples] carries them, and package dialect
// decides, for each provider, whether they go as they are or at the end of
// the description.
//
// # Result budgets
//
// WithLimits bounds what a model sends; a budget bounds what it reads back.
// Registry.SetBudget turns budgets on: a result whose text, structured
// output or parts exceed the call's budget — the tool's own
// (WithResultBudget), else its Recipient's (an MCP caller, an agent run),
// else the registry's Default, in bytes of UTF-8 — is cut once, for every
// kind of tool, after the middleware: text at a line or word boundary,
// structured output along its output schema (and kept only when the
// tool's validator accepts it cut; else it is left out and its text is
// cut as text), parts whole. A note at its
// end says how much there was and how to read the rest: the whole text is
// kept in a ResultStore under an unguessable handle bound to the
// recipient, which the read_result tool, added with the budget, pages
// through. A result within its budget is unchanged, and a direct call
// (Call, CallJSON) is never cut.
//
// # One pass over the arguments
//
// Arguments are validated and decoded together, in one pass over the bytes,
// with a plan compiled once per input type. Validation costs less than plain
// decoding, and a failure lists every issue at once, each with its JSON
// Pointer path, so the model can fix all of them in one more call. See
// docs/PERFORMANCE.md in the repository for the figures.
//
// # Errors
//
// Errors follow json v2's technique. Every failure a call produces itself
// matches one sentinel with errors.Is — [ErrUnknownTool], [ErrDisabled],
// [ErrInvalidArguments], [ErrDenied], [ErrPanicked], [ErrTimedOut],
// [ErrCanceled], [ErrNoResult], [ErrInterrupted] for a handler that asks a
// person with [Ask], and [ErrUpstream] for a tool that stands for another
// system's and could not get its answer — and its detail type, reached
// with errors.AsType, names the tool and the call in fields called Tool and
// CallID and holds the sentinel in a field called Err, which Unwrap
// returns: [*ValidationError] (every [Issue]), [*PanicError] (with the
// stack, for logs only), [*TimeoutError], [*CanceledError],
// [*UnknownToolError], [*DisabledToolError], [*DeniedError],
// [*NoResultError], [*InterruptError]. No type has an Is method. A
// handler's own error is passed on as it is. [ModelText] is the text a
// model is shown for each. A mistake in a tool's definition is a
// [*DefinitionError]: [New] panics with it, and [Define] returns it.
//
// # Rich results
//
// A handler whose output type is [Part] or []Part returns text, images,
// audio, embedded resources and links to resources: the result carries
// them in Result.Parts, which an MCP server sends as MCP content, and their
// text rendering ([PartsText]) in Result.Content, for a model that reads
// text only.
//
// [Guard] gives any handler — middleware around a tool, say — the
// guarantees a Registry gives its calls: exactly one result, passed on as
// soon as it is yielded, and panics before it turned into a result. What
// middleware does after the result (an audit record, say) is waited for:
// the stream, and Drain, return once it is done, or when the caller's
// context ends. Middleware's yield returns true for the result, so the
// usual shape, `if !yield(ev) { return }`, goes on to that work; it returns
// false for an event after the result, which is dropped.
//
// # The call in the context
//
// A handler run through a Handler can read its [Call] — the call ID and the
// caller's invocation state — with [CallFrom]. A direct call has none, unless
// its context was given one with [WithCall].
package tool
