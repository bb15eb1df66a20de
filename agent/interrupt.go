package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/hands-go/hands/tool"
)

// ErrPaused is matched by an *Interrupt that Run, Stream or Resume returns.
var ErrPaused = errors.New("agent: the run waits for a person")

// An Interrupt is a run paused because calls wait for a person: it is the
// error Run returns then, and everything Resume needs to go on. It is a
// plain value that round-trips through JSON, so the decision can come
// later, from another process. As an error it matches ErrPaused.
type Interrupt struct {
	// History is the conversation so far. Its last assistant message holds
	// the paused turn's calls; those without a tool message have not run.
	History History `json:"history"`
	// Turn is the paused turn, from 1; the turn limit counts on from it.
	Turn int `json:"turn"`
	// Pending are the calls that wait for a person, in call order. Resume
	// takes one decision for each.
	Pending []Pending `json:"pending"`
	// Decided are calls that people decided on but that have not run,
	// because a call before them paused the run again; Resume applies
	// their decisions, and they need no new ones.
	Decided []Pending `json:"decided,omitempty"`
	// Err is ErrPaused in the Interrupt a run returns. It is not part of
	// the JSON: an Interrupt read back is data for Resume, not an error.
	Err error `json:"-"`
}

// Error says how many calls wait.
func (in *Interrupt) Error() string {
	return fmt.Sprintf("agent: the run paused on turn %d: %d call(s) wait for a person", in.Turn, len(in.Pending))
}

// Unwrap returns Err.
func (in *Interrupt) Unwrap() error { return in.Err }

// A PendingKind says what a pending call waits for.
type PendingKind string

// What a call can wait for.
const (
	// PendingApproval: Options.NeedsApproval said the call needs a
	// person's approval before it runs. It has not run.
	PendingApproval PendingKind = "approval"
	// PendingAnswer: the call's handler asked a question with tool.Ask.
	PendingAnswer PendingKind = "answer"
)

// A Pending is a call that waits for a person.
type Pending struct {
	Kind PendingKind `json:"kind"`
	// Call is the call, as the model made it.
	Call ToolCall `json:"call"`
	// Question is what the handler asked, for PendingAnswer.
	Question string `json:"question,omitempty"`
	// Approved reports that the call was approved before it asked its
	// question.
	Approved bool `json:"approved,omitempty"`
	// Answers are the answers to the call's earlier questions, in order.
	Answers []string `json:"answers,omitempty"`
	// Decision is, in Interrupt.Decided, the decision already made.
	Decision *Decision `json:"decision,omitempty"`
}

// A Verdict is what a person decided about a pending call.
type Verdict string

// The verdicts.
const (
	// VerdictApprove runs a call that waits for approval, with the
	// arguments of the Decision when it has them.
	VerdictApprove Verdict = "approve"
	// VerdictReject does not run the call (or does not answer its
	// question): its result is an error that gives the model the reason.
	VerdictReject Verdict = "reject"
	// VerdictAnswer answers a call's question.
	VerdictAnswer Verdict = "answer"
)

// A Decision is a person's decision about one pending call. It is a plain
// value that round-trips through JSON.
type Decision struct {
	// CallID is the ID of the pending call.
	CallID  string  `json:"callId"`
	Verdict Verdict `json:"verdict"`
	// Args, on an approval, replace the call's arguments; the tool
	// validates them as it would the model's, and the history records
	// them as the call's. They must be JSON.
	Args json.RawMessage `json:"args,omitempty"`
	// Reason, on a rejection, says why; the model reads it.
	Reason string `json:"reason,omitempty"`
	// Answer is the answer to the call's question.
	Answer string `json:"answer,omitempty"`
}

// Approve returns the decision to run a pending call as the model made it.
func Approve(callID string) Decision { return Decision{CallID: callID, Verdict: VerdictApprove} }

// Edit returns the decision to run a pending call with other arguments.
func Edit(callID string, args json.RawMessage) Decision {
	return Decision{CallID: callID, Verdict: VerdictApprove, Args: args}
}

// Reject returns the decision not to run a pending call, for the reason
// given, which the model reads.
func Reject(callID, reason string) Decision {
	return Decision{CallID: callID, Verdict: VerdictReject, Reason: reason}
}

// Answer returns the answer to a pending call's question.
func Answer(callID, answer string) Decision {
	return Decision{CallID: callID, Verdict: VerdictAnswer, Answer: answer}
}

// Errors that a *DecisionError wraps.
var (
	// ErrStaleDecision reports a decision for a call that does not wait:
	// its ID matches no pending call of the interrupt.
	ErrStaleDecision = errors.New("agent: decision for a call that does not wait")
	// ErrInvalidDecision reports a decision that does not fit its call (an
	// answer to an approval, arguments that are not JSON, a second
	// decision for one call), or a pending call left without one.
	ErrInvalidDecision = errors.New("agent: invalid decision")
)

// A DecisionError reports a decision that Resume cannot apply. Resume
// checks every decision before anything runs.
type DecisionError struct {
	CallID  string // the call the decision is for
	Problem string // what is wrong, for people; never match on it
	Err     error  // ErrStaleDecision or ErrInvalidDecision
}

// Error names the call and the problem.
func (e *DecisionError) Error() string {
	return fmt.Sprintf("agent: decision for call %q: %s", e.CallID, e.Problem)
}

// Unwrap returns Err.
func (e *DecisionError) Unwrap() error { return e.Err }

// A RejectionError is the reason a rejected call's *tool.DeniedError
// carries: a person said no. Its text is what the model reads.
type RejectionError struct {
	Reason string // as the person gave it; may be empty
}

// Error says the call was rejected, and why.
func (e *RejectionError) Error() string {
	if e.Reason == "" {
		return "a person rejected the call"
	}
	return "a person rejected the call: " + e.Reason
}

