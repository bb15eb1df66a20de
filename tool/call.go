package tool

import (
	"context"
	"encoding/json"
)

// A Call is one request from a model to run a tool.
type Call struct {
	// ID identifies the call within a conversation; the result carries it
	// back. It may be empty.
	ID string `json:"id,omitempty"`
	// Name is the tool the model asked for.
	Name string `json:"name"`
	// Args are the arguments exactly as the model sent them.
	Args json.RawMessage `json:"args"`
	// State is the caller's invocation state (a session, a user, a tenant),
	// passed through to the handler untouched. It never reaches the model,
	// and hands itself keeps nothing in it: what a transport knows of a
	// request (an MCP request's headers, say) has a typed accessor of its
	// own in that transport's package.
	State map[string]any `json:"-"`
}

// A Result is the outcome of one call, in the form a model reads it.
type Result struct {
	// CallID is the ID of the call this answers.
	CallID string `json:"callId,omitempty"`
	// Tool is the name of the tool that ran.
	Tool string `json:"tool"`
	// Content is what the model is told: a string output as it is (also of
	// a named string type without MarshalJSON or MarshalText), a
	// json.RawMessage as its bytes, parts (Part or []Part) as PartsText,
	// an output that implements ModelTexter as its ModelText, any other
	// output as JSON, and for an error result the text of
	// ModelText. Middleware may rewrite it freely; one that redacts must
	// clear or redact Structured and Parts too, which an MCP client receives
	// as they are (the agent loop drops a Structured whose text was
	// rewritten).
	Content string `json:"content"`
	// Parts is the rich content of a handler whose output is Part or
	// []Part; nil otherwise. Clients that show images, audio and resources
	// (an MCP client) take Parts and not Content, which is its text
	// rendering for those that take text only.
	Parts []Part `json:"parts,omitempty"`
	// Structured is the output encoded as JSON, when the tool has an output
	// schema (Spec.OutputSchema) and the call succeeded; nil otherwise. It
	// is kept apart from Content, so rewriting what the model reads never
	// changes the structured output a client checks against the schema.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Output is the handler's value, for structured use; nil on an error.
	Output any `json:"-"`
	// IsError reports a failed call.
	IsError bool `json:"isError,omitempty"`
	// Err is the Go error behind an error result: it matches one of the
	// Err* sentinels with errors.Is (a *ValidationError, *PanicError,
	// *TimeoutError, *CanceledError, ...), or it is the handler's own error.
	Err error `json:"-"`
	// Repairs are the repairs made to the arguments before validation (see
	// RepairKind), in order.
	Repairs []Repair `json:"repairs,omitempty"`
	// Deprecated lists what the call used that is deprecated: "" for the
	// tool itself (WithDeprecated), then the JSON Pointer of each
	// deprecated argument it sent. Content ends with a note saying so.
	Deprecated []string `json:"deprecated,omitempty"`
	// Version is the version of the tool that ran the call (WithVersion);
	// "" when it declares none. A call made against an earlier version
	// and upgraded by the tool's migration has a RepairMigrated repair
	// that names that version.
	Version string `json:"version,omitempty"`
	// Cut is set when a registry cut the result to its budget (see
	// Budget): what the model was shown of it, what was left out, and the
	// handle read_result reads the whole by. Nil on a result within its
	// budget, which is as the tool made it.
	Cut *Cut `json:"cut,omitempty"`
}

// An Event is one step of a streamed call: a progress report or, last of
// all, the result.
type Event struct {
	// Progress is the value a handler passed to Progress; nil on the final
	// event.
	Progress any
	// Result is set on the final event, and only there.
	Result *Result
}

// callKey is the context key of the running call.
type callKey struct{}

// A callContext is the context a handler runs in: the caller's context plus
// the call and where its progress goes. Being a context itself saves a
// separate context.WithValue on every call.
type callContext struct {
	context.Context
	call   Call
	sink   *sink // nil where progress goes nowhere
	direct bool  // made by WithCall for a direct call
}

