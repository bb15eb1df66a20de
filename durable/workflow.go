package durable

import (
	"errors"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/tool"
)

// A run is the state of one workflow execution: what the Queries read and
// the Update writes.
type run struct {
	history  agent.History
	pending  []agent.Pending
	decision *agent.Decision // accepted by the Update, not yet applied
}

// Run is the workflow (WorkflowName): agent.Run's loop, with each model
// turn a TurnActivity and each call a CallActivity. Calls run one after
// another, in the order the model asked. Before a call that needs
// approval, and after a call that asked a question, the workflow waits
// for an UpdateDecide; QueryPending and QueryHistory read where it is.
// It returns the history, or ends with an application error of type
// ErrTypeIncomplete or ErrTypeTurnLimit, whose message is agent.Run's
// error's, or the model's error once the turn's retries end.
func (a *Agent) Run(ctx workflow.Context, in Input) (agent.History, error) {
	r := &run{history: in.History}
	if err := workflow.SetQueryHandler(ctx, QueryHistory, func() (agent.History, error) { return r.history, nil }); err != nil {
		return nil, err
	}
	if err := workflow.SetQueryHandler(ctx, QueryPending, func() ([]agent.Pending, error) { return r.pending, nil }); err != nil {
		return nil, err
	}
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide,
		func(ctx workflow.Context, d agent.Decision) error {
			r.decision = &d
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, d agent.Decision) error {
			return a.check(r, d)
		}})
	if err != nil {
		return nil, err
	}

	maxTurns := a.opts.MaxTurns
	if in.MaxTurns > 0 {
		maxTurns = in.MaxTurns
	}
	modelTimeout := a.opts.ModelTimeout
	if modelTimeout <= 0 {
		modelTimeout = DefaultModelTimeout
	}
	modelCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: modelTimeout,
		RetryPolicy:         a.opts.ModelRetry,
	})
	// Each turn's activity gets the messages its previous turn did not
	// have, and the digest of those it had: the messages before sent.
	// Runs started before that change send the whole history.
	deltas := workflow.GetVersion(ctx, turnDeltas, workflow.DefaultVersion, 1) == 1
	sent, digested := 0, ""
	for turn := 1; ; turn++ {
		var out TurnOutput
		in, name := TurnInput{Turn: turn, History: r.history}, wholeTurnActivity
		if deltas {
			in, name = TurnInput{Turn: turn, From: sent, Digest: digested, History: r.history[sent:]}, TurnActivity
			var err error
			if digested, err = digest(digested, in.History); err != nil {
				return r.history, err
			}
			sent = len(r.history)
		}
		if err := workflow.ExecuteActivity(modelCtx, name, in).Get(ctx, &out); err != nil {
			return r.history, err
		}
		// The turn ends as agent.Run ends it: the same messages, the
		// same errors.
		msgs, done, err := agent.AfterTurn(turn, out.response())
		if err != nil {
			return r.history, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeIncomplete, nil, out)
		}
		at := len(r.history) // the assistant message, while its calls run
		r.history = append(r.history, msgs...)
		if done {
			return r.history, nil
		}
		for i, c := range out.Message.Calls {
			if err := a.callOne(ctx, r, at, i, slices.Contains(out.NeedsApproval, c.ID)); err != nil {
				return r.history, err
			}
		}
		if err := agent.TurnLimit(turn, maxTurns); err != nil {
			return r.history, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeTurnLimit, nil)
		}
	}
}

// callOne runs call i of the assistant message at r.history[at], after its
// approval when it needs one, answering its questions, and appends its
// tool message. It returns an error only when the workflow must end.
func (a *Agent) callOne(ctx workflow.Context, r *run, at, i int, needsApproval bool) error {
	call := r.history[at].Calls[i]
	approved := false
	if needsApproval {
		d, err := r.wait(ctx, agent.Pending{Kind: agent.PendingApproval, Call: call})
		if err != nil {
			return err
		}
		if d.Verdict == agent.VerdictReject {
			r.history = append(r.history, rejected(call, d))
			return nil
		}
		if d.Args != nil {
			call.Args = d.Args
			r.history[at].Calls = slices.Clone(r.history[at].Calls)
			r.history[at].Calls[i].Args = d.Args // the record shows what ran
		}
		approved = true
	}
	var answers []string
	opts := a.activityOptions(call.Name)
	actx := workflow.WithActivityOptions(ctx, opts)
	for {
		var msg agent.Message
		err := workflow.ExecuteActivity(actx, CallActivity, CallInput{Call: call, Answers: answers}).Get(ctx, &msg)
		if err == nil {
			r.history = append(r.history, msg)
			return nil
		}
		aerr, ok := errors.AsType[*temporal.ApplicationError](err)
		if ok && aerr.Type() == ErrTypeAsk {
			var q Question
			if err := aerr.Details(&q); err != nil {
				return err
			}
			d, err := r.wait(ctx, agent.Pending{Kind: agent.PendingAnswer, Call: call, Question: q.Question, Approved: approved, Answers: answers})
			if err != nil {
				return err
			}
			if d.Verdict == agent.VerdictReject {
				r.history = append(r.history, rejected(call, d))
				return nil
			}
			answers = append(slices.Clip(answers), d.Answer)
			continue
		}
		if ok && aerr.HasDetails() && aerr.Details(&msg) == nil && msg.Role == agent.RoleTool {
			r.history = append(r.history, msg) // the model reads the last failure
			return nil
		}
		if temporal.IsCanceledError(err) {
			return err
		}
		// The last attempt ended without a result of the tool's: its
		// worker was lost, or did not answer in time. The model reads
		// what that means for the call; the log keeps Temporal's error.
		workflow.GetLogger(ctx).Warn("durable: a call ended without a result of its tool's", "tool", call.Name, "callID", call.ID, "error", err)
		res := tool.ErrorResult(tool.Call{ID: call.ID, Name: call.Name, Args: call.Args}, err)
		res.Content = lostText(call.Name, err, opts, a.annotations(call.Name))
		r.history = append(r.history, agent.ToolMessage(call, res))
		return nil
	}
}

