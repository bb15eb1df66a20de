package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of TaskOptions.
const (
	// DefaultMaxSessionTasks is how many tasks one session may hold.
	DefaultMaxSessionTasks = 32
	// DefaultMaxTasks is how many tasks the server holds, over all
	// sessions.
	DefaultMaxTasks = 1024
	// DefaultTaskTTL is how long a task is kept when its client asks for
	// no time.
	DefaultTaskTTL = 10 * time.Minute
	// DefaultMaxTaskTTL is the longest a task is kept, whatever its client
	// asks.
	DefaultMaxTaskTTL = time.Hour
	// DefaultTaskPollInterval is the time between two tasks/get that the
	// server suggests.
	DefaultTaskPollInterval = time.Second
	// DefaultMaxTaskResultBytes is the largest result a task holds, as
	// JSON.
	DefaultMaxTaskResultBytes = 4 << 20
	// DefaultMaxHeldTaskResultBytes is how many bytes of results, as
	// JSON, the server holds over all tasks.
	DefaultMaxHeldTaskResultBytes = 64 << 20
	// DefaultTaskResultWait is how long the server waits for a call that
	// may run as a task to end before it makes a task of it.
	DefaultTaskResultWait = 250 * time.Millisecond
)

// TaskOptions bound the tasks a Server runs for the tools that may run as
// tasks (tool.WithTaskSupport). A zero field selects its default.
type TaskOptions struct {
	// MaxSessionTasks is how many tasks one caller may hold at once,
	// running or finished and not yet expired: a session before protocol
	// version 2026-07-28, a verified user or a session after (the callers
	// a stateless server cannot tell apart share MaxTasks). A call that
	// would create a task beyond it is refused. Zero selects
	// DefaultMaxSessionTasks.
	MaxSessionTasks int
	// MaxTasks is how many tasks the store holds over all callers, and
	// how many calls of tasks this server runs at once. Zero selects
	// DefaultMaxTasks.
	MaxTasks int
	// TTL is how long a task is kept from its creation when the client
	// asks for no time. Zero selects DefaultTaskTTL.
	TTL time.Duration
	// MaxTTL is the longest a task is kept from its creation, whatever
	// the client asks. A task still running then is cancelled. Zero
	// selects DefaultMaxTaskTTL.
	MaxTTL time.Duration
	// PollInterval is the time between two tasks/get that the server
	// suggests. Zero selects DefaultTaskPollInterval.
	PollInterval time.Duration
	// MaxResultBytes is the largest result, as JSON, that a task holds
	// for tasks/result; a larger one is replaced by an error result that
	// says so. Zero selects DefaultMaxTaskResultBytes.
	MaxResultBytes int
	// Store holds the tasks' state. Servers that share one (and one
	// Options.StateKey, which seals the task IDs clients are given) answer
	// for each other's tasks: a task created through one is polled,
	// answered and cancelled through any. Nil selects a store in this
	// server's memory (taskstore.NewMemory).
	Store taskstore.Store
	// Lease is how long the lease of a task's runner lasts (see package
	// taskstore): the server renews it at a third of it, and the tasks of
	// a server that stopped without Shutdown (killed, or its machine
	// lost) read as failed that long after. Zero selects
	// DefaultTaskLease.
	Lease time.Duration
	// MaxHeldResultBytes is how many bytes of results, as JSON, the server
	// holds over all its tasks until they expire; a result that would take
	// it past this is replaced by an error result that says so. Without
	// it, sessions at their caps could have the server hold MaxTasks
	// times MaxResultBytes. Zero selects DefaultMaxHeldTaskResultBytes.
	MaxHeldResultBytes int
	// ResultWait is how long, from protocol version 2026-07-28, the server
	// waits for a call of a tool that allows or requires a task
	// (tool.WithTaskSupport), from a client that declared the tasks
	// extension, before it makes a task of the call: a call of a tool that
	// allows one and ends within it is answered with its result, as a
	// plain call is, and one that goes on becomes a task, the call
	// carrying on as the task's. A call of a tool that requires a task
	// and ends within it becomes a task then, ended already. A call that
	// asks its client (Elicit, Sample, tool.Ask) before it is a task asks
	// in its result, as a plain call does, and runs again with the
	// answer: the extension's multi round-trip requests are resolved
	// before any task is made. Once a task, or once its handler made it
	// one (BecomeTask), it asks through the task and runs once. A call for
	// which no task can be made (the bounds below, a store that fails) is
	// answered plainly, for a tool that allows a task, and fails, for one
	// that requires it. Until it becomes a task, a call counts against
	// none of the bounds on tasks. The tasks of SEP-1686 (before
	// 2026-07-28), which the client asks for, are made at once. Zero
	// selects DefaultTaskResultWait; a negative value makes a task of each
	// call at once, which then asks through it.
	ResultWait time.Duration
	// Runner, if not nil, runs the calls of the tasks extension's tasks
	// (protocol version 2026-07-28) in place of this server: each such
	// task is created in Store and its call handed to Runner.Start, and a
	// worker of the runner runs it (Server.RunTask), so that the call may
	// outlive this server. Such a call becomes a task at once, whatever
	// ResultWait, since its result is not this server's to wait for; it
	// does not count against MaxTasks' bound on the calls this server
	// runs (Store still bounds the tasks), Shutdown leaves it running,
	// and it cannot ask its client (see RunTask). The calls of SEP-1686's
	// tasks (before 2026-07-28), which are bound to a session of this
	// server, and those that carry answers to an earlier round's requests
	// run here as without a Runner. Nil runs every task's call here.
	Runner TaskRunner
}

// DefaultTaskLease is how long the lease of a task's runner lasts when
// TaskOptions.Lease is zero: the replica that runs a task renews it at a
// third of that, and when a replica stops without Server.Shutdown, its
// tasks read as failed that long after its last renewal.
const DefaultTaskLease = 30 * time.Second

