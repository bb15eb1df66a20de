package durable

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/hands-go/hands/agent"
)

// The types of a refused UpdateDecide, as temporal.ApplicationError.Type
// reports them.
const (
	// ErrTypeStaleDecision: no call with the decision's ID waits, or it
	// was decided already (agent.ErrStaleDecision).
	ErrTypeStaleDecision = "hands.StaleDecision"
	// ErrTypeInvalidDecision: the decision does not fit its call, such as
	// an answer to a call that waits for approval
	// (agent.ErrInvalidDecision).
	ErrTypeInvalidDecision = "hands.InvalidDecision"
	// ErrTypeInvalidEdit: the approval's edited arguments are not JSON, or
	// the tool refuses them (agent.ErrInvalidEdit). The error's detail is
	// the tool's issues, a []tool.Issue, empty when the arguments are not
	// JSON.
	ErrTypeInvalidEdit = "hands.InvalidEdit"
)

// check is the validator of UpdateDecide. It finds the call d is for among
// those that wait, and applies agent.CheckDecision, the check
// agent.Resume makes, so that a decision Resume would refuse is refused to
// its sender and never enters the workflow's history. A refusal reaches
// the sender as a *temporal.ApplicationError of type ErrTypeStaleDecision,
// ErrTypeInvalidDecision or ErrTypeInvalidEdit, whose message is the
// *agent.DecisionError's.
func (a *Agent) check(r *run, d agent.Decision) error {
	var err error = &agent.DecisionError{CallID: d.CallID, Problem: "no pending call has this ID", Err: agent.ErrStaleDecision}
	if r.decision == nil { // a decided call waits no more
		for _, p := range r.pending {
			if p.Call.ID == d.CallID {
				err = agent.CheckDecision(a.reg, p, d)
			}
		}
	}
	derr, ok := errors.AsType[*agent.DecisionError](err)
	switch {
	case err == nil:
		return nil
	case !ok:
		return err
	case errors.Is(err, agent.ErrStaleDecision):
		return temporal.NewNonRetryableApplicationError(derr.Error(), ErrTypeStaleDecision, nil)
	case errors.Is(err, agent.ErrInvalidEdit):
		return temporal.NewNonRetryableApplicationError(derr.Error(), ErrTypeInvalidEdit, nil, derr.Issues)
	}
	return temporal.NewNonRetryableApplicationError(derr.Error(), ErrTypeInvalidDecision, nil)
}
