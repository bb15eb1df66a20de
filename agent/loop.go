package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/hands-go/hands/tool"
)

// Run runs the loop until the model answers without calling a tool, and
// returns the history with every turn appended. On a model error, a
// cancelled context or the turn limit (*TurnLimitError) it returns the
// history so far, in which every call has its result, with the error.
//
// A turn whose response was truncated, filtered or refused (its
// FinishReason is FinishLength, FinishContentFilter or FinishRefusal) ends
// the run with an *IncompleteError, which matches ErrTruncated, ErrFiltered
// or ErrRefused: its calls never run, since their arguments may be cut off,
// and it is left out of the history. A turn that ended with
// FinishMalformedCall and no call is kept, followed by a user message that
// begins with MalformedCallText, and the model gets another turn; a call
// whose arguments are not valid JSON runs through the registry, whose
// validation error reaches the model as the call's result.
//
// When a call waits for a person — Options.NeedsApproval says it needs
// approval, or its handler asked a question with tool.Ask — the run pauses
// before it: the error is an *Interrupt, which holds the history and the
// pending calls, and Resume goes on from there once people have decided.
//
// A nil registry offers no tools. Run is Stream drained.
func Run(ctx context.Context, model Model, reg *tool.Registry, history History, opts *Options) (History, error) {
	return drain(Stream(ctx, model, reg, history, opts), history)
}

// Stream runs the loop as Run does and returns a single-use iterator over
// its events: each turn's deltas (from a StreamingModel), the model's
// response and usage, each call's start, progress and result, the calls
// that wait for a person, and last of all an EventEnd with the history,
// yielded with the run's error (nil, an *Interrupt, a *TurnLimitError, the
// model's error, ...). Every event is yielded on the goroutine that ranges
// over the stream, parallel calls included.
//
// If the caller stops iterating early, the run is cancelled: the model call
// or the tool calls under way get a cancelled context, and the iterator
// returns once the goroutines it started for parallel calls have ended
// (a tool's own handler that ignores its context is abandoned, as
// tool.Stream documents).
func Stream(ctx context.Context, model Model, reg *tool.Registry, history History, opts *Options) iter.Seq2[Event, error] {
	return stream(ctx, model, reg, opts, func(ctx context.Context, l *loop) (History, error) {
		if _, err := pauseKey(l.opts); err != nil {
			return history, err
		}
		return l.run(ctx, history, 1, nil)
	})
}

// drain returns the history and the error of a run's last event.
func drain(events iter.Seq2[Event, error], history History) (History, error) {
	for ev, err := range events {
		if ev.Kind == EventEnd {
			history = ev.History
		}
		if err != nil {
			return history, err
		}
	}
	return history, nil
}

// errStopped ends a run whose consumer stopped iterating.
var errStopped = errors.New("agent: the consumer stopped")

