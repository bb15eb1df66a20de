// Package agent runs the loop between a model and its tools: it shows the
// model the tools enabled now, runs the calls the model makes through a
// tool.Registry, in the order it asked, feeds every result back — errors
// included, so the model can recover — and keeps the record.
//
//	history := agent.History{agent.UserText("Add a note called groceries.")}
//	history, err := agent.Run(ctx, model, registry, history, &agent.Options{System: "You keep notes."})
//
// # The loop
//
// Each turn, Run builds a Request from the system prompt, the instructions of
// the scopes enabled now, the history, and the specs of the tools enabled
// now. It appends the model's answer to the history as an assistant message
// carrying its calls, runs the calls through the registry (so middleware,
// predicates, validation and timeouts all apply), and appends one tool
// message per call whose CallID matches the call's ID. It stops when a turn
// has no calls, and returns a *TurnLimitError when MaxTurns turns have all
// made calls; either way the history is intact and every call has its
// result. A run can also pause for a person (see below).
//
// # History
//
// A History is a plain slice of Messages that round-trips through JSON, so
// a conversation can be saved and resumed with another call to Run. It
// keeps what the model sent verbatim: a call's arguments are, in JSON, a
// string that holds them byte for byte, valid JSON or not, so that no
// encoder compacts, indents or escapes them; each tool message
// holds the result's text and, next to it, its structured output
// (Message.Structured) and its images, audio, resources and links
// (Message.Parts); and everything a provider needs to continue —
// reasoning items, thinking blocks, thought signatures, its own call IDs —
// is in the opaque, provider-tagged State of the assistant message and its
// calls, so a run resumes in another process with a Model made anew.
//
// # Deferred tools
//
// A tool deferred by tool.WithDeferLoading or tool.Scope.DeferLoading is
// not shown to the model until a search finds it. A model whose provider
// searches tools itself (a [ToolSearcher]: Anthropic, the Responses API)
// is sent every enabled tool, the deferred ones flagged, and its
// provider's search items travel in Message.State. Any other model is
// sent the tools not deferred, then [SearchToolName], a search the loop
// runs itself over the deferred tools enabled for this run's context,
// then the tools its answers loaded, in order, so that the tools sent
// before keep their bytes and places and the prompt cache holds. Each
// answer records what it loaded in Message.Loaded, so a resumed run, a
// durable run ([NewRequestFor], [CallHandler]) and a replay send the same
// tools. Neither search reveals a tool disabled for the caller. Run refuses
// a registry whose every tool is deferred (tool.ErrNothingLoaded).
//
// # Allowed tools
//
// A model that is a [ToolAllower] (the OpenAI adapter with
// openai.Options.AllowedTools) is sent every tool of the registry on every
// turn, enabled or not, and told in Request.Allowed which it may call on
// this turn, so that the tools sent, and the provider's prompt cache over
// them, change only when the registry does. The model then reads the
// definitions of disabled tools; the registry still refuses a call to
// one. Every other model is sent the enabled tools alone, and an adapter
// whose provider cannot be told which tools are allowed refuses a request
// that names fewer than it holds.
//
// # Finish reasons
//
// Every Response says why the model stopped, as a portable [FinishReason]
// and the provider's own RawFinishReason. A response cut off at the token
// limit, withheld by a filter or refused ends the run with an
// [*IncompleteError], which matches [ErrTruncated], [ErrFiltered] or
// [ErrRefused]; its calls never run, since their arguments may be cut
// off, and the history ends before that turn, ready to run again with a
// higher limit:
//
//	history, err := agent.Run(ctx, model, reg, history, opts)
//	if errors.Is(err, agent.ErrTruncated) {
//		// raise the model's token limit and run again from history
//	}
//
// A turn that ended with [FinishMalformedCall] and no call is answered
// with a user message that begins with [MalformedCallText], and the model
// tries again on the next turn.
//
// [AfterTurn] is that decision, and [TurnLimit] and [RejectedResult] the
// others that end a turn, for a loop that runs Run's steps elsewhere (the
// durable package runs them in a Temporal workflow) and must end its
// turns as Run does.
//
// # Approval and questions
//
// A call can wait for a person in two ways. Options.NeedsApproval is a
// predicate over the call ([Destructive] and [InScopes] are common ones):
// a call it selects waits for approval before it runs. And a handler (or
// middleware) can ask a question with tool.Ask, which ends the call with a
// *tool.InterruptError until an answer comes.
//
// Either way the run pauses. The calls of the turn before the first waiting
// one run as usual; that call and every call after it wait, in order, and
// Run returns an [*Interrupt] as its error. The Interrupt holds the history
// so far and the [Pending] calls — every call of the turn that needs
// approval, and the call that asked — and round-trips through JSON, so the
// decision can come minutes later, from another process, with a registry
// and a model built anew:
//
//	history, err := agent.Run(ctx, model, reg, history, opts)
//	if in, ok := errors.AsType[*agent.Interrupt](err); ok {
//		save(in) // show in.Pending to a person
//	}
//	...
//	history, err = agent.Resume(ctx, model, reg, in, []agent.Decision{agent.Approve(id)}, opts)
//
// [Resume] takes one [Decision] per pending call and goes on exactly where
// the run stopped. [Approve] runs the call; [Edit] runs it with other
// arguments, which the history records as the call's; [Reject] does not
// run it, and its tool message gives the model the reason; [Answer]
// answers a question: the call runs again from the start, with the same
// arguments, and this time tool.Ask returns the answer (a handler that
// asks several questions gets them in order). A decision for a call that
// does not wait is an ErrStaleDecision, edited arguments the tool refuses
// an ErrInvalidEdit that lists the issues, a missing or unfitting decision
// an ErrInvalidDecision, all as a [*DecisionError], and then nothing runs.
//
// # What Resume trusts
//
// The Interrupt's JSON is in other hands between Run and Resume, so Resume
// trusts none of it that the run did not seal. The run seals the
// Interrupt with a MAC under Options.PauseKey (a random key per process
// when nil; processes that resume each other's interrupts share one), and
// Resume refuses one that was changed in any way — arguments, tool names,
// approvals, decisions, history — with ErrInterruptAltered
// ([Interrupt.Verify] checks the same, for a program that shows the
// pending calls to a person). Each Interrupt has an ID, which Resume claims
// once in Options.Claims (a [claims.Memory] by default; a [claims.Dir]
// or [claims.SQL] is shared by processes) after the decisions check out and
// before anything runs: a second Resume of the same Interrupt, here or in
// another process, gets ErrInterruptClaimed and runs nothing. With
// Options.PauseTTL, an Interrupt past its sealed Expires is
// ErrInterruptExpired. All three are reported as a [*ResumeError].
//
// # Events
//
// [Stream] is the loop as an iterator of [Event]s, for user interfaces and
// logs: the model's output as it streams (from a [StreamingModel]), its
// response and [Usage], each call's start, progress and result, the calls
// that wait for a person, and last an EventEnd with the history, yielded
// with the run's error. Run is Stream drained. A consumer that stops
// iterating cancels the run.
//
// # Middleware
//
// A [Middleware] wraps the run as a whole, each model call and each tool
// call of a run. Package otelhands uses it to trace runs with
// OpenTelemetry.
//
// # Models
//
// Model is the one interface a provider implements: one turn in, one
// response out. A provider that can stream implements [StreamingModel] too.
// Package agenttest has a scripted Model, which streams, for tests and
// examples.
package agent