// A taskRunner runs tasks' calls and answers for tasks, with their state
// in a taskstore.Store that the servers of other replicas may share.
type taskRunner struct {
	opts  TaskOptions
	store taskstore.Store
	lim   taskstore.Limits
	seal  cipher.AEAD // seals task handles; the request states' key

	mu       sync.Mutex
	local    map[string]*task              // by store ID: the tasks this server runs
	sessions map[*mcp.ServerSession]string // the owner names of sessions (SEP-1686 tasks)
	running  int                           // calls of tasks under way here, cancelled or not
	stopping bool                          // Shutdown has begun: no new task
	idle     chan struct{}                 // closed when local empties, while Shutdown waits
}

// A task is one task whose call this server runs.
type task struct {
	r      *taskRunner
	id     string // the store's
	handle string // the client's: sealed, bound to the owner
	ss     *mcp.ServerSession
	ext    bool // the extension's (2026-07-28), not SEP-1686's
	cancel context.CancelFunc
	ended  chan struct{} // closed once the task ended, as far as this server knows
	end    func()        // closes ended, once
	wake   chan struct{} // a change to write to the store, or answers to look for
	away   bool          // run by RunTask for a TaskRunner, away from the client's connection
	halted atomic.Bool   // cancelled by Shutdown: unless it succeeded, its outcome is the lapse's

	mu      sync.Mutex
	lost    error                           // the store's word that the task ended otherwise, once write has seen it
	message *string                         // progress not yet written
	asked   int                             // request keys used
	waiters map[string]chan json.RawMessage // by key: requests waiting for tasks/update
}

func newTaskRunner(opts TaskOptions, seal cipher.AEAD) *taskRunner {
	opts.MaxSessionTasks = cmp.Or(opts.MaxSessionTasks, DefaultMaxSessionTasks)
	opts.MaxTasks = cmp.Or(opts.MaxTasks, DefaultMaxTasks)
	opts.TTL = cmp.Or(opts.TTL, DefaultTaskTTL)
	opts.MaxTTL = cmp.Or(opts.MaxTTL, DefaultMaxTaskTTL)
	opts.PollInterval = cmp.Or(opts.PollInterval, DefaultTaskPollInterval)
	opts.MaxResultBytes = cmp.Or(opts.MaxResultBytes, DefaultMaxTaskResultBytes)
	opts.MaxHeldResultBytes = cmp.Or(opts.MaxHeldResultBytes, DefaultMaxHeldTaskResultBytes)
	opts.Lease = cmp.Or(opts.Lease, DefaultTaskLease)
	opts.ResultWait = cmp.Or(opts.ResultWait, DefaultTaskResultWait)
	store := opts.Store
	if store == nil {
		store = taskstore.NewMemory(nil)
	}
	return &taskRunner{
		opts: opts, store: store, seal: seal,
		lim: taskstore.Limits{
			MaxTasks: opts.MaxTasks, MaxOwnerTasks: opts.MaxSessionTasks,
			MaxResultBytes: int64(opts.MaxResultBytes), MaxHeldResultBytes: int64(opts.MaxHeldResultBytes),
		},
		local: map[string]*task{}, sessions: map[*mcp.ServerSession]string{},
	}
}

// errTaskNotFound is the answer for a task the caller may not see: one
// never created, one expired, one of another caller, and a handle that
// does not open, alike.
var errTaskNotFound = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task not found"}

// randomID returns 128 random bits, which nobody guesses.
func randomID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// minTaskTTL is the shortest a task is kept: a task cancelled at once
// still holds its slot that long, so that creating and cancelling tasks
// in a loop is bounded by MaxSessionTasks a second.
const minTaskTTL = time.Second

// ttlOf returns the time a task is kept, given the client's request (nil
// for none).
func (r *taskRunner) ttlOf(meta any) time.Duration {
	ttl := r.opts.TTL
	if m, ok := meta.(map[string]any); ok {
		if ms, ok := m["ttl"].(float64); ok && ms >= 0 {
			ttl = time.Duration(min(ms, float64(r.opts.MaxTTL.Milliseconds()))) * time.Millisecond
		}
	}
	return max(min(ttl, r.opts.MaxTTL), minTaskTTL)
}

// handleVersion begins every task handle.
const handleVersion = "ht1."

// handleAD is what a handle is bound to: its owner.
func handleAD(owner string) []byte {
	return fmt.Appendf(nil, "hands mcpserver task handle v1\x00%s", owner)
}

// sealHandle returns the task ID a client is given for the store's id:
// the id sealed with the request states' key (AES-256-GCM), bound to the
// owner as request states are bound to their caller, so that any replica with the key opens it, and opens it only for
// that owner.
func (r *taskRunner) sealHandle(id, owner string) string {
	// The nonce is derived from what is sealed, so that a task has one
	// handle for its owner (tasks/list gives it again); two different
	// sealings share a nonce with odds of one in 2⁹⁶.
	sum := sha256.Sum256(append(handleAD(owner), id...))
	nonce := make([]byte, r.seal.NonceSize(), r.seal.NonceSize()+len(id)+r.seal.Overhead())
	copy(nonce, sum[:])
	return handleVersion + base64.RawURLEncoding.EncodeToString(r.seal.Seal(nonce, nonce, []byte(id), handleAD(owner)))
}

// openHandle returns the store's id of a handle sealed for owner, or
// errTaskNotFound: a handle of another owner, altered, or sealed under
// another key does not open.
func (r *taskRunner) openHandle(handle, owner string) (string, error) {
	data, ok := strings.CutPrefix(handle, handleVersion)
	if !ok {
		return "", errTaskNotFound
	}
	sealed, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil || len(sealed) < r.seal.NonceSize() {
		return "", errTaskNotFound
	}
	id, err := r.seal.Open(nil, sealed[:r.seal.NonceSize()], sealed[r.seal.NonceSize():], handleAD(owner))
	if err != nil {
		return "", errTaskNotFound
	}
	return string(id), nil
}

