package agent

import (
	"context"
	"iter"

	"github.com/hands-go/hands/tool"
)

// An EventKind says what an Event reports.
type EventKind int

// The kinds of event, in the order a turn yields them.
const (
	// EventDelta: a piece of the model's output, as a StreamingModel
	// streams it (Delta).
	EventDelta EventKind = iota + 1
	// EventResponse: the model's whole answer on a turn, its calls with
	// their IDs (Response).
	EventResponse
	// EventUsage: the tokens of the turn's model call, when the model
	// reports any (Usage).
	EventUsage
	// EventCallStart: a tool call is about to run (Call).
	EventCallStart
	// EventCallProgress: a running call reported progress (Call,
	// Progress).
	EventCallProgress
	// EventCallResult: a call's result, which is also its tool message in
	// the history (Call, Result). A rejected call has a result and no
	// start.
	EventCallResult
	// EventPending: a call waits for a person, for approval or for an
	// answer (Call, Pending). The run ends after the turn's pending calls.
	EventPending
	// EventEnd: the run ended (History, and the run's total Usage). It is
	// always the last event, and it comes with the run's error, if any.
	EventEnd
)

var eventNames = [...]string{
	EventDelta:        "delta",
	EventResponse:     "response",
	EventUsage:        "usage",
	EventCallStart:    "call_start",
	EventCallProgress: "call_progress",
	EventCallResult:   "call_result",
	EventPending:      "pending",
	EventEnd:          "end",
}

// String returns the kind's name, such as "call_result".
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// An Event is one step of a run, as Stream yields it. Kind says which of
// the other fields are set.
type Event struct {
	Kind EventKind
	// Turn is the turn the event belongs to, from 1.
	Turn int
	// Delta is the piece of output of an EventDelta.
	Delta Delta
	// Response is the model's answer of an EventResponse.
	Response *Response
	// Usage is the turn's usage on an EventUsage, and the run's total on
	// EventEnd.
	Usage Usage
	// Call is the call an EventCall… or EventPending is about, with the
	// arguments it runs with.
	Call *ToolCall
	// Progress is the value the handler passed to tool.Progress.
	Progress any
	// Result is the result of an EventCallResult.
	Result *tool.Result
	// Pending is what an EventPending call waits for.
	Pending *Pending
	// History is, on EventEnd, the history at the end of the run.
	History History
}

// A RunFunc is a run of the loop: it returns a single-use iterator over the
// run's events, the last of them an EventEnd yielded with the run's error.
type RunFunc func(ctx context.Context) iter.Seq2[Event, error]

// A Middleware observes or changes a run. Each field that is set wraps one
// layer, in the manner of net/http middleware; in Options.Middleware the
// first one listed is outermost.
type Middleware struct {
	// Run wraps the run as a whole: it can put values in the context every
	// model call and tool call of the run receives, and it sees every event.
	// A wrapper must pass on every event, the last one included, with its
	// error.
	Run func(next RunFunc) RunFunc
	// Model wraps the model on every turn of the run. A wrapper that wants
	// a StreamingModel to keep streaming implements StreamingModel too;
	// Chunks streams any Model.
	Model func(next Model) Model
	// Tool wraps every tool call of the run, outside the registry's own
	// middleware.
	Tool tool.Middleware
}
