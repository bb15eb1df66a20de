// Package durable runs hands' agent loop on Temporal, so that a run
// outlives its process: it waits days for a person's approval, across
// deploys and crashed workers. A tool call whose worker is lost is run
// again only when its tool says that is safe to do, as the section on
// calls below says.
//
// # What runs where
//
// The run is a workflow (WorkflowName), and every step that does I/O is
// an activity: each model turn is a TurnActivity, which builds the request
// as agent.Run does (agent.NewRequest) and asks the model; each tool call
// is a CallActivity, which runs the call through the registry, as
// agent.Run does (tool.Registry.Stream). The workflow itself only decides
// what comes next from what the activities returned, which Temporal
// records, with agent.Run's own steps (agent.AfterTurn, agent.TurnLimit,
// agent.RejectedResult), so that a turn ends as it would in agent.Run; a
// worker that takes over a run replays that record.
//
// A call's activity takes its ToolPolicy: the policy's Timeout, or else
// the tool's own (tool.WithTimeout) plus TimeoutMargin, is the activity's
// StartToCloseTimeout, each tool.Progress report is a heartbeat, and the
// policy's Retry retries failed calls. Invalid arguments, an unknown tool
// and a denial are non-retryable application errors (ErrTypeInvalid,
// ErrTypeDenied) whose detail is the tool message the model reads, as it
// would from agent.Run. Tools from mcpclient are
// tool.Interface values like any other, so a registry that holds them runs
// them as activities with nothing more to do: only the call (its ID, the
// tool's name, the arguments) crosses Temporal, and each worker process
// connects to the MCP server when it starts and holds its own session
// (mcpclient.Options.Reconnect keeps it). A remote tool's annotations
// select its approval (agent.Destructive) and its retries, its timeout
// bounds the activity, its progress is heartbeats, and arguments the
// server refuses (an mcpclient.ToolError with issues) are not retried.
//
// # The size of a run's history
//
// Temporal records every activity's input and result, and ends a run
// whose history passes its limit (50 MiB by default). A turn's activity
// gets only the messages its previous turn did not have (TurnInput), so
// a run's history grows by about the size of each turn's new messages:
// with its turns, not with their square. The activity finds the earlier
// messages in its worker's memory, where the run's previous turn left
// them, or asks the run for them (QueryHistory) when another worker ran
// that turn or this one has restarted since; a Query adds nothing to the
// history. A whole history still crosses Temporal as the run's input and
// result and as that Query's answer, so it must fit in one payload (2 MiB
// by default).
//
// # Calls, at most once or at least once
//
// A worker may stop half-way through a call. Temporal then learns only
// that it stopped answering — no heartbeat for the policy's
// HeartbeatTimeout, or no result within the call's StartToCloseTimeout —
// and not whether the call took effect. What follows is chosen by the
// tool's annotations (tool.Annotations; a remote tool's come from its MCP
// server), unless its ToolPolicy.Retry says otherwise:
//
//   - A tool annotated read-only or idempotent runs at least once, as far
//     as three attempts go: a failed attempt (its handler's error, its
//     timeout, a lost worker) is tried again. The tool may run more than
//     once, even after an attempt that took effect and whose result was
//     lost. The model reads the result of the attempt that succeeds, or
//     the failure of the last.
//   - Any other tool runs at most once: one attempt. When its worker is
//     lost, the call may or may not have taken effect; it is not run
//     again, and the model is told so, and to check whether it took effect
//     before calling the tool again.
//
// A ToolPolicy.Retry replaces that choice: with more than one attempt, a
// tool that is neither read-only nor idempotent may run more than once.
// Invalid arguments, an unknown tool, a denial and a question are never
// retried. The model never reads Temporal's error text: a call whose last
// attempt ended without a result of its tool's is a tool message that
// says what happened (the worker stopped reporting, or did not answer
// within the call's time limit), whether the call may have taken effect,
// and whether calling it again is safe; Temporal's error goes to the
// workflow's log. Model turns are retried by Options.ModelRetry (by
// default without limit), since asking a model changes nothing.
//
// # People
//
// A call that needs approval (Options.NeedsApproval), or whose handler
// asked a question (tool.Ask), waits for an UpdateDecide carrying an
// agent.Decision. Its validator is agent.CheckDecision, the check Resume
// makes, so a decision that does not fit — for a call that does not wait,
// of the wrong kind, with edited arguments that are not JSON or that the
// tool refuses — is refused to its sender (ErrTypeStaleDecision,
// ErrTypeInvalidDecision, ErrTypeInvalidEdit with the tool's issues) and
// never enters the workflow's history.
// QueryPending and QueryHistory read the waiting calls and the history.
// The provider state of the history's messages and calls (reasoning
// items, thinking blocks and signatures: agent.Message.State,
// agent.ToolCall.State) is JSON, which Temporal's data converter encodes
// with encoding/json: state as the adapters write it (provider.State,
// encoding/json's own form) comes back byte for byte, to the Queries and
// to the model's next turn, and any other JSON comes back with the same
// meaning, compacted and with <, > and & escaped.
//
// # MCP tasks
//
// Tasks runs the calls of an MCP server's tasks (those of the tasks
// extension, protocol version 2026-07-28) as Temporal activities, so that
// a task outlives the replica that made it. Each replica's
// mcpserver.Server has the Tasks as its mcpserver.TaskOptions.Runner,
// shares a task store and a state key with the others, and runs a worker
// of one task queue, on which Tasks.Register puts TaskWorkflowName and
// TaskActivity:
//
//	tasks := durable.NewTasks(c, reg, nil)
//	srv := mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: mcpserver.TaskOptions{Store: store, Runner: tasks}})
//	w := worker.New(c, durable.DefaultTaskQueue, worker.Options{})
//	tasks.Register(w, srv)
//
// A call that becomes a task starts a workflow (TaskWorkflowID of the
// task; a second start is refused) whose one activity runs the call on
// whichever replica's worker takes it (mcpserver.Server.RunTask): it
// takes the task's lease over, renews it while the call runs, and writes
// the call's progress and outcome to the store, where tasks/get on any
// replica reads them. tasks/cancel on any replica cancels the workflow,
// and the call stops at the activity's next heartbeat. Such a call cannot
// ask its client (Elicit, Sample): the worker has no connection to it,
// and the call is told so, in words the model reads.
//
// The workflow's input holds the call as plain JSON (the task, its
// owner, the tool, the arguments, the caller's verified claims), readable
// in its history, and sealed by the replica that made it
// (mcpserver.TaskCall.Seal, under the state key): a worker's RunTask runs
// only a call so sealed, unchanged, so whoever can start workflows on the
// task queue, or edit their history, cannot run a tool of their choosing
// as anyone. Such a call's activity fails with ErrTypeTaskCallAltered,
// not retried, and nothing runs. A sealed call started again while its
// task is working runs again, as a retry does.
//
// When the worker running a call is lost (killed, its machine gone),
// Temporal learns of it when its heartbeats stop
// (TaskOptions.HeartbeatTimeout, a third of the lease by default), and
// runs the call again on another worker, which takes the lease over
// before it lapses, only when the tool's annotations say that is safe:
// a tool annotated
// read-only or idempotent runs at least once, up to three attempts, and
// the task completes with the result of the attempt that ends; any other
// tool runs at most once, and its task fails as it would without
// Temporal, when its lease lapses, with taskstore.LapsedMessage. The
// heartbeat timeout, and Temporal's wait of a second before a retry, must
// fall well within the lease (mcpserver.TaskOptions.Lease) for the retry
// to take the task over.
//
// # Tracing
//
// A run is traced with OpenTelemetry by two settings, both given the
// program's TracerProvider. Tracing returns Temporal's OpenTelemetry
// interceptor, to put in the client.Options.Interceptors of the client
// that starts runs and of the client the workers are made from (a worker
// uses its client's interceptors): it carries the W3C trace context in
// Temporal's headers from the caller's span to the workflow and from the
// workflow to each activity, and makes a span of each hop. The Agent's
// Options.TracerProvider traces what the activities do, with otelhands:
// each turn's model call is a chat span and each tool call an
// execute_tool span, children of the activity's span. So a run started
// in a span, as by a tool of an agent.Run traced by otelhands, is one
// trace:
//
//	execute_tool delegate                   the caller's span
//	└─ StartWorkflow:hands.Run              the client's
//	   └─ RunWorkflow:hands.Run             the worker's
//	      ├─ StartActivity:hands.TurnFrom
//	      │  └─ RunActivity:hands.TurnFrom
//	      │     └─ chat
//	      └─ StartActivity:hands.Call
//	         └─ RunActivity:hands.Call
//	            └─ execute_tool read        and on, to an MCP server the
//	                                        tool calls (SEP-414)
//
// Without the interceptor each turn and each call is a trace of its own;
// without Options.TracerProvider the activities' spans are Temporal's
// alone. Neither is set by default. A registry that traces its own calls
// (otelhands.Tools) needs no Options.TracerProvider, and with it would
// give each call two spans.
//
// # Example
//
// The program in examples/approval runs against a local Temporal server: a
// run whose destructive tool waits for approval, in one process or across
// a worker that is killed while it waits; its documentation says how to
// build and start a server for it, and for your own workers' tests: the
// module's internal/devserver, in memory on 127.0.0.1:7233 with the
// namespace "default", which stays up in the background until killed.
//
// # Determinism
//
// The workflow reads only its input, the activities' results, the
// decisions and the Agent's Options, of which every worker of a task queue
// must share MaxTurns; the policies only set the options of activities not
// yet scheduled, which replay does not compare, and the approval policy
// runs inside TurnActivity and its answer is recorded. The words a model
// reads of a call that ended without its tool's result follow the tool's
// annotations and policy as the worker that decides sees them, as the
// retries do. The tests replay recorded histories (testdata) through a
// worker.WorkflowReplayer, on which Register puts the workflow, so a
// change that would break runs under way fails them. A change made on
// purpose goes through workflow.GetVersion: the runs started before turns
// sent only their new messages go on sending the whole history, to the
// activity they started with, which Register still registers.
package durable
