// Package taskstore holds the state of MCP tasks where every replica of a
// server can read it, so that any replica answers for a task: the one
// that runs the task's call writes its progress, its requests to the
// client and its outcome; any other answers tasks/get, takes the client's
// answers (tasks/update) and its cancellation (tasks/cancel).
//
// A Store is the interface a backend implements; Memory, the default of
// mcpserver, keeps tasks in the process, for one replica or for replicas
// that share the object (tests). A backend for a shared database (Redis,
// SQL) implements Store against the contract written on each method below
// and runs the conformance kit, taskstore/taskstoretest, in its tests.
//
// # The model
//
// A Task is a record under a random ID. Its owner is an opaque string the
// server derives from its caller; the store keeps it and bounds the tasks
// of each non-empty owner, and the server compares it on every lookup.
// A task is working, or input_required while its runner waits for answers
// to requests it made (Task.Requests), until it ends: completed (with the
// call's result), failed (with a JSON-RPC error) or cancelled. A task that
// ended never changes again.
//
// # Time
//
// A store reads time from one clock, its own (Memory's MemoryOptions.Now),
// and takes durations, never instants, from its callers: replicas whose
// clocks differ agree on a task's expiry and lease. A task is removed at
// Task.Expires, its creation plus the TTL asked; from then on every method
// reports ErrTaskNotFound.
//
// # Leases
//
// The replica that runs a task's call holds a lease on it, taken by
// Create and renewed by Update (each call sets the lease to end a duration
// from now). A runner renews well before the lease ends (mcpserver renews
// at a third of it). When a lease has lapsed on a task that has not ended,
// its runner is taken to have stopped: every reader sees the task failed,
// with LapsedMessage and LapsedError, and the runner's later Update and
// Finish report ErrLeaseLost. Nobody takes a lapsed task over: its call's
// effects are unknown, and the model that started it is told to call the
// tool again. A task whose lease still runs may change hands: the store
// does not know who renews a lease, and a runner elsewhere (a workflow
// engine's worker: mcpserver's TaskOptions.Runner) takes a task over by
// renewing its lease in time.
//
// # Bounds
//
// Create refuses a task past Limits.MaxTasks over all owners or
// Limits.MaxOwnerTasks for its owner; Finish refuses a result over
// Limits.MaxResultBytes, or one that would take the bytes of results held
// over all tasks past Limits.MaxHeldResultBytes. Both report a
// *LimitError. A task counts against the bounds, and its result's bytes
// are held, until it expires, whatever its status: cancelling tasks in a
// loop does not free their slots.
package taskstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The statuses of a task, as the tasks extension names them. Completed,
// Failed and Cancelled are terminal.
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// Terminal reports whether a task in status s has ended.
func Terminal(s string) bool { return s == Completed || s == Failed || s == Cancelled }

// LapsedMessage is the status message of a task whose runner's lease
// lapsed before the task ended. It is written for the model that called
// the tool.
const LapsedMessage = "the server running this task stopped before it finished; call the tool again"

// LapsedError is the JSON-RPC error of a task whose runner's lease lapsed:
// an internal error (-32603) with LapsedMessage.
var LapsedError = json.RawMessage(`{"code":-32603,"message":"the server running this task stopped before it finished; call the tool again"}`)

// Errors of the stores. A backend returns them, or errors that wrap them,
// so that errors.Is tells them apart.
var (
	// ErrTaskNotFound reports a task the store does not hold: never created,
	// or expired.
	ErrTaskNotFound = errors.New("taskstore: task not found")
	// ErrExists reports a Create with the ID of a task the store holds.
	ErrExists = errors.New("taskstore: a task with this ID exists")
	// ErrEnded reports a change to a task that has ended (completed,
	// failed, cancelled, or its lease lapsed).
	ErrEnded = errors.New("taskstore: the task has ended")
	// ErrLeaseLost reports an Update or Finish of a task whose lease
	// lapsed: readers see it failed, and its runner stops.
	ErrLeaseLost = errors.New("taskstore: the task's lease lapsed; its runner was taken to have stopped")
	// ErrLimit is wrapped by every *LimitError.
	ErrLimit = errors.New("taskstore: limit reached")
)

