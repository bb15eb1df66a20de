package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/tool"
)

// The names under which Register puts the workflow and its activities on
// a worker, and the names of the workflow's Update and Queries.
const (
	// WorkflowName is the run's workflow type.
	WorkflowName = "hands.Run"
	// TurnActivity asks the model for one turn, given the messages added
	// to the run's history since its previous turn (TurnInput).
	TurnActivity = "hands.TurnFrom"
	// CallActivity runs one tool call.
	CallActivity = "hands.Call"
	// UpdateDecide sends a person's agent.Decision about a pending call.
	UpdateDecide = "hands.decide"
	// QueryPending returns the calls that wait for a person, as
	// []agent.Pending.
	QueryPending = "hands.pending"
	// QueryHistory returns the run's history so far, as agent.History.
	QueryHistory = "hands.history"
)

// Application error types of the run's activities and workflow, as
// temporal.ApplicationError.Type reports them.
const (
	// ErrTypeInvalid: the tool refused the call's arguments (or the tool
	// is unknown); not retried, and the model reads why.
	ErrTypeInvalid = "hands.Invalid"
	// ErrTypeDenied: a guard or a person denied the call; not retried.
	ErrTypeDenied = "hands.Denied"
	// ErrTypeAsk: the handler asked a question with tool.Ask; not
	// retried: the run waits for the answer.
	ErrTypeAsk = "hands.Ask"
	// ErrTypeFailed: the call failed (its handler's error, its timeout);
	// retried by the tool's policy, and then the model reads the last
	// failure.
	ErrTypeFailed = "hands.Failed"
	// ErrTypeIncomplete: a turn's response was truncated, filtered or
	// refused; the run ends.
	ErrTypeIncomplete = "hands.Incomplete"
	// ErrTypeTurnLimit: the model was still calling tools at the turn
	// limit; the run ends.
	ErrTypeTurnLimit = "hands.TurnLimit"
	// ErrTypeHistory: a turn's activity could not find the run's history
	// before the messages of its input (TurnInput), which it asks the run
	// for when its worker does not hold them: its worker has no client
	// (an SDK test environment's activities have none), or the run's
	// history is shorter than the input says; not retried.
	ErrTypeHistory = "hands.History"
)

// wholeTurnActivity is the name of the turn activity of the runs started
// before TurnActivity: its input holds the run's whole history (From is
// zero). A worker still registers it, for such runs.
const wholeTurnActivity = "hands.Turn"

// turnDeltas is the change of the workflow that sends each turn's
// activity only the messages its previous turn did not have
// (workflow.GetVersion): runs started before it go on with
// wholeTurnActivity.
const turnDeltas = "hands.turn-deltas"

// DefaultToolTimeout is a call's StartToCloseTimeout when neither its
// tool's policy nor the tool itself (tool.WithTimeout) bounds it.
const DefaultToolTimeout = time.Minute

// TimeoutMargin is what a call's StartToCloseTimeout adds to its tool's
// own timeout (tool.WithTimeout, tool.Timed) when its policy gives none:
// the tool's timeout ends the call first, with a *tool.TimeoutError that
// the model reads, and the activity's ends only an attempt whose worker
// was lost.
const TimeoutMargin = 5 * time.Second

// DefaultModelTimeout is a turn's StartToCloseTimeout when
// Options.ModelTimeout is zero.
const DefaultModelTimeout = 5 * time.Minute

// A ToolPolicy is how the calls of one tool run as activities.
type ToolPolicy struct {
	// Timeout bounds one attempt of a call: the activity's
	// StartToCloseTimeout. Zero selects the tool's own timeout
	// (tool.WithTimeout, which tool.Timed reports) plus TimeoutMargin, or
	// DefaultToolTimeout for a tool without one. When set, give it the
	// tool's own timeout or more: that one ends the handler, this one the
	// attempt.
	Timeout time.Duration
	// HeartbeatTimeout, when set, fails an attempt whose worker has sent
	// no heartbeat for that long; each progress report of the call
	// (tool.Progress) is a heartbeat.
	HeartbeatTimeout time.Duration
	// Retry is the retry policy of a failed call. Nil selects three
	// attempts for a tool whose annotations say it is read-only or
	// idempotent, and one for the others, which may not be safe to run
	// twice. Invalid arguments, a denial and a question are never
	// retried, whatever the policy.
	Retry *temporal.RetryPolicy
}