// Value returns the callContext for callKey and defers to the parent
// otherwise.
func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// WithCall returns a context that gives a direct call (Tool.Call,
// Tool.CallJSON, RawTool.CallJSON) a call context: its handler finds call —
// the ID and the invocation state — with CallFrom, as a handler run by a
// Registry does, and a *ValidationError or *TimeoutError it returns carries
// the ID. The call's Name is set to the tool's own; its Args are not used.
func WithCall(ctx context.Context, call Call) context.Context {
	return &callContext{Context: ctx, call: call, direct: true}
}

// directContext returns the context the handler of a direct call to tool
// name runs in, and the call's ID. A call given by WithCall is kept, named
// for the tool. Made from inside another tool's handler, the direct call is
// still a call of its own: its handler finds no Call in the context, and its
// progress goes nowhere.
func directContext(ctx context.Context, name string) (context.Context, string) {
	cc, ok := ctx.Value(callKey{}).(*callContext)
	switch {
	case !ok:
		return ctx, ""
	case !cc.direct:
		return hiddenCall{ctx}, ""
	case cc.call.Name == name:
		return ctx, cc.call.ID
	}
	call := cc.call
	call.Name = name
	return &callContext{Context: ctx, call: call, direct: true}, call.ID
}

// A hiddenCall hides the call of the handler it was made in.
type hiddenCall struct{ context.Context }

func (c hiddenCall) Value(key any) any {
	if key == (callKey{}) {
		return nil
	}
	return c.Context.Value(key)
}

// CallFrom returns the call a handler is serving. It reports false in a
// direct call not given one by WithCall.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(*callContext)
	if !ok {
		return Call{}, false
	}
	return c.call, true
}

// Progress reports progress from inside a handler: in a streamed call the
// value becomes a progress event; elsewhere Progress does nothing. It is
// safe to call from any goroutine: the event is handed to the goroutine
// that ranges over the stream and delivered there, so Progress waits until
// the consumer takes it (or the call ends, or the consumer stops). Values
// reported after the call ended are dropped.
func Progress(ctx context.Context, v any) {
	if c, ok := ctx.Value(callKey{}).(*callContext); ok && c.sink != nil {
		c.sink.send(Event{Progress: v})
	}
}

// ReportsProgress reports whether Progress(ctx, …) may reach anyone: true
// in a call run as a stream (Stream, or Drain with a progress function),
// false in a call run to its end (Run, or Drain without one) and outside a
// call. A handler whose reports cost something to set up — a remote tool
// asks its server for them and forwards them on a goroutine — sets them up
// only when they may be read.
func ReportsProgress(ctx context.Context) bool {
	c, ok := ctx.Value(callKey{}).(*callContext)
	return ok && c.sink != nil
}

// A ProgressReport says how far a call has got. A handler passes one to
// Progress when it knows its numbers:
//
//	tool.Progress(ctx, tool.ProgressReport{Done: 3, Total: 10, Message: "page 3 of 10"})
//
// It is the vocabulary every transport understands: an MCP server sends it
// as notifications/progress, and an MCP client reports a server's
// notifications as ProgressReports. Other values may be reported too: a
// transport reads a number as Done with no Total, and anything else as a
// message.
type ProgressReport struct {
	Done    float64 // how much is done, in any unit; it should grow from report to report
	Total   float64 // how much there is to do, in the same unit; zero when not known
	Message string  // for people; may be empty
}

// A sink hands the events of a streamed call from the handler's goroutines
// to the goroutine that ranges over the stream.
type sink struct {
	events chan Event      // unbuffered: an event waits for the consumer
	done   <-chan struct{} // closed when the stream stops taking events
}

// send hands ev to the consumer, or drops it once the stream is done.
func (s *sink) send(ev Event) {
	select {
	case s.events <- ev:
	case <-s.done:
	}
}
