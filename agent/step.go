package agent

import (
	"context"
	"slices"

	"github.com/hands-go/hands/tool"
)

// The functions of this file are the steps of Run, for a loop that runs
// them elsewhere (such as the durable package, which runs each turn and
// each call as a Temporal activity) and must build the same turns as Run.

// NewRequest returns the request of one turn as Run builds it for a model
// that does not search deferred tools itself: the system prompt with the
// instructions of the scopes enabled now, the history, and the tools
// enabled now, the deferred ones left out until the portable search loads
// them (see ToolSearcher). NewRequestFor builds it for a given model.
func NewRequest(ctx context.Context, reg *tool.Registry, system string, history History) *Request {
	return NewRequestFor(ctx, nil, reg, system, history)
}

// NewRequestFor returns the request of one turn of model as Run builds it:
// NewRequest's, with every enabled tool, the deferred ones flagged, for a
// model that searches tools itself (a ToolSearcher whose SearchesTools
// reports true); with every tool, enabled or not, and the enabled ones
// named in Request.Allowed, for a model that is shown every tool (a
// ToolAllower whose AllowsTools reports true).
func NewRequestFor(ctx context.Context, model Model, reg *tool.Registry, system string, history History) *Request {
	if reg == nil {
		reg = &tool.Registry{}
	}
	return buildRequest(ctx, reg, system, history, searches(model), allows(model))
}

// CallIDs returns the calls of turn with an ID each, unique in history, as
// Run gives them: a call without an ID, or with one used before, gets one
// made from the turn and its place.
func CallIDs(calls []ToolCall, turn int, history History) []ToolCall {
	return withIDs(calls, turn, history)
}

// ToolMessage returns the tool message Run records for the result of call:
// the result's text, and its structured output and parts when the text is
// theirs (middleware did not rewrite it), and whether its arguments were
// migrated (tool.RepairMigrated), and the versions of the tool it was
// made against and ran as; for a result of the portable tool search, the
// tools it loaded (Message.Loaded).
func ToolMessage(call ToolCall, res tool.Result) Message {
	structured := res.Structured
	if string(structured) != res.Content {
		structured = nil // middleware rewrote what the model reads: the structured output must not bypass it
	}
	parts := res.Parts
	if tool.PartsText(parts) != res.Content {
		parts = nil // likewise for the images and resources
	}
	version := res.Version
	i := slices.IndexFunc(res.Repairs, func(rp tool.Repair) bool { return rp.Kind == tool.RepairMigrated })
	if i >= 0 {
		version = res.Repairs[i].Version
	}
	m := Message{Role: RoleTool, CallID: call.ID, Name: call.Name, Text: res.Content, Structured: structured, Parts: parts, IsError: res.IsError, Migrated: i >= 0, Version: version, RanAs: res.Version, Loaded: loadedBy(res)}
	if res.Cut != nil {
		m.Handle = res.Cut.Handle
	}
	return m
}

// AfterTurn returns what Run does with the response of turn, whose calls
// have their IDs (CallIDs): the messages it appends to the history, and
// whether the run ends with them (done).
//
//   - A truncated, filtered or refused response (FinishLength,
//     FinishContentFilter, FinishRefusal) appends nothing and ends the run
//     with an *IncompleteError: its calls never run, since their arguments
//     may be cut off.
//   - A response with calls appends the assistant message. Its calls run
//     next, in order, each recorded with ToolMessage (RejectedResult for
//     one a person rejected), and then TurnLimit says whether the model
//     gets another turn.
//   - A response without calls appends the assistant message and ends the
//     run, unless it ended with FinishMalformedCall: then a user message
//     that begins with MalformedCallText, and gives the response's
//     FinishMessage, follows it, and TurnLimit says whether the model gets
//     another turn.
func AfterTurn(turn int, resp *Response) (msgs []Message, done bool, err error) {
	if kind := incompleteKind(resp.FinishReason); kind != nil {
		return nil, true, &IncompleteError{Turn: turn, Response: resp, Err: kind}
	}
	msgs = []Message{{Role: RoleAssistant, Text: resp.Text, Calls: resp.Calls, State: resp.State}}
	if len(resp.Calls) > 0 {
		return msgs, false, nil
	}
	if resp.FinishReason != FinishMalformedCall {
		return msgs, true, nil
	}
	text := MalformedCallText
	if resp.FinishMessage != "" {
		text += "\n\n" + resp.FinishMessage
	}
	return append(msgs, UserText(text)), false, nil
}

// TurnLimit returns the *TurnLimitError with which Run ends after turn, a
// turn that did not end the run (AfterTurn), when it was the last of
// maxTurns (DefaultMaxTurns when maxTurns is zero or less); nil when the
// model gets another turn.
func TurnLimit(turn, maxTurns int) error {
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	if turn >= maxTurns {
		return &TurnLimitError{Turns: maxTurns, Err: ErrTurnLimit}
	}
	return nil
}

// RejectedResult returns the result Run gives a call that a person
// rejected with reason (a Decision of VerdictReject): the call does not
// run, and the model reads that a person rejected it, and why. Its error
// is a *tool.DeniedError, matching tool.ErrDenied, whose reason is a
// *RejectionError, matching ErrCallRejected.
func RejectedResult(call tool.Call, reason string) tool.Result {
	return tool.ErrorResult(call, &tool.DeniedError{Tool: call.Name, CallID: call.ID, Reason: &RejectionError{Reason: reason, Err: ErrCallRejected}, Err: tool.ErrDenied})
}
