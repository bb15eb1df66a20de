package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/hands-go/hands/tool"
)

// ErrPaused is matched by an *Interrupt that Run, Stream or Resume returns.
var ErrPaused = errors.New("agent: the run waits for a person")

// An Interrupt is a run paused because calls wait for a person: it is the
// error Run returns then, and everything Resume needs to go on. It is a
// plain value that round-trips through JSON, so the decision can come
// later, from another process. As an error it matches ErrPaused.
//
// The run seals it: Seal is a MAC, under Options.PauseKey, of everything
// else in it, and Resume refuses an interrupt whose seal does not match
// (ErrInterruptAltered), so what runs after a pause is what the run
// recorded, and nothing a holder of the JSON wrote. Read it, store it, send
// it; do not change it.
type Interrupt struct {
	// ID names this pause. Resume claims it once (see Options.Claims); a
	// resumed run that pauses again has a new one.
	ID string `json:"id"`
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
	// Expires is when the interrupt can no longer be resumed, from
	// Options.PauseTTL; zero when it has no end.
	Expires time.Time `json:"expires,omitzero"`
	// Seal authenticates the rest: a MAC under the run's pause key.
	Seal string `json:"seal"`
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
	// answer to an approval, an unknown verdict, a second decision for one
	// call), or a pending call left without one. Edited arguments that are
	// not JSON are an ErrInvalidEdit.
	ErrInvalidDecision = errors.New("agent: invalid decision")
	// ErrInvalidEdit reports an approval whose edited arguments the call's
	// tool refuses: they are not JSON, or not valid for its input schema.
	// The person who edited them gets the issues; the model never sees
	// them, and nothing runs.
	ErrInvalidEdit = errors.New("agent: the edited arguments are invalid")
)

// ErrCallRejected is matched by a *RejectionError: a person rejected the
// call.
var ErrCallRejected = errors.New("agent: a person rejected the call")

// A DecisionError reports a decision that Resume cannot apply. Resume
// checks every decision before anything runs.
type DecisionError struct {
	CallID  string // the call the decision is for
	Problem string // what is wrong, for people; never match on it
	// Issues are, with ErrInvalidEdit, what the tool found wrong with the
	// edited arguments, each at its JSON Pointer; nil when they are not
	// JSON at all.
	Issues []tool.Issue
	Err    error // ErrStaleDecision, ErrInvalidDecision or ErrInvalidEdit
}

// Error names the call and the problem, and lists the issues.
func (e *DecisionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent: decision for call %q: %s", e.CallID, e.Problem)
	for _, is := range e.Issues {
		b.WriteString("\n")
		b.WriteString(is.String())
	}
	return b.String()
}

// Unwrap returns Err.
func (e *DecisionError) Unwrap() error { return e.Err }

// A RejectionError is the reason a rejected call's *tool.DeniedError
// carries: a person said no. Its text is what the model reads. The call's
// error matches tool.ErrDenied and ErrCallRejected.
type RejectionError struct {
	Reason string // as the person gave it; may be empty
	Err    error  // ErrCallRejected
}

// Error says the call was rejected, and why.
func (e *RejectionError) Error() string {
	if e.Reason == "" {
		return "a person rejected the call"
	}
	return "a person rejected the call: " + e.Reason
}

// Unwrap returns Err.
func (e *RejectionError) Unwrap() error { return e.Err }