// sessionOwner names the owner of a session's SEP-1686 tasks: a name of
// its own, made when it first creates one, so that a session sees its own
// tasks only, as before 2026-07-28 tasks were the session's. When the
// session ends, the tasks it runs here are cancelled.
func (r *taskRunner) sessionOwner(ss *mcp.ServerSession) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name, ok := r.sessions[ss]; ok {
		return name
	}
	name := "session " + randomID()
	r.sessions[ss] = name
	go func() {
		ss.Wait()
		r.endSession(ss)
	}()
	return name
}

// endSession cancels the tasks a session that ended runs here.
func (r *taskRunner) endSession(ss *mcp.ServerSession) {
	r.mu.Lock()
	delete(r.sessions, ss)
	var list []*task
	for _, t := range r.local {
		if t.ss == ss && !t.ext {
			list = append(list, t)
		}
	}
	r.mu.Unlock()
	for _, t := range list {
		r.store.Cancel(context.Background(), t.id, "The session ended.")
		t.end()
		t.cancel()
	}
}

// extensionCaller names the owner of a caller's extension tasks, as a
// request state is bound: the user of a verified token, else the session
// of a stateful connection, else nobody in particular (""), whose handles
// are bearer tokens (the extension's Security Considerations allow task
// IDs to be).
func extensionCaller(ctx context.Context, extra *mcp.RequestExtra, ss *mcp.ServerSession) string {
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return "user " + extra.TokenInfo.UserID
	}
	if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); !stateless && ss != nil && ss.ID() != "" {
		return "session " + ss.ID()
	}
	return ""
}

// extensionRequest reports whether a request with these params is made
// on the protocol revision of the tasks extension (2026-07-28 or later).
func extensionRequest(meta mcp.Meta, ss *mcp.ServerSession) bool {
	version, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	if version == "" && ss != nil {
		if init := ss.InitializeParams(); init != nil {
			version = init.ProtocolVersion
		}
	}
	return version >= mcptask.ExtensionFrom
}

// marked reports whether the result of req carries resultType: the SDK
// marks the results of requests whose _meta names a protocol version from
// 2026-07-28 (SEP-2322), not those of the sessions of earlier versions.
func marked(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return false
	}
	v, _ := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return v >= roundTripsFrom
}

// taskKey is the context key of a task's call, whose value is the task.
type taskKey struct{}

// taskOf returns the task whose call ctx serves; nil for a call that is
// not a task's, or not yet (a pendingCall's).
func taskOf(ctx context.Context) *task {
	if t, ok := ctx.Value(taskKey{}).(*task); ok {
		return t
	}
	if p := pendingOf(ctx); p != nil {
		return p.task.Load()
	}
	return nil
}

// taskStatusFrom returns the function that takes the progress of a task's
// call, and reports whether the progress is the task's alone (the
// extension's tasks send no progress notifications: Task Status
// Notifications); nil for a call that is not a task's and cannot become
// one.
func taskStatusFrom(ctx context.Context) func(any) bool {
	if t, ok := ctx.Value(taskKey{}).(*task); ok {
		return func(v any) bool {
			t.progressed(v)
			return t.ext
		}
	}
	if p := pendingOf(ctx); p != nil {
		return func(v any) bool {
			t := p.task.Load()
			if t != nil {
				t.progressed(v)
			}
			return t != nil
		}
	}
	return nil
}

// poke asks the task's writer to write now.
func (t *task) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// progressed makes a progress report of the task's call its status
// message, so that a client that polls sees it.
func (t *task) progressed(v any) {
	r, numbered := progressOf(v)
	msg := r.Message
	switch {
	case msg != "":
	case numbered && r.Total > 0:
		msg = fmt.Sprintf("%g of %g", r.Done, r.Total)
	case numbered:
		msg = fmt.Sprintf("%g", r.Done)
	default:
		return
	}
	msg = cutStatus(msg)
	t.mu.Lock()
	t.message = &msg
	t.mu.Unlock()
	t.poke()
}

// maxStatusBytes bounds a status message taken from progress: it is sent
// on every tasks/get.
const maxStatusBytes = 1024

// cutStatus cuts msg to maxStatusBytes at a character boundary.
func cutStatus(msg string) string {
	if len(msg) <= maxStatusBytes {
		return msg
	}
	return strings.ToValidUTF8(msg[:maxStatusBytes], "") + "…"
}

// storeError turns an error of the store into the JSON-RPC error a client
// gets.
func storeError(err error) error {
	switch {
	case errors.Is(err, taskstore.ErrTaskNotFound):
		return errTaskNotFound
	case errors.Is(err, taskstore.ErrLimit):
		msg := strings.TrimPrefix(err.Error(), "taskstore: ")
		if le, ok := errors.AsType[*taskstore.LimitError](err); ok && le.Limit == taskstore.LimitOwnerTasks {
			msg = fmt.Sprintf("this caller holds %d tasks, its limit; a task, cancelled or not, is held until its ttl has passed", le.Max)
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg + "; try again later"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task store failed: " + err.Error()}
}

// ask sends a request of a task's call (2026-07-28) to its client through
// the task: it is put in the task's inputRequests, the task reads as
// input_required, and the answer comes with tasks/update, to this server
// or another that shares the store. It returns the answer's JSON.
func (r *taskRunner) ask(ctx context.Context, t *task, method string, params any) (json.RawMessage, error) {
	req, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.asked++
	key := fmt.Sprintf("r%d", t.asked) // unique over the task's lifetime (Task Update Requests)
	answer := make(chan json.RawMessage, 1)
	if t.waiters == nil {
		t.waiters = map[string]chan json.RawMessage{}
	}
	t.waiters[key] = answer
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiters, key)
		t.mu.Unlock()
	}()
	if _, err := r.store.Update(ctx, t.id, taskstore.Change{Ask: map[string]json.RawMessage{key: req}}); err != nil {
		return nil, fmt.Errorf("mcpserver: ask the client through the task: %w", err)
	}
	select {
	case data := <-answer:
		return data, nil
	case <-ctx.Done():
		r.store.Update(context.WithoutCancel(ctx), t.id, taskstore.Change{Drop: []string{key}})
		return nil, ctx.Err()
	}
}