// The limits a *LimitError names.
const (
	LimitTasks       = "tasks"             // Limits.MaxTasks
	LimitOwnerTasks  = "owner tasks"       // Limits.MaxOwnerTasks
	LimitResultBytes = "result bytes"      // Limits.MaxResultBytes
	LimitHeldBytes   = "held result bytes" // Limits.MaxHeldResultBytes
)

// A LimitError reports a Create or a Finish refused by a bound. It wraps
// ErrLimit.
type LimitError struct {
	Limit string // LimitTasks, LimitOwnerTasks, LimitResultBytes or LimitHeldBytes
	Max   int64  // the bound
	Size  int64  // for LimitResultBytes and LimitHeldBytes, the result's bytes
	Err   error  // ErrLimit
}

// Error says which bound refused what.
func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitTasks:
		return fmt.Sprintf("taskstore: the store holds %d tasks, its limit; a task is held until its ttl has passed", e.Max)
	case LimitOwnerTasks:
		return fmt.Sprintf("taskstore: this caller holds %d tasks, its limit; a task, cancelled or not, is held until its ttl has passed", e.Max)
	case LimitResultBytes:
		return fmt.Sprintf("taskstore: the result is %d bytes, over the limit of %d bytes a task holds", e.Size, e.Max)
	default:
		return fmt.Sprintf("taskstore: the result is %d bytes, more than the store can hold now (its tasks hold %d bytes of results at most)", e.Size, e.Max)
	}
}

// Unwrap returns Err.
func (e *LimitError) Unwrap() error { return e.Err }

// Limits bound what a store holds. The server passes its own on every
// call that may exceed them, so that a backend holds no configuration of
// its own and replicas configured alike bound a shared store alike. A
// zero or negative field is no bound.
type Limits struct {
	// MaxTasks bounds the tasks held over all owners.
	MaxTasks int
	// MaxOwnerTasks bounds the tasks held by one owner other than "".
	// The callers a server cannot tell apart share owner "", which
	// MaxTasks alone bounds: a share for all of them, one of them could
	// fill.
	MaxOwnerTasks int
	// MaxResultBytes bounds the bytes of one task's result or error.
	MaxResultBytes int64
	// MaxHeldResultBytes bounds the bytes of results and errors held over
	// all tasks until they expire.
	MaxHeldResultBytes int64
}

// A Task is the state of one task, as a store returns it: a copy, which
// the caller may keep and change.
type Task struct {
	ID    string // random, chosen by the server; never shown to a client as is
	Owner string // who may see the task, as the server names its callers
	// Tool is the tool whose call the task runs, for messages.
	Tool string

	// Status is Working, InputRequired (while Requests is not empty) or a
	// terminal status.
	Status string
	// Message is the status message: the call's progress, or why it ended.
	Message string

	Created time.Time // by the store's clock
	Updated time.Time // the last change of Status, Message, Requests or the outcome
	Expires time.Time // Created plus the TTL asked; the task is removed then
	Lease   time.Time // when the runner's lease ends, unless renewed

	// Requests are the runner's requests to the client that wait for an
	// answer (the tasks extension's inputRequests), each a JSON object
	// ({"method": ..., "params": ...}), by a key unique over the task's
	// lifetime.
	Requests map[string]json.RawMessage
	// Responses are the client's answers to Requests (inputResponses) that
	// the runner has not yet taken, by the key of their request.
	Responses map[string]json.RawMessage

	// Result is the call's result (a CallToolResult, as JSON) of a
	// completed task.
	Result json.RawMessage
	// Error is the JSON-RPC error object of a failed task.
	Error json.RawMessage
}

// TTL returns how long the task is kept from its creation.
func (t *Task) TTL() time.Duration { return t.Expires.Sub(t.Created) }

// A New is what Create makes a task of.
type New struct {
	ID      string        // unique; the store refuses one it holds (ErrExists)
	Owner   string        // see Task.Owner
	Tool    string        // see Task.Tool
	Message string        // the first status message; may be empty
	TTL     time.Duration // how long the task is kept; positive
	Lease   time.Duration // how long the runner's first lease lasts; positive
}