// Options configure a durable run. A nil *Options selects every default.
//
// The workflow reads them. MaxTurns decides how far a run goes, so every
// worker of a task queue must have the same: one with another replays
// other steps, which Temporal reports as a nondeterminism error. The
// policies (Tools, ModelTimeout, ModelRetry) may differ from worker to
// worker, and change from deploy to deploy: they set the options of the
// activities a worker schedules, and Temporal matches a recorded activity
// by its type and ID alone. NeedsApproval's answers are recorded with
// each turn, so a changed rule applies to the turns to come.
type Options struct {
	// System is the system prompt.
	System string
	// MaxTurns is how many times the model is asked, at most; zero
	// selects agent.DefaultMaxTurns. Input.MaxTurns overrides it.
	MaxTurns int
	// NeedsApproval says which calls wait for a person's approval, as in
	// agent.Options. It is asked in the turn's activity, and its answer
	// recorded in the workflow's history.
	NeedsApproval func(ctx context.Context, call tool.Call) bool
	// Tools are the policies of the calls, by tool name; a tool not named
	// gets the zero ToolPolicy.
	Tools map[string]ToolPolicy
	// ModelTimeout bounds one attempt of a turn; zero selects
	// DefaultModelTimeout.
	ModelTimeout time.Duration
	// ModelRetry is the retry policy of a failed turn; nil selects
	// Temporal's default (retry with backoff, without limit).
	ModelRetry *temporal.RetryPolicy
	// TracerProvider, when set, traces the run's activities with
	// otelhands: each turn's model call is a chat span, and each tool
	// call an execute_tool span, in the context of the activity that
	// runs it. Their metrics go to the global MeterProvider. With
	// Tracing's interceptor on the worker's client, that context holds
	// the activity's span, in the trace of the caller that started the
	// run; without it, each turn and each call is a trace of its own.
	// A registry that already traces its calls (otelhands.Tools) would
	// give each call two spans. Nil traces nothing.
	TracerProvider trace.TracerProvider
}

// An Agent runs hands' agent loop on Temporal: Register puts its workflow
// and activities on a worker, and clients start runs of WorkflowName.
type Agent struct {
	model     agent.Model
	reg       *tool.Registry
	opts      Options
	traced    agent.Middleware // otelhands', when opts.TracerProvider is set
	histories historyCache     // of the runs whose turns this worker ran last
}

// New returns an Agent that asks model and runs the tools of reg. A nil
// registry offers no tools.
func New(model agent.Model, reg *tool.Registry, opts *Options) *Agent {
	a := &Agent{model: model, reg: reg}
	if a.reg == nil {
		a.reg = &tool.Registry{}
	}
	if opts != nil {
		a.opts = *opts
	}
	a.traced = traced(a)
	return a
}