// Resume goes on with a paused run: it applies the decisions to the
// pending calls of in and continues where the run stopped — the paused
// turn's remaining calls in order, then the next turns — as Run does, and
// may pause again. An approved call runs (with the decision's arguments, if
// any, validated again by the tool); a rejected one gets an error result
// that gives the model the reason; a call that asked a question runs again,
// from the start, and this time tool.Ask returns the answer.
//
// Every pending call needs one decision. Before anything runs, Resume
// checks them all and reports every problem as a *DecisionError (joined
// with errors.Join when there are several): ErrStaleDecision for a call ID
// that matches no pending call, ErrInvalidDecision for the rest. It does
// not change in.
func Resume(ctx context.Context, model Model, reg *tool.Registry, in *Interrupt, decisions []Decision, opts *Options) (History, error) {
	var history History
	if in != nil {
		history = in.History
	}
	return drain(ResumeStream(ctx, model, reg, in, decisions, opts), history)
}

// ResumeStream is Resume as a stream of events, in the manner of Stream.
// When the decisions do not fit, the one event is an EventEnd with the
// interrupt's history and the error.
func ResumeStream(ctx context.Context, model Model, reg *tool.Registry, in *Interrupt, decisions []Decision, opts *Options) iter.Seq2[Event, error] {
	return stream(ctx, model, reg, opts, func(ctx context.Context, l *loop) (History, error) {
		if in == nil {
			return nil, errors.New("agent: resume: no interrupt")
		}
		l.turn = in.Turn
		states, err := in.states(decisions)
		if err != nil {
			return in.History, err
		}
		history := slices.Clone(in.History)
		a := lastAssistant(history)
		history[a].Calls = slices.Clone(history[a].Calls)
		return l.run(ctx, history, in.Turn, states)
	})
}

// states checks the interrupt and the decisions, and returns what is known
// of each call of the paused turn that waited.
func (in *Interrupt) states(decisions []Decision) (map[string]*callState, error) {
	a := lastAssistant(in.History)
	if a < 0 || in.Turn < 1 {
		return nil, errors.New("agent: resume: the interrupt has no paused turn")
	}
	notRun := map[string]bool{}
	done := answered(in.History[a+1:])
	for _, c := range in.History[a].Calls {
		if !done[c.ID] {
			notRun[c.ID] = true
		}
	}
	states := map[string]*callState{}
	for _, list := range [][]Pending{in.Pending, in.Decided} {
		for _, p := range list {
			if !notRun[p.Call.ID] || states[p.Call.ID] != nil {
				return nil, fmt.Errorf("agent: resume: the interrupt does not match its history: call %q", p.Call.ID)
			}
			states[p.Call.ID] = &callState{waited: p, decision: p.Decision}
		}
	}
	var errs []error
	for _, d := range decisions {
		st := states[d.CallID]
		if st == nil || st.waited.Decision != nil {
			errs = append(errs, &DecisionError{CallID: d.CallID, Problem: "no pending call has this ID", Err: ErrStaleDecision})
			continue
		}
		if problem := fits(d, st.waited.Kind); problem != "" {
			errs = append(errs, &DecisionError{CallID: d.CallID, Problem: problem, Err: ErrInvalidDecision})
			continue
		}
		if st.decision != nil {
			errs = append(errs, &DecisionError{CallID: d.CallID, Problem: "a second decision for the call", Err: ErrInvalidDecision})
			continue
		}
		st.decision = &d
	}
	for _, p := range in.Pending {
		if states[p.Call.ID].decision == nil && !slices.ContainsFunc(errs, func(err error) bool {
			derr, ok := err.(*DecisionError)
			return ok && derr.CallID == p.Call.ID
		}) {
			errs = append(errs, &DecisionError{CallID: p.Call.ID, Problem: "the call waits for a decision and got none", Err: ErrInvalidDecision})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return states, nil
}

// fits says what is wrong with decision d for a call waiting for kind, or
// returns "".
func fits(d Decision, kind PendingKind) string {
	switch {
	case d.Verdict == VerdictReject:
		return ""
	case d.Verdict == VerdictApprove && kind == PendingApproval:
		if d.Args != nil && !json.Valid(d.Args) {
			return "the edited arguments are not JSON"
		}
		return ""
	case d.Verdict == VerdictAnswer && kind == PendingAnswer:
		return ""
	case d.Verdict == VerdictApprove || d.Verdict == VerdictAnswer:
		return fmt.Sprintf("the call waits for %s, not %s", kind, d.Verdict)
	}
	return fmt.Sprintf("unknown verdict %q", d.Verdict)
}

// Destructive returns an approval policy for Options.NeedsApproval: every
// call of a tool of reg whose annotations say it is destructive, and not
// read-only, needs approval. It reads the annotations once, now.
func Destructive(reg *tool.Registry) func(context.Context, tool.Call) bool {
	names := map[string]bool{}
	for _, s := range reg.Scopes() {
		for _, t := range s.Tools {
			if a := t.Spec().Annotations; a != nil && a.Destructive && !a.ReadOnly {
				names[t.Name()] = true
			}
		}
	}
	return func(_ context.Context, call tool.Call) bool { return names[call.Name] }
}

// InScopes returns an approval policy for Options.NeedsApproval: every call
// of a tool in the named scopes of reg needs approval.
func InScopes(reg *tool.Registry, scopes ...string) func(context.Context, tool.Call) bool {
	names := map[string]bool{}
	for _, s := range reg.Scopes() {
		if slices.Contains(scopes, s.Name) {
			for _, t := range s.Tools {
				names[t.Name()] = true
			}
		}
	}
	return func(_ context.Context, call tool.Call) bool { return names[call.Name] }
}
