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
// result.
//
// # History
//
// A History is a plain slice of Messages that round-trips through JSON, so
// a conversation can be saved and resumed with another call to Run.
//
// # Models
//
// Model is the one interface a provider implements: one turn in, one
// response out. Package agenttest has a scripted Model for tests and
// examples.
package agent