// write keeps a task's state in the store while its call runs: it renews
// the lease at a third of it, writes the call's progress, hands answers
// to the requests that wait for them (looking for them at the poll
// interval while some wait), and cancels the call once the task has
// ended otherwise (cancelled, expired, its lease lost). It returns when
// done is closed.
func (r *taskRunner) write(t *task, done <-chan struct{}) {
	renew := r.opts.Lease / 3
	timer := time.NewTimer(renew)
	defer timer.Stop()
	ctx := context.Background()
	for {
		select {
		case <-done:
			return
		case <-timer.C:
		case <-t.wake:
		}
		t.mu.Lock()
		c := taskstore.Change{Message: t.message, Lease: r.opts.Lease}
		t.message = nil
		waiting := len(t.waiters) > 0
		t.mu.Unlock()
		got, err := r.store.Update(ctx, t.id, c)
		switch {
		case taskEnded(err):
			t.mu.Lock()
			t.lost = err
			t.mu.Unlock()
			t.end()
			t.cancel()
			return
		case err == nil && len(got.Responses) > 0:
			var taken []string
			t.mu.Lock()
			for k, v := range got.Responses {
				if w := t.waiters[k]; w != nil {
					w <- v
					delete(t.waiters, k)
				}
				taken = append(taken, k)
			}
			waiting = len(t.waiters) > 0
			t.mu.Unlock()
			r.store.Update(ctx, t.id, taskstore.Change{Take: taken})
		}
		next := renew
		if waiting {
			next = min(renew, r.opts.PollInterval)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(next)
	}
}

// taskRequests is a sending middleware: a request to the client made by a
// SEP-1686 task's call (elicitation, sampling) carries the task's ID in
// _meta (io.modelcontextprotocol/related-task), and the task's status is
// input_required until the client answers.
func (s *Server) taskRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		t := taskOf(ctx)
		if t == nil || t.ext || (method != "elicitation/create" && method != "sampling/createMessage") {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			meta := p.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			meta[mcptask.RelatedMeta] = map[string]any{"taskId": t.handle}
			p.SetMeta(meta)
		}
		t.mu.Lock()
		t.asked++
		key := fmt.Sprintf("r%d", t.asked)
		t.mu.Unlock()
		// The request goes to the client on the session; the store shows
		// the task input_required meanwhile.
		st := s.tasks.store
		st.Update(ctx, t.id, taskstore.Change{Ask: map[string]json.RawMessage{key: json.RawMessage(`{"method":"` + method + `"}`)}})
		defer st.Update(context.WithoutCancel(ctx), t.id, taskstore.Change{Drop: []string{key}})
		return next(ctx, method, req)
	}
}

// taskCalls is the receiving middleware of tasks. It serves the
// tools/call of the tools that may run as tasks: before 2026-07-28
// (SEP-1686) a call with a task parameter becomes a task, and a plain
// call of a tool that requires one is refused; from 2026-07-28 (the
// tasks extension) the server decides, for a client that declares the
// extension on the request: a call of a tool that allows a task becomes
// one if it has not ended within TaskOptions.ResultWait or asked its
// client in its result before (callOrTask), one of a tool that requires a
// task becomes one too when it ends within the wait, and a call of a
// tool that requires one from a client that does not declare the
// extension is refused with the extension's error, whether or not the
// call carries SEP-1686's task parameter, which that revision does not
// have.
// It tells clients that the server has tasks (initialize,
// server/discover) and which tools may run as them (tools/list), and
// names the caller of tasks/* for their handlers.
func (s *Server) taskCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if init, ok := res.(*mcp.InitializeResult); ok && err == nil {
				return withTaskCapability(init), nil
			}
			return res, err
		case "server/discover":
			res, err := next(ctx, method, req)
			if d, ok := res.(*mcp.DiscoverResult); ok && err == nil && d.Capabilities != nil {
				// Capability Negotiation: the server declares the
				// extension with an empty object.
				caps := *d.Capabilities
				caps.Extensions = maps.Clone(caps.Extensions)
				caps.AddExtension(mcptask.Extension, map[string]any{})
				d.Capabilities = &caps
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				if marked(req) {
					// The SDK marks its own results complete; the list
					// withExecution writes is not the SDK's.
					list.ResultType = "complete"
				}
				return withExecution(list), nil
			}
			return res, err
		case mcptask.MethodGet, mcptask.MethodResult, mcptask.MethodCancel, mcptask.MethodList, mcptask.MethodUpdate:
			return next(s.taskCaller(ctx, method, req))
		case "tools/call":
		default:
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		asked, augmented := call.Params.Meta[mcptask.ParamMeta]
		if augmented {
			delete(call.Params.Meta, mcptask.ParamMeta)
		}
		support, _ := s.taskModes.Load(call.Params.Name)
		if extensionRequest(call.Params.Meta, call.Session) {
			// Capability Negotiation: a task for a client that declared
			// the extension on this request, never for another. SEP-1686's
			// task parameter is not of this revision, and is ignored as
			// an unknown field (the extension's Backward Compatibility).
			declared := mcptask.Declared(call.Params.Meta)
			switch {
			case support == tool.TaskRequired && !declared:
				return nil, mcptask.MissingExtension(fmt.Sprintf("the tool %q runs as a task only, and the client did not declare the tasks extension (%s) in this request's capabilities", call.Params.Name, mcptask.Extension))
			case !declared || support == nil || support == tool.TaskForbidden:
				return next(ctx, method, req)
			}
			owner := extensionCaller(ctx, call.GetExtra(), call.Session)
			if s.tasks.opts.ResultWait > 0 && !s.tasks.handsOver(call) {
				// The server decides (see callOrTask): a call that ends
				// soon, or asks its client first, is answered plainly,
				// but for the end of one that requires a task.
				return s.callOrTask(ctx, next, call, owner, support == tool.TaskRequired)
			}
			return s.startTask(ctx, next, call, owner, true, s.tasks.opts.TTL)
		}
		switch {
		case !augmented && support == tool.TaskRequired:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("the tool %q runs as a task only: call it with a task parameter (its execution.taskSupport is \"required\")", call.Params.Name)}
		case !augmented:
			return next(ctx, method, req)
		case (support == nil || support == tool.TaskForbidden) && extensionRequest(call.Params.Meta, call.Session):
			// The extension's server decides what runs as a task: SEP-1686's
			// parameter is tolerated, and makes no task of a tool that
			// runs as none.
			return next(ctx, method, req)
		case support == nil || support == tool.TaskForbidden:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("the tool %q does not run as a task: call it without a task parameter", call.Params.Name)}
		case call.Session == nil || ctx.Value(httpRequestKey{}) != nil:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "tasks before protocol version 2026-07-28 need a session, and a stateless server has none: call the tool without a task parameter, or on protocol version 2026-07-28 with the tasks extension"}
		}
		return s.startTask(ctx, next, call, s.tasks.sessionOwner(call.Session), false, s.tasks.ttlOf(asked))
	}
}

