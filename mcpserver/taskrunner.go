package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/taskstore"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A TaskRunner runs the calls of tasks away from the server that made
// them: on the workers of a workflow engine, say, where a call outlives
// the process that started it (package durable has one on Temporal). Set
// as TaskOptions.Runner, it takes the calls of the tasks extension's
// tasks (protocol version 2026-07-28): the server creates each task in
// its store, as it does to run the call itself, and hands the call to
// Start. Whatever runs the call then runs it on a Server of the same
// registry, task store and StateKey, with Server.RunTask, which holds the
// task's lease while the call runs and writes its outcome to the store,
// where every replica reads it.
//
// The runner need not be trusted with authority: the call comes sealed
// (TaskCall.Seal), and RunTask runs only a call that a server of its
// StateKey sealed, as it was sealed. Who can add a call where the
// runner's workers find it (start a workflow on its task queue, edit its
// history) can make a worker run again a call it has seen, while its
// task is working, but not a call of another tool, with other arguments
// or as another caller.
//
// A TaskRunner's methods are safe for concurrent use.
type TaskRunner interface {
	// Start hands over the call of a task just created in the store,
	// working, its lease running for call.Lease. It returns once the call
	// is sure to run (recorded where the runner's workers find it), or an
	// error, with which the server fails the task and answers the
	// tools/call with an internal error. It must not wait for the call.
	Start(ctx context.Context, call TaskCall) error
	// Cancel asks the runner to stop the call of a task that tasks/cancel
	// has cancelled in the store; it is called for every task cancelled
	// through a server whose call does not run on that server, and
	// reports nil for a task it does not run. The call stops anyway
	// within a third of the lease, when Server.RunTask finds its task
	// cancelled; Cancel makes it sooner.
	Cancel(ctx context.Context, id string) error
}

// A TaskCall is the call of a task that a TaskRunner runs: plain data,
// which crosses processes as JSON. Its fields stay readable, for the
// runner and its operators, but are not to be changed: Seal binds them
// to the server that made the call, and Server.RunTask refuses a call
// whose seal does not match them (ErrTaskCallAltered). A runner carries
// the call as any faithful JSON encoder writes it (the seal is of what
// the fields mean; see Seal).
type TaskCall struct {
	// ID is the task's ID in the store (taskstore.Task.ID), which is not
	// the ID its client holds.
	ID string `json:"id"`
	// Owner is the task's owner (taskstore.Task.Owner).
	Owner string `json:"owner"`
	// Tool is the name of the tool called.
	Tool string `json:"tool"`
	// Arguments are the call's arguments, as the client sent them.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Token is what the server verified of the caller's bearer token
	// (HTTPOptions.Verify): its user, scopes, expiry and extra claims,
	// not the token itself. Nil when the request carried none.
	Token *auth.TokenInfo `json:"token,omitempty"`
	// TTL is how long the task is kept from its creation; the store
	// forgets it then, and its call is stopped.
	TTL time.Duration `json:"ttl"`
	// Lease is how long the lease on the task lasts (TaskOptions.Lease):
	// a call not taken up by a RunTask within it, or whose RunTask stops
	// renewing it for that long, fails as the lapse of a lease does.
	Lease time.Duration `json:"lease"`
	// Seal is a MAC of every field above, under the state key
	// (Options.StateKey) of the server that made the call: an
	// AES-256-GCM tag of no plaintext, bound to its purpose (a task
	// call), so that what the key seals for other purposes (request
	// states, task handles) is never a call's seal. It covers what the
	// fields mean rather than their bytes, so that a copy through JSON
	// keeps it: the arguments as JSON (without whitespace, strings in
	// any escaping, numbers as written, to the last digit, members in
	// order), the token's expiry as an instant, its extra claims as
	// they read back from JSON (numbers as float64s), and the rest byte
	// for byte. RunTask checks it before anything else.
	Seal string `json:"seal"`
}

// handsOver reports whether the call of an extension's task goes to
// TaskOptions.Runner: there is one, and the call carries no answers to an
// earlier round's requests (a request state), which a worker could not
// take over.
func (r *taskRunner) handsOver(call *mcp.CallToolRequest) bool {
	return r.opts.Runner != nil && call.Params.RequestState == "" && len(call.Params.InputResponses) == 0
}

// handOver makes a task of owner for the call and hands the call to
// TaskOptions.Runner, and answers with the task.
func (s *Server) handOver(ctx context.Context, call *mcp.CallToolRequest, owner string, ttl time.Duration) (mcp.Result, error) {
	r := s.tasks
	r.mu.Lock()
	stopping := r.stopping
	r.mu.Unlock()
	if stopping {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the server is stopping; call the tool again"}
	}
	id := randomID()
	created, err := r.store.Create(ctx, taskstore.New{ID: id, Owner: owner, Tool: call.Params.Name, TTL: ttl, Lease: r.opts.Lease}, r.lim)
	if err != nil {
		return nil, storeError(err)
	}
	tc := TaskCall{ID: id, Owner: owner, Tool: call.Params.Name, Arguments: call.Params.Arguments, TTL: ttl, Lease: r.opts.Lease}
	if extra := call.GetExtra(); extra != nil {
		tc.Token = extra.TokenInfo
	}
	err = r.sealTaskCall(&tc)
	if err == nil {
		err = r.opts.Runner.Start(ctx, tc)
	}
	if err != nil {
		s.logger.ErrorContext(ctx, "mcpserver: the task runner did not start a task's call", "tool", call.Params.Name, "err", err)
		werr := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server could not start the task's call; try again later"}
		data, _ := json.Marshal(werr)
		r.store.Finish(context.WithoutCancel(ctx), id, taskstore.Outcome{Status: taskstore.Failed, Message: werr.Message, Error: data}, taskstore.Limits{})
		return nil, werr
	}
	return r.created(&task{handle: r.sealHandle(id, owner), ext: true}, created), nil
}

