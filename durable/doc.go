// Package durable runs hands' agent loop on Temporal, so that a run
// outlives its process: it waits days for a person's approval, across
// deploys and crashed workers, and each of its steps runs once to
// completion or is retried by policy.
//
// # What runs where
//
// The run is a workflow (WorkflowName), and every step that does I/O is
// an activity: each model turn is a TurnActivity, which builds the request
// as agent.Run does (agent.NewRequest) and asks the model; each tool call
// is a CallActivity, which runs the call through the registry, as
// agent.Run does (tool.Registry.Stream). The workflow itself only decides
// what comes next from what the activities returned, which Temporal
// records; a worker that takes over a run replays that record.
//
// A call's activity takes its ToolPolicy: the policy's Timeout, or else
// the tool's own (tool.WithTimeout) plus TimeoutMargin, is the activity's
// StartToCloseTimeout, each tool.Progress report is a heartbeat, and the
// policy's Retry retries failed calls. Invalid arguments, an unknown tool
// and a denial are non-retryable application errors (ErrTypeInvalid,
// ErrTypeDenied) whose detail is the tool message the model reads, as it
// would from agent.Run. Tools from mcpclient are
// tool.Interface values like any other, so a registry that holds them runs
// them as activities with nothing more to do: the worker's process holds
// the MCP session.
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
// QueryPending and QueryHistory read the waiting calls and the history;
// the history's provider state (reasoning items, signatures) is JSON and
// survives as it is.
//
// # Example
//
// The program in examples/approval runs against a local Temporal server: a
// run whose destructive tool waits for approval, in one process or across
// a worker that is killed while it waits; its documentation says how to
// start the server and run it.
//
// # Determinism
//
// The workflow reads only its input, the activities' results, the
// decisions and the Agent's Options, which every worker of a task queue
// must share. The approval policy runs inside TurnActivity and its answer
// is recorded. The tests replay recorded histories (testdata) through
// worker.NewWorkflowReplayer, so a change that would break runs under way
// fails them.
package durable