// taskCallerKey is the context key of the caller of a tasks/* request.
type taskCallerKey struct{}

// A taskCaller is who makes a tasks/* request, and on which revision.
type taskCaller struct {
	owner    string // whose tasks it may see
	ext      bool   // the extension's revision (2026-07-28)
	declared bool   // the request declares the extension
}

// taskCaller puts the caller of a tasks/* request in ctx.
func (s *Server) taskCaller(ctx context.Context, method string, req mcp.Request) (context.Context, string, mcp.Request) {
	var meta mcp.Meta
	if p := req.GetParams(); p != nil {
		meta = p.GetMeta()
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	c := taskCaller{ext: extensionRequest(meta, ss), declared: mcptask.Declared(meta)}
	if c.ext && !c.declared && ss != nil {
		// A client that made SEP-1686 tasks (a task parameter, on an
		// earlier revision) on this session polls them as SEP-1686 has
		// it, as the extension's Backward Compatibility asks.
		s.tasks.mu.Lock()
		_, sep1686 := s.tasks.sessions[ss]
		s.tasks.mu.Unlock()
		c.ext = !sep1686
	}
	if c.ext {
		c.owner = extensionCaller(ctx, req.GetExtra(), ss)
	} else if ss != nil {
		s.tasks.mu.Lock()
		c.owner = s.tasks.sessions[ss]
		s.tasks.mu.Unlock()
		if c.owner == "" {
			c.owner = "session none " + randomID() // a session with no task sees none
		}
	}
	return context.WithValue(ctx, taskCallerKey{}, c), method, req
}

// startTask runs a call in the background as a task of owner, and answers
// with the task.
func (s *Server) startTask(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest, owner string, ext bool, ttl time.Duration) (mcp.Result, error) {
	r := s.tasks
	if ext && r.handsOver(call) {
		return s.handOver(ctx, call, owner, ttl)
	}
	// The call outlives its request, and ends with its task: cancelled,
	// expired, its session ended (SEP-1686), or its lease lost.
	run, cancel := context.WithCancel(unrelated{context.WithoutCancel(ctx)})
	t, created, release, err := r.newTask(ctx, call.Params.Name, call.Session, owner, ext, ttl, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	if ext {
		// Progress is not sent on tasks (Task Status Notifications); it
		// is the task's status message.
		delete(call.Params.Meta, "progressToken")
	}
	run = context.WithValue(run, taskKey{}, t)
	go func() {
		defer release()
		res, err := next(run, "tools/call", call)
		r.finish(t, call.Params.Name, res, err)
	}()
	return r.created(t, created), nil
}

// newTask makes a task of owner for a call of the tool name, durably in
// the store, and keeps it there while the call runs (write); cancel ends
// the call. Once the call has returned and its outcome is written
// (finish), release gives back what the task holds here.
func (r *taskRunner) newTask(ctx context.Context, name string, ss *mcp.ServerSession, owner string, ext bool, ttl time.Duration, cancel context.CancelFunc) (t *task, created *taskstore.Task, release func(), err error) {
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		return nil, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the server is stopping; call the tool again"}
	}
	if r.running >= r.opts.MaxTasks {
		r.mu.Unlock()
		return nil, nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("the server runs %d tasks, its limit; try again later", r.opts.MaxTasks)}
	}
	r.running++
	r.mu.Unlock()
	id := randomID()
	created, err = r.store.Create(ctx, taskstore.New{ID: id, Owner: owner, Tool: name, TTL: ttl, Lease: r.opts.Lease}, r.lim)
	if err != nil {
		r.mu.Lock()
		r.running--
		r.mu.Unlock()
		return nil, nil, nil, storeError(err)
	}
	ended := make(chan struct{})
	t = &task{r: r, id: id, handle: r.sealHandle(id, owner), ss: ss, ext: ext, cancel: cancel, ended: ended, end: sync.OnceFunc(func() { close(ended) }), wake: make(chan struct{}, 1)}
	r.mu.Lock()
	r.local[id] = t
	r.mu.Unlock()
	expiry := time.AfterFunc(ttl, cancel)
	done := make(chan struct{})
	go r.write(t, done)
	release = func() {
		expiry.Stop()
		cancel()
		close(done)
		r.mu.Lock()
		delete(r.local, id)
		r.running--
		if len(r.local) == 0 && r.idle != nil {
			close(r.idle)
			r.idle = nil
		}
		r.mu.Unlock()
	}
	return t, created, release, nil
}

// shutdownWrites bounds what Shutdown does once its grace has ended: the
// writes with which it fails the tasks still running, all together (a
// store that does not answer leaves them to lapse), and, alongside them,
// the wait for their cancelled calls to return.
const shutdownWrites = 5 * time.Second

// shutdownWriters is how many of those writes Shutdown has under way at
// once.
const shutdownWriters = 16