// RunTask runs the call of a task that a TaskRunner took
// (TaskOptions.Runner) on this server, through its registry, as the
// server that made the task would have: it is what the runner's worker
// calls, on a Server of the same registry, task store and StateKey as
// that one. It takes over the task's lease first and renews it at a third
// of this server's TaskOptions.Lease while the call runs, writes the
// call's progress as the task's status message, stops the call once the
// task has ended otherwise (cancelled, expired) and writes its outcome,
// as the server would.
//
// The call runs with the caller's verified token (TaskCall.Token) as
// CallerFrom's Token, and with no session nor HTTP headers, so that an
// enabled predicate that reads them finds none; RequestFrom reports a
// request without a session. A task so run cannot ask its client (Elicit,
// ElicitRequest and Sample report ErrUnsupported, saying why; tool.Ask
// ends the call with its question): the worker has no connection to the
// client.
//
// RunTask returns nil once it has written the call's outcome. It returns
// an error that matches taskstore.ErrEnded, taskstore.ErrLeaseLost or
// taskstore.ErrTaskNotFound when the task ended otherwise, before or
// while the call ran (cancelled, its lease lapsed, expired): there is
// nothing left to do. It returns any other error — ctx ended before the
// call did (its worker stopping), or the store failed — without writing
// an outcome: the task is still working, its lease running out, and the
// runner may run the call again in another RunTask before it does, which
// takes the lease over. A call may so run more than once.
//
// RunTask runs only a call as a server of its StateKey sealed it
// (TaskCall.Seal), for the task of that ID in the store, of the call's
// owner and tool: it returns an error that matches ErrTaskCallAltered,
// and runs nothing, for any other — forged, changed in any field, sealed
// under another key, or naming a task of another owner or tool — having
// made no change to the store (the seal is checked before the store is
// read). The runner need not retry it: it will never run.
func (s *Server) RunTask(ctx context.Context, call TaskCall) error {
	r := s.tasks
	if err := r.openTaskCall(&call); err != nil {
		return err
	}
	// The seal binds the call to the task its server made; the store says
	// whose task that is, and of which tool.
	stored, err := r.store.Get(ctx, call.ID)
	if err != nil {
		return fmt.Errorf("mcpserver: read the task of %s: %w", call.Tool, err)
	}
	if stored.Owner != call.Owner || stored.Tool != call.Tool {
		return fmt.Errorf("%w: the store's task %q is %q's call of %q, not %q's of %q", ErrTaskCallAltered, call.ID, stored.Owner, stored.Tool, call.Owner, call.Tool)
	}
	if _, err := r.store.Update(ctx, call.ID, taskstore.Change{Lease: r.opts.Lease}); err != nil {
		return fmt.Errorf("mcpserver: take the lease of the task of %s: %w", call.Tool, err)
	}
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan struct{})
	t := &task{r: r, id: call.ID, handle: r.sealHandle(call.ID, call.Owner), ext: true, away: true, cancel: cancel,
		ended: ended, end: sync.OnceFunc(func() { close(ended) }), wake: make(chan struct{}, 1)}
	done := make(chan struct{})
	defer close(done)
	go r.write(t, done)
	req := &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Name: call.Tool, Arguments: call.Arguments, Meta: mcp.Meta{mcp.MetaKeyProtocolVersion: mcptask.ExtensionFrom}},
		Extra:  &mcp.RequestExtra{TokenInfo: call.Token},
	}
	run = context.WithValue(run, taskKey{}, t)
	run = context.WithValue(run, callerKey{}, Caller{Token: call.Token})
	res, err := s.handler()(run, req)
	select {
	case <-ended:
		t.mu.Lock()
		lost := t.lost
		t.mu.Unlock()
		return fmt.Errorf("mcpserver: the task of %s ended while its call ran: %w", call.Tool, lost)
	default:
	}
	if ctx.Err() != nil {
		return fmt.Errorf("mcpserver: the call of %s stopped before it ended: %w", call.Tool, context.Cause(ctx))
	}
	if err := r.finish(t, call.Tool, res, err); err != nil {
		return fmt.Errorf("mcpserver: write the outcome of the task of %s: %w", call.Tool, err)
	}
	return nil
}

// errAway is the error of a request to the client from a task that runs
// away from the client's connection (RunTask).
func errAway(capability string) error {
	return fmt.Errorf("%w: %s, in a task whose call runs on a worker that has no connection to the client; "+
		"such a call cannot ask the client, so give the tool everything it needs in its arguments", ErrUnsupported, capability)
}

// taskEnded reports whether err is the store's word that a task ended
// otherwise than by its call's outcome.
func taskEnded(err error) bool {
	return errors.Is(err, taskstore.ErrEnded) || errors.Is(err, taskstore.ErrTaskNotFound) || errors.Is(err, taskstore.ErrLeaseLost)
}