// stream returns a run as an iterator, wrapped in the middleware's Run
// layers: body runs the loop, and its history and error make the EventEnd.
func stream(ctx context.Context, model Model, reg *tool.Registry, opts *Options, body func(context.Context, *loop) (History, error)) iter.Seq2[Event, error] {
	if opts == nil {
		opts = &Options{}
	}
	if reg == nil {
		reg = &tool.Registry{}
	}
	var run RunFunc = func(ctx context.Context) iter.Seq2[Event, error] {
		return func(yield func(Event, error) bool) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			l := newLoop(model, reg, opts)
			stopped := false
			l.emit = func(ev Event) bool {
				if !stopped && !yield(ev, nil) {
					stopped = true
					cancel()
				}
				return !stopped
			}
			history, err := body(ctx, l)
			if stopped {
				return
			}
			yield(Event{Kind: EventEnd, Turn: l.turn, History: history, Usage: l.usage}, err)
		}
	}
	for i := len(opts.Middleware) - 1; i >= 0; i-- {
		if w := opts.Middleware[i].Run; w != nil {
			run = w(run)
		}
	}
	return func(yield func(Event, error) bool) {
		for ev, err := range run(ctx) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// A loop is the state of one run.
type loop struct {
	model    Model        // with the middleware's Model layers
	tools    tool.Handler // the registry in the middleware's Tool layers
	reg      *tool.Registry
	opts     *Options
	maxTurns int
	native   bool  // the model searches deferred tools itself
	allows   bool  // the model is shown every tool, with those allowed (ToolAllower)
	ready    error // why the run cannot start, or nil

	emit  func(Event) bool // yields an event; false once the consumer stopped
	turn  int              // the turn under way
	usage Usage            // the run's total
}

func newLoop(model Model, reg *tool.Registry, opts *Options) *loop {
	base := CallHandler(model, reg)
	l := &loop{model: model, tools: base, reg: reg, opts: opts, maxTurns: opts.MaxTurns, native: searches(model), allows: allows(model), ready: checkTools(model, reg)}
	if l.maxTurns <= 0 {
		l.maxTurns = DefaultMaxTurns
	}
	for i := len(opts.Middleware) - 1; i >= 0; i-- {
		mw := opts.Middleware[i]
		if mw.Model != nil {
			l.model = mw.Model(l.model)
		}
		if mw.Tool != nil {
			l.tools = mw.Tool(l.tools)
		}
	}
	if l.tools != base {
		l.tools = tool.Guard(l.tools, reg.Logger()) // the registry guards its own middleware, not what wraps it
	}
	return l
}

// run runs turns from turn on. With states, it first finishes the calls of
// the paused turn, whose states say what people decided.
func (l *loop) run(ctx context.Context, history History, turn int, states map[string]*callState) (History, error) {
	if l.ready != nil {
		return history, l.ready
	}
	var err error
	if l.opts.ResultBudget != 0 && l.reg.Budget() == nil {
		return history, fmt.Errorf("agent: Options.ResultBudget needs the registry's result budgets on (tool.Registry.SetBudget): %w", tool.ErrBudgetsOff)
	}
	if l.reg.Budget() != nil {
		ctx = tool.WithRecipient(ctx, tool.Recipient{ID: l.opts.Recipient, Budget: l.opts.ResultBudget})
	}
	if states != nil {
		l.turn = turn
		if history, err = l.calls(ctx, history, turn, states); err != nil {
			return history, err
		}
		if err := TurnLimit(turn, l.maxTurns); err != nil {
			return history, err
		}
		turn++
	}
	for ; ; turn++ {
		l.turn = turn
		if err := ctx.Err(); err != nil {
			return history, fmt.Errorf("agent: turn %d: %w", turn, err)
		}
		history = l.clear(ctx, history)
		resp, err := l.generate(ctx, turn, buildRequest(ctx, l.reg, l.opts.System, history, l.native, l.allows))
		if err != nil {
			return history, err
		}
		calls := withIDs(resp.Calls, turn, history)
		out := *resp
		out.Calls = calls
		if !l.emit(Event{Kind: EventResponse, Turn: turn, Response: &out}) {
			return history, errStopped
		}
		if resp.Usage != (Usage{}) && !l.emit(Event{Kind: EventUsage, Turn: turn, Usage: resp.Usage}) {
			return history, errStopped
		}
		msgs, done, err := AfterTurn(turn, &out)
		if err != nil {
			return history, err
		}
		history = append(history, msgs...)
		if done {
			return history, nil
		}
		if len(calls) > 0 {
			if history, err = l.calls(ctx, history, turn, nil); err != nil {
				return history, err
			}
		}
		if err := TurnLimit(turn, l.maxTurns); err != nil {
			return history, err
		}
	}
}

// generate asks the model for one turn, streaming when it can, and passes
// the deltas on.
func (l *loop) generate(ctx context.Context, turn int, req *Request) (*Response, error) {
	var resp *Response
	for chunk, err := range Chunks(ctx, l.model, req) {
		if err != nil {
			return nil, fmt.Errorf("agent: turn %d: %w", turn, err)
		}
		if chunk.Response != nil {
			resp = chunk.Response
			break
		}
		if !l.emit(Event{Kind: EventDelta, Turn: turn, Delta: chunk.Delta}) {
			return nil, errStopped
		}
	}
	if resp == nil {
		return nil, fmt.Errorf("agent: turn %d: the model returned no response", turn)
	}
	l.usage = l.usage.Add(resp.Usage)
	return resp, nil
}

// A callState is what is known of one call of a paused turn: what it
// waited for, and what people decided.
type callState struct {
	waited   Pending   // Kind, Question, Approved, Answers
	decision *Decision // nil when none was needed
}

// A job is one call of a turn that has no result yet, and what to do with
// it.
type job struct {
	index    int // in the assistant message's calls
	call     ToolCall
	state    callState
	approved bool     // approved now or on an earlier resume
	answers  []string // to the questions the call asks, in order
	waits    bool     // the policy says it waits for approval
}

// A jobResult is the outcome of a job that was run or answered.
type jobResult struct {
	res     tool.Result
	pending *Pending // the call asked a question instead
}

// calls runs the calls of the last assistant message that have no result
// yet, in order, and appends their tool messages. It stops before the
// first call that waits for approval, and after a call that asked a
// question; then it returns an *Interrupt listing every call of the turn
// that waits for a person.
func (l *loop) calls(ctx context.Context, history History, turn int, states map[string]*callState) (History, error) {
	a := lastAssistant(history)
	done := answered(history[a+1:])
	var jobs []job
	for i, c := range history[a].Calls {
		if done[c.ID] {
			continue
		}
		j := job{index: i, call: c}
		if st := states[c.ID]; st != nil {
			j.state = *st
			j.approved, j.answers = st.waited.Approved, st.waited.Answers
		}
		if d := j.state.decision; d != nil {
			switch d.Verdict {
			case VerdictApprove:
				j.approved = true
				if d.Args != nil {
					j.call.Args = d.Args
					history[a].Calls[i].Args = d.Args // the record shows what ran
				}
			case VerdictAnswer:
				j.answers = append(j.answers[:len(j.answers):len(j.answers)], d.Answer)
			}
		}
		jobs = append(jobs, j)
	}

	// Run the calls up to the first that waits for approval: in order, or
	// at once when Parallel allows.
	next := len(jobs) // the first job not run
	for i, j := range jobs {
		if j.state.decision == nil && !j.approved && l.needsApproval(ctx, j.call) {
			next = i
			jobs[i].waits = true
			break
		}
	}
	results, stopped, ran := l.runCalls(ctx, turn, jobs[:next])
	if stopped {
		return history, errStopped
	}
	next = ran

	// Record the results, in call order.
	in := &Interrupt{Turn: turn, Err: ErrPaused}
	for _, j := range jobs[:next] {
		r := results[j.index]
		if r.pending != nil {
			in.Pending = append(in.Pending, *r.pending)
			continue
		}
		history = append(history, ToolMessage(j.call, r.res))
	}
	// What waits: the calls not run that need approval. Decisions made for
	// calls not run are kept for the resume.
	for _, j := range jobs[next:] {
		switch {
		case j.state.decision != nil:
			d := j.state.waited
			d.Decision = j.state.decision
			in.Decided = append(in.Decided, d)
		case j.waits || !j.approved && l.needsApproval(ctx, j.call):
			in.Pending = append(in.Pending, Pending{Kind: PendingApproval, Call: j.call})
		}
	}
	if len(in.Pending) == 0 {
		return history, nil
	}
	in.History = history
	key, err := pauseKey(l.opts)
	if err == nil {
		err = in.seal(key, l.opts.PauseTTL)
	}
	if err != nil {
		return history, err
	}
	for i := range in.Pending {
		if !l.emit(Event{Kind: EventPending, Turn: turn, Call: &in.Pending[i].Call, Pending: &in.Pending[i]}) {
			return history, errStopped
		}
	}
	return history, in
}

func (l *loop) needsApproval(ctx context.Context, c ToolCall) bool {
	return l.opts.NeedsApproval != nil && l.opts.NeedsApproval(ctx, l.toolCall(c))
}

func (l *loop) toolCall(c ToolCall) tool.Call {
	return tool.Call{ID: c.ID, Name: c.Name, Args: c.Args, State: l.opts.State}
}

// runCalls runs jobs through the tools, as tool.RunAll runs calls, and passes
// their events on. A rejected call is answered without running. It
// reports whether the consumer stopped, and how many jobs ran: one after
// another, the jobs stop after the first that asked a question; at once,
// they all run.
func (l *loop) runCalls(ctx context.Context, turn int, jobs []job) (results map[int]jobResult, stopped bool, ran int) {
	calls := make([]tool.Call, len(jobs))
	rejected := map[string]*Decision{}
	for i, j := range jobs {
		calls[i] = l.toolCall(j.call)
		if d := j.state.decision; d != nil && d.Verdict == VerdictReject {
			rejected[j.call.ID] = d
		}
		if len(j.answers) > 0 {
			ctx = tool.WithAnswers(ctx, j.call.ID, j.answers)
		}
	}
	tools := l.tools
	if len(rejected) > 0 {
		tools = tool.HandlerFunc(func(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
			if d := rejected[call.ID]; d != nil {
				res := RejectedResult(call, d.Reason)
				return func(yield func(tool.Event) bool) { yield(tool.Event{Result: &res}) }
			}
			return l.tools.Stream(ctx, call)
		})
	}
	results = map[int]jobResult{}
	ran = len(jobs)
	tool.RunAll(ctx, tools, calls, &tool.BatchOptions{
		Parallel: l.opts.Parallel,
		Started: func(i int) bool {
			if rejected[jobs[i].call.ID] != nil {
				return true // answered, not run
			}
			stopped = !l.emit(Event{Kind: EventCallStart, Turn: turn, Call: &jobs[i].call})
			return !stopped
		},
		Progress: func(i int, v any) bool {
			stopped = !l.emit(Event{Kind: EventCallProgress, Turn: turn, Call: &jobs[i].call, Progress: v})
			return !stopped
		},
		Finished: func(i int, res tool.Result) bool {
			j := jobs[i]
			if ierr, ok := errors.AsType[*tool.InterruptError](res.Err); ok {
				results[j.index] = jobResult{pending: &Pending{Kind: PendingAnswer, Call: j.call, Question: ierr.Question, Approved: j.approved, Answers: j.answers}}
				if l.opts.Parallel <= 1 {
					ran = i + 1 // the calls after it wait for the answer
					return false
				}
				return true
			}
			results[j.index] = jobResult{res: res}
			stopped = !l.emit(Event{Kind: EventCallResult, Turn: turn, Call: &jobs[i].call, Result: &res})
			return !stopped
		},
	})
	return results, stopped, ran
}

// ClearedText starts the note that replaces a tool result cleared from the
// history (Options.KeepResults).
const ClearedText = "[this result was cleared from the context to save room"

// clear returns history with every tool result before the last
// Options.KeepResults replaced by a note that says how to read it again:
// the result is kept in the registry's result store when budgets are on.
// A message cleared before is left as it is, and history itself is not
// changed: the messages changed are in a copy.
func (l *loop) clear(ctx context.Context, history History) History {
	keep := l.opts.KeepResults
	if keep <= 0 {
		return history
	}
	copied := false
	for i := len(history) - 1; i >= 0; i-- {
		m := &history[i]
		if m.Role != RoleTool {
			continue
		}
		if keep > 0 {
			keep--
			continue
		}
		if m.Cleared {
			continue
		}
		if !copied {
			history, copied = slices.Clone(history), true
			m = &history[i]
		}
		handle := m.Handle
		if handle == "" {
			if h, _, err := l.reg.Keep(ctx, m.Text); err == nil {
				handle = h
			}
		}
		text := ClearedText + "; call the tool again if it is needed]"
		if handle != "" {
			text = ClearedText + `; read it again with read_result {"handle":"` + handle + `","offset":0}]`
		}
		*m = Message{Role: RoleTool, CallID: m.CallID, Name: m.Name, IsError: m.IsError, Migrated: m.Migrated, Version: m.Version, RanAs: m.RanAs, Loaded: m.Loaded, Text: text, Handle: handle, Cleared: true}
	}
	return history
}

// lastAssistant returns the index of the last assistant message, or -1.
func lastAssistant(history History) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == RoleAssistant {
			return i
		}
	}
	return -1
}

// answered returns the IDs of the calls that tool messages answer.
func answered(msgs []Message) map[string]bool {
	done := map[string]bool{}
	for _, m := range msgs {
		if m.Role == RoleTool {
			done[m.CallID] = true
		}
	}
	return done
}
