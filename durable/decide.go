package durable

import (
	"encoding/json"

	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/hands-go/hands/agent"
)

// The types of a refused UpdateDecide, as temporal.ApplicationError.Type
// reports them.
const (
	// ErrTypeStaleDecision: no call with the decision's ID waits
	// (agent.ErrStaleDecision).
	ErrTypeStaleDecision = "hands.StaleDecision"
	// ErrTypeInvalidDecision: the decision does not fit its call
	// (agent.ErrInvalidDecision).
	ErrTypeInvalidDecision = "hands.InvalidDecision"
)

// An argsChecker is a tool that checks arguments without running.
type argsChecker interface {
	CheckArgs(args json.RawMessage) error
}

// check is the validator of UpdateDecide: it applies to d the rules
// agent.Resume applies to a decision, so that a decision Resume would
// refuse is refused to its sender and never enters the workflow's history.
// A refusal reaches the sender as a *temporal.ApplicationError of type
// ErrTypeStaleDecision, when no call with d's ID waits or it was decided
// already, or ErrTypeInvalidDecision, for a verdict that does not fit what
// the call waits for or edited arguments that are not JSON or that the
// tool refuses; its cause is the *agent.DecisionError.
func (a *Agent) check(r *run, d agent.Decision) error {
	var p *agent.Pending
	for i := range r.pending {
		if r.pending[i].Call.ID == d.CallID {
			p = &r.pending[i]
		}
	}
	if p == nil || r.decision != nil {
		derr := &agent.DecisionError{CallID: d.CallID, Problem: "no pending call has this ID", Err: agent.ErrStaleDecision}
		return temporal.NewNonRetryableApplicationError(derr.Error(), ErrTypeStaleDecision, derr)
	}
	problem := ""
	switch {
	case d.Verdict == agent.VerdictReject:
	case d.Verdict == agent.VerdictApprove && p.Kind == agent.PendingApproval:
		if d.Args == nil {
			break
		}
		if !json.Valid(d.Args) {
			problem = "the edited arguments are not JSON"
			break
		}
		if t, ok := a.reg.Lookup(p.Call.Name); ok {
			if c, ok := t.(argsChecker); ok {
				if err := c.CheckArgs(d.Args); err != nil {
					problem = "the tool refuses the edited arguments: " + err.Error()
				}
			}
		}
	case d.Verdict == agent.VerdictAnswer && p.Kind == agent.PendingAnswer:
	case d.Verdict == agent.VerdictApprove || d.Verdict == agent.VerdictAnswer:
		problem = fmt.Sprintf("the call waits for %s, not %s", p.Kind, d.Verdict)
	default:
		problem = fmt.Sprintf("unknown verdict %q", d.Verdict)
	}
	if problem != "" {
		derr := &agent.DecisionError{CallID: d.CallID, Problem: problem, Err: agent.ErrInvalidDecision}
		return temporal.NewNonRetryableApplicationError(derr.Error(), ErrTypeInvalidDecision, derr)
	}
	return nil
}