// Resume goes on with a paused run: it applies the decisions to the
// pending calls of in and continues where the run stopped — the paused
// turn's remaining calls in order, then the next turns — as Run does, and
// may pause again. An approved call runs (with the decision's arguments, if
// any, validated again by the tool); a rejected one gets an error result
// that gives the model the reason; a call that asked a question runs again,
// from the start, and this time tool.Ask returns the answer.
//
// Before anything runs, Resume checks, in this order, and runs nothing
// when a check fails:
//
//   - the interrupt's seal, under Options.PauseKey: an interrupt changed
//     in any way, or sealed under another key, is a *ResumeError for
//     ErrInterruptAltered;
//   - its expiry (Options.PauseTTL): one past it is a *ResumeError for
//     ErrInterruptExpired;
//   - the decisions: every pending call needs one, and every problem is
//     reported as a *DecisionError (joined with errors.Join when there are
//     several): ErrStaleDecision for a call ID that matches no pending
//     call, ErrInvalidEdit for edited arguments the tool refuses (not JSON,
//     or invalid for its schema; the error lists the issues),
//     ErrInvalidDecision for the rest;
//   - the claim: Resume claims the interrupt's ID in Options.Claims, and
//     an interrupt resumed before — here or in another process sharing
//     the store — is a *ResumeError for ErrInterruptClaimed.
//
// A refused decision does not use the interrupt up: correct it and resume
// again. Resume does not change in.
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
		key, err := pauseKey(l.opts)
		if err != nil {
			return in.History, err
		}
		if err := in.verify(key); err != nil {
			return in.History, err
		}
		if !in.Expires.IsZero() && !time.Now().Before(in.Expires) {
			return in.History, &ResumeError{InterruptID: in.ID, Err: ErrInterruptExpired}
		}
		l.turn = in.Turn
		states, err := in.states(decisions)
		if err == nil {
			err = checkEdits(l.reg, states)
		}
		if err != nil {
			return in.History, err
		}
		store := l.opts.Claims
		if store == nil {
			store = defaultClaims
		}
		switch ok, err := store.Claim(ctx, in.ID); {
		case err != nil:
			return in.History, err
		case !ok:
			return in.History, &ResumeError{InterruptID: in.ID, Err: ErrInterruptClaimed}
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
		if problem, sentinel := fits(d, st.waited.Kind); problem != "" {
			errs = append(errs, &DecisionError{CallID: d.CallID, Problem: problem, Err: sentinel})
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

// fits says what is wrong with decision d for a call waiting for kind, and
// the sentinel for it, or returns "".
func fits(d Decision, kind PendingKind) (string, error) {
	switch {
	case d.Verdict == VerdictReject:
		return "", nil
	case d.Verdict == VerdictApprove && kind == PendingApproval:
		if d.Args != nil && !json.Valid(d.Args) {
			return "the edited arguments are not JSON", ErrInvalidEdit
		}
		return "", nil
	case d.Verdict == VerdictAnswer && kind == PendingAnswer:
		return "", nil
	case d.Verdict == VerdictApprove || d.Verdict == VerdictAnswer:
		return fmt.Sprintf("the call waits for %s, not %s", kind, d.Verdict), ErrInvalidDecision
	}
	return fmt.Sprintf("unknown verdict %q", d.Verdict), ErrInvalidDecision
}

// An argsChecker is a tool that checks arguments without running
// (*tool.Tool and *tool.RawTool are).
type argsChecker interface {
	CheckArgs(args json.RawMessage) error
}

// checkEdits checks the edited arguments of the decisions in states with
// their tools, in call order, and reports those refused as
// *DecisionErrors for ErrInvalidEdit. A tool that cannot check without
// running checks the arguments when it runs, and the model reads its
// error, as with arguments the model wrote.
func checkEdits(reg *tool.Registry, states map[string]*callState) error {
	var errs []error
	for _, st := range states {
		if st.decision == nil || st.waited.Decision != nil {
			continue
		}
		if derr := checkEdit(reg, st.waited.Call.Name, *st.decision); derr != nil {
			errs = append(errs, derr)
		}
	}
	slices.SortFunc(errs, func(a, b error) int {
		return strings.Compare(a.(*DecisionError).CallID, b.(*DecisionError).CallID)
	})
	return errors.Join(errs...)
}

// checkEdit checks the edited arguments of d, an approval of a call of the
// named tool, with the tool, and returns a *DecisionError for
// ErrInvalidEdit when it refuses them, or nil.
func checkEdit(reg *tool.Registry, name string, d Decision) *DecisionError {
	if d.Verdict != VerdictApprove || d.Args == nil || reg == nil {
		return nil
	}
	t, ok := reg.Lookup(name)
	if !ok {
		return nil // the run says the tool is unknown, as it would the model
	}
	c, ok := t.(argsChecker)
	if !ok {
		return nil
	}
	err := c.CheckArgs(d.Args)
	if err == nil {
		return nil
	}
	derr := &DecisionError{CallID: d.CallID, Problem: "the tool refuses the edited arguments", Err: ErrInvalidEdit}
	if verr, ok := errors.AsType[*tool.ValidationError](err); ok {
		derr.Issues = verr.Issues
	} else {
		derr.Problem += ": " + err.Error()
	}
	return derr
}

// CheckDecision applies to d the rules Resume applies to a decision for
// the pending call p, without running anything: d must be for p's call,
// its verdict must fit what p waits for, and edited arguments must be JSON
// that p's tool in reg accepts (through its CheckArgs, where it has one).
// It returns nil, or a *DecisionError for ErrStaleDecision (d is for
// another call), ErrInvalidEdit (with the tool's issues) or
// ErrInvalidDecision. Engines that hold a paused run themselves (package
// durable) call it to refuse a bad decision before they record it.
func CheckDecision(reg *tool.Registry, p Pending, d Decision) error {
	if d.CallID != p.Call.ID {
		return &DecisionError{CallID: d.CallID, Problem: "no pending call has this ID", Err: ErrStaleDecision}
	}
	if problem, sentinel := fits(d, p.Kind); problem != "" {
		return &DecisionError{CallID: d.CallID, Problem: problem, Err: sentinel}
	}
	if derr := checkEdit(reg, p.Call.Name, d); derr != nil {
		return derr
	}
	return nil
}

// Destructive returns an approval policy for Options.NeedsApproval: every
// call of a tool of reg whose annotations say it is destructive, and not
// read-only, needs approval. It reads the annotations now, and those of
// the other tools when they are called, so that a tool added to reg later
// (tool.Registry.Add: a remote tool its MCP server began to offer, say),
// or whose annotations changed since, is asked about too; a tool that was
// destructive now stays so.
func Destructive(reg *tool.Registry) func(context.Context, tool.Call) bool {
	names := map[string]bool{}
	for _, s := range reg.Scopes() {
		for _, t := range s.Tools {
			if destructive(t) {
				names[t.Name()] = true
			}
		}
	}
	return func(_ context.Context, call tool.Call) bool {
		if names[call.Name] {
			return true
		}
		t, ok := reg.Lookup(call.Name)
		return ok && destructive(t)
	}
}

// destructive reports whether t's annotations say it is destructive and
// not read-only.
func destructive(t tool.Interface) bool {
	a := t.Spec().Annotations
	return a != nil && a.Destructive && !a.ReadOnly
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
