package tool

import (
	"context"
	"encoding/json"
	"sync"
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
	// passed through to the handler untouched. It never reaches the model.
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
	// json.RawMessage as its bytes, any other output as JSON, and for an
	// error result the text of ModelText.
	Content string `json:"content"`
	// Output is the handler's value, for structured use; nil on an error.
	Output any `json:"-"`
	// IsError reports a failed call.
	IsError bool `json:"isError,omitempty"`
	// Err is the Go error behind an error result: a *ValidationError, a
	// *PanicError, a *CanceledError or the handler's own error.
	Err error `json:"-"`
	// Repairs are the repairs made to the arguments before validation (see
	// RepairKind), in order; each is also logged through log/slog.
	Repairs []Repair `json:"repairs,omitempty"`
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

// A callContext is the context a handler runs in during Run and Stream: the
// caller's context plus the call and where its progress goes. Being a
// context itself saves a separate context.WithValue on every call.
type callContext struct {
	context.Context
	call Call
	sink *sink // nil in Run
}

// Value returns the callContext for callKey and defers to the parent
// otherwise.
func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// direct returns ctx for a direct call (Call, CallJSON). Made from inside
// another tool's handler, the direct call is still a call of its own: its
// handler finds no Call in the context, and its progress goes nowhere.
func direct(ctx context.Context) context.Context {
	if _, ok := ctx.Value(callKey{}).(*callContext); !ok {
		return ctx
	}
	return directContext{ctx}
}

// A directContext hides the call of the handler it was made in.
type directContext struct{ context.Context }

func (c directContext) Value(key any) any {
	if key == (callKey{}) {
		return nil
	}
	return c.Context.Value(key)
}

// CallFrom returns the call a handler is serving. It reports false in a
// direct call (Call, CallJSON), where there is none.
func CallFrom(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(*callContext)
	if !ok {
		return Call{}, false
	}
	return c.call, true
}

// Progress reports progress from inside a handler: in Stream the value
// becomes a progress event; elsewhere Progress does nothing. It is safe to
// call from several goroutines; values reported after the handler returns
// are dropped.
func Progress(ctx context.Context, v any) {
	if c, ok := ctx.Value(callKey{}).(*callContext); ok && c.sink != nil {
		c.sink.send(v)
	}
}

// A sink passes progress events to a Stream's consumer, one at a time.
type sink struct {
	mu      sync.Mutex
	yield   func(Event) bool
	cancel  context.CancelFunc
	stopped bool // the consumer stopped iterating
	closed  bool // the handler returned
}

func (s *sink) send(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.closed {
		return
	}
	if !s.yield(Event{Progress: v}) {
		s.stopped = true
		s.cancel()
	}
}

// close ends progress and reports whether the consumer still wants the
// result.
func (s *sink) close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return !s.stopped
}