// Shutdown stops the tasks this server runs, for a server about to stop:
// it refuses new tasks, waits until the calls of those under way have
// returned or ctx has ended, and then, for each task still running,
// cancels its call and fails the task as the lapse of its lease would
// (taskstore.LapsedMessage, which tells the model to call the tool
// again). The servers that share the store then read such a task failed
// at once, rather than a lease later, as they read the tasks of a server
// that was killed. It returns ctx's error when ctx ended before the calls
// returned. Stop the transports first (http.Server.Shutdown), so that no
// task is created meanwhile.
//
// The calls are cancelled at once, all of them, before any write: what a
// call cancels in turn (an upstream's task, which the client cancels as
// its call ends) must not wait on a store slow to answer. The writes then
// run, a few at a time, while the calls return; Shutdown waits for both,
// shutdownWrites (5 s) at most. A cancelled call that fails (its
// cancellation) writes the lapse's outcome too, so that whichever write
// comes first says the same; one whose result was in hand as it was
// stopped keeps it if its write comes first, so that a tool that did its
// work is not called again for nothing.
func (s *Server) Shutdown(ctx context.Context) error {
	r := s.tasks
	r.mu.Lock()
	r.stopping = true
	var idle chan struct{}
	if len(r.local) > 0 {
		if r.idle == nil {
			r.idle = make(chan struct{})
		}
		idle = r.idle
	}
	r.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	r.mu.Lock()
	list := slices.Collect(maps.Values(r.local))
	r.mu.Unlock()
	if len(list) == 0 {
		return ctx.Err() // the last call returned just now
	}
	for _, t := range list {
		t.halted.Store(true)
		t.cancel()
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownWrites)
	defer cancel()
	began := time.Now()
	var landed atomic.Int64 // tasks written failed, or found ended
	written := make(chan struct{})
	go func() {
		defer close(written)
		var wg sync.WaitGroup
		writers := make(chan struct{}, shutdownWriters)
		for _, t := range list {
			select {
			case writers <- struct{}{}:
			case <-wctx.Done():
				wg.Wait() // a store that does not answer: the rest lapse
				return
			}
			wg.Go(func() {
				defer func() { <-writers }()
				if _, err := r.store.Finish(wctx, t.id, lapsed, taskstore.Limits{}); err == nil || taskEnded(err) {
					landed.Add(1)
					t.end()
				}
				// Otherwise the task still reads working: a reader
				// waiting here for its end waits on, until the call's own
				// write.
			})
		}
		wg.Wait()
	}()
	for _, done := range []<-chan struct{}{written, idle} {
		select {
		case <-done:
		case <-wctx.Done():
		}
	}
	// What an operator reads to tell a store slow to answer from a call
	// that ignores its context.
	took := time.Since(began)
	unwritten := int64(len(list)) - landed.Load()
	returned := closed(idle)
	if unwritten == 0 && returned {
		s.logger.WarnContext(ctx, "mcpserver: stopping: tasks outlasted the grace; their calls are cancelled and the tasks failed", "tasks", len(list), "took", took)
	} else {
		s.logger.WarnContext(ctx, "mcpserver: stopping: tasks outlasted the grace; their calls are cancelled, but not all is done", "tasks", len(list), "took", took, "unwritten", unwritten, "calls_returned", returned)
	}
	return ctx.Err()
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// succeeded reports whether a call returned a result that is not an
// error.
func succeeded(res mcp.Result, callErr error) bool {
	result, ok := res.(*mcp.CallToolResult)
	return callErr == nil && ok && result != nil && !result.IsError
}

// lapsed is the outcome of a task whose lease lapsed, or whose server
// stopped while its call ran.
var lapsed = taskstore.Outcome{Status: taskstore.Failed, Message: taskstore.LapsedMessage, Error: taskstore.LapsedError}

// finish writes the outcome of a task's call to the store, and returns
// the error of its last write.
func (r *taskRunner) finish(t *task, name string, res mcp.Result, callErr error) error {
	defer t.end()
	ctx := context.Background()
	if t.halted.Load() && !succeeded(res, callErr) {
		// Shutdown cancelled the call, which failed (its cancellation,
		// most likely): the task is failed as Shutdown fails it, which
		// tells the model to call again, and its progress is moot. A
		// result the call returned all the same is kept, if it is written
		// before Shutdown's write.
		_, err := r.store.Finish(ctx, t.id, lapsed, taskstore.Limits{})
		return err
	}
	// The last progress first, so that a reader of the outcome sees it.
	t.mu.Lock()
	msg := t.message
	t.mu.Unlock()
	if msg != nil {
		r.store.Update(ctx, t.id, taskstore.Change{Message: msg})
	}
	fail := func(err error) error {
		werr, ok := errors.AsType[*jsonrpc.Error](err)
		if !ok {
			werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		data, _ := json.Marshal(werr)
		_, err = r.store.Finish(ctx, t.id, taskstore.Outcome{Status: taskstore.Failed, Message: werr.Message, Error: data}, r.lim)
		return err
	}
	if callErr != nil {
		return fail(callErr)
	}
	result, _ := res.(*mcp.CallToolResult)
	if result == nil {
		return fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call answered no result"})
	}
	related := map[string]any{"taskId": t.handle}
	if !t.ext {
		if result.Meta == nil {
			result.Meta = mcp.Meta{}
		}
		result.Meta[mcptask.RelatedMeta] = related
	}
	data, err := json.Marshal(result)
	if err != nil {
		return fail(err)
	}
	_, err = r.store.Finish(ctx, t.id, taskstore.Outcome{Status: taskstore.Completed, Result: data}, r.lim)
	le, ok := errors.AsType[*taskstore.LimitError](err)
	if !ok {
		return err // finished, or the task ended first: nothing held
	}
	msgText := fmt.Sprintf("the result of the tool %q is %d bytes, over the limit of %d bytes a task holds", name, len(data), le.Max)
	if le.Limit == taskstore.LimitHeldBytes {
		msgText = fmt.Sprintf("the result of the tool %q is %d bytes, more than the server can hold now (its tasks hold %d bytes of results at most); try again later", name, len(data), le.Max)
	}
	small := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msgText}}, IsError: true}
	if !t.ext {
		small.Meta = mcp.Meta{mcptask.RelatedMeta: related}
	}
	data, _ = json.Marshal(small)
	// Small, and held as any other until the task expires.
	_, err = r.store.Finish(ctx, t.id, taskstore.Outcome{Status: taskstore.Completed, Result: data}, taskstore.Limits{})
	return err
}