// A Change is what the runner of a task writes to it with Update.
type Change struct {
	// Message, if not nil, replaces the status message.
	Message *string
	// Ask adds requests to Task.Requests, by keys the task has never used.
	Ask map[string]json.RawMessage
	// Take removes the responses of these keys from Task.Responses: the
	// runner has taken them.
	Take []string
	// Drop removes the requests of these keys from Task.Requests: the
	// runner no longer waits for them (answered another way, or given
	// up). An answer that comes later for one of them is ignored.
	Drop []string
	// Lease, if positive, renews the lease to end this long from now.
	Lease time.Duration
}

// An Outcome is how a task's call ended, as its runner gives it to
// Finish.
type Outcome struct {
	// Status is Completed or Failed.
	Status string
	// Message is the status message the task ends with; may be empty.
	Message string
	// Result is the call's result, for Completed.
	Result json.RawMessage
	// Error is the JSON-RPC error object, for Failed.
	Error json.RawMessage
}

// A Store holds tasks so that every replica sharing it can answer for
// them. Each method is atomic: it reads and changes one task (or, for
// Create, the counts of tasks) as one step, as if the calls to the store
// from all replicas were made one at a time. Each method returns the
// ErrTaskNotFound of a task past its expiry, even one a backend has not
// removed yet. Methods that return a *Task return a copy. Methods are
// safe for concurrent use. A Store's errors other than those of this
// package (a lost connection) are returned as they are, and the server
// reports them as internal errors.
type Store interface {
	// Create adds a task in status Working with no requests, created now,
	// expiring n.TTL from now, its lease ending n.Lease from now, and
	// returns it. Atomically with adding it, Create counts the tasks held
	// (not expired, whatever their status) and refuses the task with a
	// *LimitError when they are lim.MaxTasks, or when those of n.Owner,
	// if not "", are lim.MaxOwnerTasks. It returns ErrExists when a task
	// with n.ID is held. Once Create has returned, every replica's Get
	// finds the task (the tasks extension's Task Creation: a task is
	// durably created before the client learns of it).
	Create(ctx context.Context, n New, lim Limits) (*Task, error)

	// Get returns the task with the ID. A task that has not ended and
	// whose lease has lapsed is returned as failed, with LapsedMessage,
	// LapsedError, no requests nor responses, and Updated at the lease's
	// end; the store may also write it so.
	Get(ctx context.Context, id string) (*Task, error)

	// Update applies c to a task that has not ended, and returns it as it
	// is after: the runner's progress, its requests, the answers it took
	// and its lease. The status becomes InputRequired when Requests is
	// not empty, and Working when it is; Updated is set to now when the
	// status, the message or the requests change. It returns ErrEnded for
	// a task that has ended (the runner stops its call), and ErrLeaseLost
	// for one whose lease has lapsed (checked before the lease is
	// renewed: a lapsed lease is not renewed).
	Update(ctx context.Context, id string, c Change) (*Task, error)

	// Answer gives the client's answers to a task's requests: each answer
	// whose key is in Task.Requests moves the request out of Requests and
	// the answer into Responses; an answer of any other key (never asked,
	// answered before) is ignored, as the tasks extension's Task Update
	// Requests asks. The status follows Requests as in Update. It returns
	// the task as it is after, and ErrEnded for a task that has ended.
	Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*Task, error)

	// Cancel moves a task that has not ended to Cancelled, with the
	// message, and returns it; it returns ErrEnded for a task that has
	// ended (a lapsed lease included). The runner learns of it from its
	// next Update (ErrEnded), and stops the call.
	Cancel(ctx context.Context, id, message string) (*Task, error)

	// Finish ends a task with the outcome of its call, and returns it.
	// It returns ErrEnded for a task that has ended (cancelled while its
	// call ran), ErrLeaseLost for one whose lease has lapsed, and a
	// *LimitError, leaving the task as it was, when the outcome's Result
	// or Error is over lim.MaxResultBytes, or when it would take the
	// bytes of results and errors held over all tasks not expired past
	// lim.MaxHeldResultBytes (checked and counted in the same step). A
	// task's bytes are held until it expires.
	Finish(ctx context.Context, id string, o Outcome, lim Limits) (*Task, error)

	// List returns the tasks of an owner not expired, oldest first (by
	// Created, then ID), as Get returns each. An owner holds at most
	// Limits.MaxOwnerTasks, so the list is bounded when the owner is not
	// "".
	List(ctx context.Context, owner string) ([]*Task, error)
}