// lostText is what the model reads of a call whose last attempt ended
// without a result of its tool's (err, Temporal's error): what happened,
// whether the call may have taken effect, and whether calling it again is
// safe, which the tool's annotations say, as they chose its retries.
func lostText(name string, err error, o workflow.ActivityOptions, an tool.Annotations) string {
	var b strings.Builder
	b.WriteString("The call to " + name + " did not finish: ")
	terr, ok := errors.AsType[*temporal.TimeoutError](err)
	switch {
	case ok && terr.TimeoutType() == enumspb.TIMEOUT_TYPE_HEARTBEAT:
		b.WriteString("the worker running it stopped reporting")
		if o.HeartbeatTimeout > 0 {
			b.WriteString(" (no heartbeat for " + o.HeartbeatTimeout.String() + ")")
		}
		b.WriteString(". ")
	case ok && terr.TimeoutType() == enumspb.TIMEOUT_TYPE_START_TO_CLOSE:
		b.WriteString("its worker stopped, or did not answer within the call's time limit of " + o.StartToCloseTimeout.String() + ". ")
	case ok:
		b.WriteString("it could not be run in time. ")
	default:
		b.WriteString("the system that runs tools failed before " + name + " answered. ")
	}
	retried := o.RetryPolicy == nil || o.RetryPolicy.MaximumAttempts != 1
	safe := an.ReadOnly || an.Idempotent
	switch {
	case retried && safe:
		b.WriteString("It was tried again, as its retry policy allows, and its last attempt ended this way. ")
	case retried:
		b.WriteString("It was tried again, as its retry policy allows, and its last attempt ended this way; any attempt may have taken effect. ")
	case !safe:
		b.WriteString("It may or may not have taken effect, and it was not run again, since " + name + " may not be safe to run twice. ")
	}
	switch {
	case an.ReadOnly:
		b.WriteString(name + " changes nothing, so you may call it again.")
	case an.Idempotent:
		b.WriteString(name + " is idempotent, so you may call it again with the same arguments: if a call took effect, another has no further effect.")
	case retried:
		b.WriteString("Check what it did before you call it again.")
	default:
		b.WriteString("Check whether it took effect before you call it again.")
	}
	return b.String()
}

// annotations returns the annotations of the named tool, or none when the
// registry does not hold it.
func (a *Agent) annotations(name string) tool.Annotations {
	if t, ok := a.reg.Lookup(name); ok {
		if an := t.Spec().Annotations; an != nil {
			return *an
		}
	}
	return tool.Annotations{}
}

// wait publishes p as the pending call and blocks until an accepted
// UpdateDecide decides it.
func (r *run) wait(ctx workflow.Context, p agent.Pending) (agent.Decision, error) {
	r.pending = []agent.Pending{p}
	r.decision = nil
	if err := workflow.Await(ctx, func() bool { return r.decision != nil }); err != nil {
		return agent.Decision{}, err
	}
	d := *r.decision
	r.pending, r.decision = nil, nil
	return d, nil
}

// rejected returns the tool message of a call a person rejected, as
// agent.Resume records it.
func rejected(call agent.ToolCall, d agent.Decision) agent.Message {
	return agent.ToolMessage(call, agent.RejectedResult(tool.Call{ID: call.ID, Name: call.Name, Args: call.Args}, d.Reason))
}

// activityOptions returns the options of the calls of the named tool, from
// its policy.
func (a *Agent) activityOptions(name string) workflow.ActivityOptions {
	p := a.opts.Tools[name]
	o := workflow.ActivityOptions{
		StartToCloseTimeout: p.Timeout,
		HeartbeatTimeout:    p.HeartbeatTimeout,
		RetryPolicy:         p.Retry,
	}
	t, known := a.reg.Lookup(name)
	if o.StartToCloseTimeout <= 0 {
		o.StartToCloseTimeout = DefaultToolTimeout
		if timed, ok := t.(tool.Timed); known && ok && timed.Timeout() > 0 {
			o.StartToCloseTimeout = timed.Timeout() + TimeoutMargin
		}
	}
	if o.RetryPolicy == nil {
		o.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: 1}
		if an := a.annotations(name); an.ReadOnly || an.Idempotent {
			o.RetryPolicy.MaximumAttempts = 3
		}
	}
	return o
}