// created returns the result of a call that created a task.
func (r *taskRunner) created(t *task, st *taskstore.Task) mcp.Result {
	if !t.ext {
		return &mcptask.CreateResult{Task: r.sep1686(t.handle, st)}
	}
	// Polymorphic Results: resultType "task", the task's fields inline.
	w := r.detailed(t.handle, st)
	w.ResultType = "task"
	data, _ := json.Marshal(w)
	return &mcptask.RawResult{JSON: data}
}

// sep1686 returns a task as SEP-1686 writes it (before 2026-07-28): a call
// whose tool reported an error is failed, and tasks/result has it.
func (r *taskRunner) sep1686(handle string, st *taskstore.Task) mcptask.Task {
	ttl := st.TTL().Milliseconds()
	w := mcptask.Task{
		TaskID: handle, Status: st.Status, StatusMessage: st.Message,
		CreatedAt: mcptask.Time(st.Created), LastUpdatedAt: mcptask.Time(st.Updated), TTL: &ttl,
	}
	if w.Status == taskstore.InputRequired || w.Status == taskstore.Working {
		w.PollInterval = r.opts.PollInterval.Milliseconds()
	}
	if st.Status == taskstore.Completed && toolError(st.Result) {
		w.Status = mcptask.Failed
		w.StatusMessage = "The tool reported an error; tasks/result has it."
	}
	return w
}

// toolError reports whether a CallToolResult has isError set.
func toolError(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return bytes.Contains(result, []byte(`"isError"`)) && json.Unmarshal(result, &r) == nil && r.IsError
}

// detailed returns a task as the extension writes it (DetailedTask), with
// resultType "complete" as tasks/get answers it.
func (r *taskRunner) detailed(handle string, st *taskstore.Task) *mcptask.DetailedTask {
	ttl := st.TTL().Milliseconds()
	w := &mcptask.DetailedTask{
		ResultType: "complete", TaskID: handle, Status: st.Status, StatusMessage: st.Message,
		CreatedAt: mcptask.Time(st.Created), LastUpdatedAt: mcptask.Time(st.Updated), TTLMs: &ttl,
	}
	switch st.Status {
	case taskstore.Working:
		w.PollIntervalMs = r.opts.PollInterval.Milliseconds()
	case taskstore.InputRequired:
		w.PollIntervalMs = r.opts.PollInterval.Milliseconds()
		w.InputRequests = st.Requests
	case taskstore.Completed:
		w.Result = st.Result
	case taskstore.Failed:
		w.Error = st.Error
	}
	return w
}

// unrelated is a task's context: the request's values, but for the SDK's
// tie to the request, under which the SDK's streamable HTTP server sends
// a message on the request's own stream — closed once the task is
// answered, so that the call's progress and its requests to the client
// would be dropped — and for the stateless HTTP request, whose end
// would end the call. The SDK does not export its key, so it is known by
// its type's name; should that change, TestTaskAsks fails over HTTP.
type unrelated struct{ context.Context }

func (u unrelated) Value(key any) any {
	if _, ok := key.(httpRequestKey); ok {
		return nil
	}
	if t := reflect.TypeOf(key); t != nil && t.Name() == "idContextKey" && t.PkgPath() == "github.com/modelcontextprotocol/go-sdk/mcp" {
		return nil
	}
	return u.Context.Value(key)
}

// lookup returns the task of a handle, as the caller in ctx may see it.
func (r *taskRunner) lookup(ctx context.Context, handle string) (*taskstore.Task, taskCaller, error) {
	c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
	id, err := r.openHandle(handle, c.owner)
	if err != nil {
		return nil, c, err
	}
	st, err := r.store.Get(ctx, id)
	if err != nil {
		return nil, c, storeError(err)
	}
	if st.Owner != c.owner {
		return nil, c, errTaskNotFound
	}
	return st, c, nil
}

// refuseMethod returns the error of a tasks/* method on a revision that does not
// have it, or from a client that did not declare the extension.
func refuseMethod(c taskCaller, method string, sep1686, ext bool) error {
	switch {
	case c.ext && !ext, !c.ext && !sep1686:
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s is not a method of this protocol version", method)}
	case c.ext && !c.declared:
		// Error Handling: a non-declaring client's tasks/* is refused.
		return mcptask.MissingExtension(fmt.Sprintf("%s needs the tasks extension (%s) in the request's capabilities", method, mcptask.Extension))
	}
	return nil
}