// A Registrar is what Register puts the run on: a worker.Worker, a test
// environment (testsuite.TestWorkflowEnvironment), or a
// worker.WorkflowReplayer, which takes workflows only.
type Registrar interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// An activityRegistrar is a Registrar that also takes activities.
type activityRegistrar interface {
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers the workflow (WorkflowName) on w and, when w takes
// activities too (a worker.Worker and a test environment do, a
// worker.WorkflowReplayer does not: a replay runs none), the activities
// (TurnActivity, CallActivity; and the turn activity of the runs started
// before TurnActivity took only the messages a turn adds, for those
// runs).
func (a *Agent) Register(w Registrar) {
	w.RegisterWorkflowWithOptions(a.Run, workflow.RegisterOptions{Name: WorkflowName})
	if w, ok := w.(activityRegistrar); ok {
		w.RegisterActivityWithOptions(a.Turn, activity.RegisterOptions{Name: TurnActivity})
		w.RegisterActivityWithOptions(a.Turn, activity.RegisterOptions{Name: wholeTurnActivity})
		w.RegisterActivityWithOptions(a.Call, activity.RegisterOptions{Name: CallActivity})
	}
}

var (
	_ Registrar         = worker.WorkflowReplayer(nil)
	_ activityRegistrar = worker.Worker(nil)
)

// Input starts a run.
type Input struct {
	// History is the conversation to go on from, ending with the user's
	// message.
	History agent.History `json:"history"`
	// MaxTurns, when positive, overrides Options.MaxTurns.
	MaxTurns int `json:"maxTurns,omitempty"`
}

// TurnInput is the input of TurnActivity: the messages of the run's
// history from From on, those its previous turn did not have, so that
// what Temporal records of a run grows with its turns and not with their
// square. The activity finds the messages before From where the run's
// previous turn left them, in its worker's memory, or else asks the run
// for them (QueryHistory).
type TurnInput struct {
	Turn int `json:"turn"`
	// From is how many messages of the run's history come before
	// History; zero when History is the whole history.
	From int `json:"from,omitempty"`
	// Digest is the digest of the run's history before From, which the
	// activity checks the messages in its worker's memory against.
	Digest string `json:"digest,omitempty"`
	// History is the run's history from From on.
	History agent.History `json:"history"`
}

// TurnOutput is the result of TurnActivity.
type TurnOutput struct {
	// Message is the assistant message of the turn, its calls with IDs.
	Message agent.Message `json:"message"`
	// Finish, RawFinish and FinishMessage are the response's.
	Finish        agent.FinishReason `json:"finish,omitempty"`
	RawFinish     string             `json:"rawFinish,omitempty"`
	FinishMessage string             `json:"finishMessage,omitempty"`
	Usage         agent.Usage        `json:"usage,omitzero"`
	// NeedsApproval are the IDs of the calls Options.NeedsApproval says
	// wait for a person.
	NeedsApproval []string `json:"needsApproval,omitempty"`
}

// response returns the turn's response as the model gave it, its calls
// with their IDs.
func (o TurnOutput) response() *agent.Response {
	return &agent.Response{
		Text:            o.Message.Text,
		Calls:           o.Message.Calls,
		State:           o.Message.State,
		FinishReason:    o.Finish,
		RawFinishReason: o.RawFinish,
		FinishMessage:   o.FinishMessage,
		Usage:           o.Usage,
	}
}

// Turn is TurnActivity: it asks the model for one turn, with the request
// agent.Run would build (agent.NewRequestFor): the tools the portable
// search loaded in the history included.
func (a *Agent) Turn(ctx context.Context, in TurnInput) (TurnOutput, error) {
	history, err := a.turnHistory(ctx, in)
	if err != nil {
		return TurnOutput{}, err
	}
	model := a.model
	if a.traced.Model != nil {
		model = a.traced.Model(model)
	}
	var resp *agent.Response
	for chunk, err := range agent.Chunks(ctx, model, agent.NewRequestFor(ctx, a.model, a.reg, a.opts.System, history)) {
		if err != nil {
			return TurnOutput{}, fmt.Errorf("durable: turn %d: %w", in.Turn, err)
		}
		if chunk.Response != nil {
			resp = chunk.Response
			break
		}
		activity.RecordHeartbeat(ctx)
	}
	if resp == nil {
		return TurnOutput{}, fmt.Errorf("durable: turn %d: the model returned no response", in.Turn)
	}
	calls := agent.CallIDs(resp.Calls, in.Turn, history)
	out := TurnOutput{
		Message:       agent.Message{Role: agent.RoleAssistant, Text: resp.Text, Calls: calls, State: resp.State},
		Finish:        resp.FinishReason,
		RawFinish:     resp.RawFinishReason,
		FinishMessage: resp.FinishMessage,
		Usage:         resp.Usage,
	}
	if a.opts.NeedsApproval != nil {
		for _, c := range calls {
			if a.opts.NeedsApproval(ctx, tool.Call{ID: c.ID, Name: c.Name, Args: c.Args}) {
				out.NeedsApproval = append(out.NeedsApproval, c.ID)
			}
		}
	}
	return out, nil
}

// CallInput is the input of CallActivity.
type CallInput struct {
	Call agent.ToolCall `json:"call"`
	// Answers are the answers to the questions the call asked before, in
	// order (see tool.Ask).
	Answers []string `json:"answers,omitempty"`
}

// A Question is the detail of an ErrTypeAsk error: what the handler asked.
type Question struct {
	Question string `json:"question"`
}

// Call is CallActivity: it runs one call through the registry, as
// agent.Run does (agent.CallHandler: the portable tool search included),
// and returns its tool message. Each progress report is a
// heartbeat, with the progress as its detail. A failed call is an
// application error whose detail is the tool message (the model reads it
// once retries end): ErrTypeInvalid and ErrTypeDenied are not retryable,
// ErrTypeFailed is; a question is a non-retryable ErrTypeAsk whose detail
// is a Question.
func (a *Agent) Call(ctx context.Context, in CallInput) (agent.Message, error) {
	if len(in.Answers) > 0 {
		ctx = tool.WithAnswers(ctx, in.Call.ID, in.Answers)
	}
	h := agent.CallHandler(a.model, a.reg)
	if a.traced.Tool != nil {
		h = a.traced.Tool(h)
	}
	// Drain answers when the activity's context ends, even if the handler
	// ignores it, so a handler cannot hold the activity past its timeout.
	res := tool.Drain(ctx, h, tool.Call{ID: in.Call.ID, Name: in.Call.Name, Args: in.Call.Args}, func(v any) bool {
		activity.RecordHeartbeat(ctx, progressDetail(v))
		return true
	})
	msg := agent.ToolMessage(in.Call, res)
	if !res.IsError {
		return msg, nil
	}
	if ierr, ok := errors.AsType[*tool.InterruptError](res.Err); ok {
		return agent.Message{}, temporal.NewNonRetryableApplicationError(ierr.Error(), ErrTypeAsk, nil, Question{Question: ierr.Question})
	}
	switch {
	case errors.Is(res.Err, tool.ErrInvalidArguments), errors.Is(res.Err, tool.ErrUnknownTool), errors.Is(res.Err, tool.ErrDisabled):
		return agent.Message{}, temporal.NewNonRetryableApplicationError(res.Content, ErrTypeInvalid, nil, msg)
	case errors.Is(res.Err, tool.ErrDenied):
		return agent.Message{}, temporal.NewNonRetryableApplicationError(res.Content, ErrTypeDenied, nil, msg)
	}
	return agent.Message{}, temporal.NewApplicationError(res.Content, ErrTypeFailed, msg)
}

// progressDetail returns a progress report as a heartbeat detail: as it is
// when it is JSON, and as its text otherwise.
func progressDetail(v any) any {
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprint(v)
	}
	return v
}