// addTaskMethods serves tasks/get, tasks/cancel, and before 2026-07-28
// tasks/result and tasks/list, and from 2026-07-28 tasks/update, each over
// the caller's own tasks only.
func (s *Server) addTaskMethods() {
	r := s.tasks
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.RawResult, error) {
		c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
		if err := refuseMethod(c, mcptask.MethodGet, true, true); err != nil {
			return nil, err
		}
		st, c, err := r.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		var w any = r.detailed(p.TaskID, st)
		if !c.ext {
			w = r.sep1686(p.TaskID, st)
		}
		data, err := json.Marshal(w)
		return &mcptask.RawResult{JSON: data}, err
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodResult, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.RawResult, error) {
		c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
		if err := refuseMethod(c, mcptask.MethodResult, true, false); err != nil {
			return nil, err
		}
		st, _, err := r.lookup(ctx, p.TaskID)
		for err == nil && !taskstore.Terminal(st.Status) {
			r.mu.Lock()
			t := r.local[st.ID]
			r.mu.Unlock()
			var ended <-chan struct{}
			if t != nil {
				ended = t.ended
			}
			poll := time.NewTimer(r.opts.PollInterval)
			select {
			case <-ended:
			case <-poll.C:
			case <-ctx.Done():
				poll.Stop()
				return nil, ctx.Err()
			}
			poll.Stop()
			st, _, err = r.lookup(ctx, p.TaskID)
		}
		if err != nil {
			return nil, err
		}
		switch st.Status {
		case taskstore.Completed:
			return &mcptask.RawResult{JSON: st.Result}, nil
		case taskstore.Failed:
			werr := &jsonrpc.Error{}
			if json.Unmarshal(st.Error, werr) != nil {
				werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: st.Message}
			}
			return nil, werr
		}
		res := &mcp.CallToolResult{
			Meta:    mcp.Meta{mcptask.RelatedMeta: map[string]any{"taskId": p.TaskID}},
			Content: []mcp.Content{&mcp.TextContent{Text: cmp.Or(st.Message, "The task was cancelled.")}},
			IsError: true,
		}
		data, err := json.Marshal(res)
		return &mcptask.RawResult{JSON: data}, err
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodCancel, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.RawResult, error) {
		c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
		if err := refuseMethod(c, mcptask.MethodCancel, true, true); err != nil {
			return nil, err
		}
		st, c, err := r.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		cancelled, err := r.store.Cancel(ctx, st.ID, "The task was cancelled by request.")
		switch {
		case errors.Is(err, taskstore.ErrEnded) && c.ext:
			// Task Cancellation: an acknowledgement, whatever the task
			// became.
		case errors.Is(err, taskstore.ErrEnded):
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the task has already ended"}
		case err != nil:
			return nil, storeError(err)
		}
		r.mu.Lock()
		t := r.local[st.ID]
		r.mu.Unlock()
		switch {
		case t != nil && err == nil:
			// The task runs here: its call ends now, not at its writer's
			// next renewal.
			t.end()
			t.cancel()
		case err == nil && r.opts.Runner != nil:
			// Its call may run on the runner's worker, which learns of it
			// at its next renewal; the runner may tell it sooner.
			if err := r.opts.Runner.Cancel(ctx, st.ID); err != nil {
				s.logger.WarnContext(ctx, "mcpserver: the task runner did not cancel a task's call", "tool", st.Tool, "err", err)
			}
		}
		if c.ext {
			return &mcptask.RawResult{JSON: json.RawMessage(`{"resultType":"complete"}`)}, nil
		}
		data, err := json.Marshal(mcptask.TaskResult{Task: r.sep1686(p.TaskID, cancelled)})
		return &mcptask.RawResult{JSON: data}, err
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodUpdate, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.UpdateParams) (*mcptask.RawResult, error) {
		c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
		if err := refuseMethod(c, mcptask.MethodUpdate, false, true); err != nil {
			return nil, err
		}
		st, _, err := r.lookup(ctx, p.TaskID)
		if err != nil {
			return nil, err
		}
		// Task Update Requests: answers to keys not outstanding are
		// ignored; the acknowledgement may come before the task shows
		// the answers.
		if _, err := r.store.Answer(ctx, st.ID, p.InputResponses); err != nil && !errors.Is(err, taskstore.ErrEnded) {
			return nil, storeError(err)
		}
		r.mu.Lock()
		t := r.local[st.ID]
		r.mu.Unlock()
		if t != nil {
			t.poke() // the task runs here: its writer hands the answers over now
		}
		return &mcptask.RawResult{JSON: json.RawMessage(`{"resultType":"complete"}`)}, nil
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodList, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.ListParams) (*mcptask.ListResult, error) {
		c, _ := ctx.Value(taskCallerKey{}).(taskCaller)
		if err := refuseMethod(c, mcptask.MethodList, true, false); err != nil {
			return nil, err
		}
		if p != nil && p.Cursor != "" {
			// The tasks of a session fit one page (MaxSessionTasks), so no
			// cursor was handed out.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
		res := &mcptask.ListResult{Tasks: []mcptask.Task{}}
		list, err := r.store.List(ctx, c.owner)
		if err != nil {
			return nil, storeError(err)
		}
		for _, st := range list {
			res.Tasks = append(res.Tasks, r.sep1686(r.sealHandle(st.ID, c.owner), st))
		}
		return res, nil
	}))
}

// taskCapability is what the server declares of tasks: tasks/list,
// tasks/cancel and task-augmented tools/call.
var taskCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// withTaskCapability returns res with the tasks capability, which the
// SDK's ServerCapabilities has no field for.
func withTaskCapability(res *mcp.InitializeResult) mcp.Result {
	data, err := json.Marshal(res)
	if err != nil {
		return res
	}
	var o map[string]json.RawMessage
	var caps map[string]json.RawMessage
	if json.Unmarshal(data, &o) != nil || json.Unmarshal(o["capabilities"], &caps) != nil {
		return res
	}
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	caps["tasks"] = taskCapability
	if o["capabilities"], err = json.Marshal(caps); err != nil {
		return res
	}
	if data, err = json.Marshal(o); err != nil {
		return res
	}
	return &mcptask.RawResult{JSON: data}
}

// withExecution returns a page of tools/list with each tool's execution
// where the protocol puts it, out of the _meta where mcpTool put it;
// a page without such a tool is returned as it is.
func withExecution(res *mcp.ListToolsResult) mcp.Result {
	if !slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Meta[mcptask.ExecutionMeta] != nil }) {
		return res
	}
	data, err := marshalAsIs(res)
	if err != nil {
		return res
	}
	var o map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(data, &o) != nil || json.Unmarshal(o["tools"], &tools) != nil {
		return res
	}
	for i, t := range tools {
		tools[i] = mcptask.LowerTool(t)
	}
	if o["tools"], err = marshalAsIs(tools); err != nil {
		return res
	}
	if data, err = marshalAsIs(o); err != nil {
		return res
	}
	return &mcptask.RawResult{JSON: data}
}

// marshalAsIs encodes v as json.Marshal does, but with <, > and & as they
// are: json.Marshal escapes them, also inside the raw schemas a tool's
// server sent (tool.SchemaDocumenter), which are listed as sent.
func marshalAsIs(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
