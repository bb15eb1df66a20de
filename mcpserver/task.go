package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
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
)

// TaskOptions bound the tasks a Server runs for the tools that may run as
// tasks (tool.WithTaskSupport). A zero field selects its default.
type TaskOptions struct {
	// MaxSessionTasks is how many tasks one session may hold at once,
	// running or finished and not yet expired; a task-augmented call
	// beyond it is refused. Zero selects DefaultMaxSessionTasks.
	MaxSessionTasks int
	// MaxTasks is how many tasks the server holds over all sessions.
	// Zero selects DefaultMaxTasks.
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
	// MaxHeldResultBytes is how many bytes of results, as JSON, the server
	// holds over all its tasks until they expire; a result that would take
	// it past this is replaced by an error result that says so. Without
	// it, sessions at their caps could have the server hold MaxTasks
	// times MaxResultBytes. Zero selects DefaultMaxHeldTaskResultBytes.
	MaxHeldResultBytes int
}

// A taskStore holds the tasks of a server's sessions. Each session has
// its own table and lock; the store's lock guards the table of tables
// and the count over them.
type taskStore struct {
	opts TaskOptions

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*sessionTasks
	total    int // tasks held or still running, over all sessions

	held atomic.Int64 // bytes of results held, over all sessions
}

// sessionTasks are one session's tasks.
type sessionTasks struct {
	mu    sync.Mutex
	tasks map[string]*task // by ID: the tasks the session may see
	slots int              // tasks held, or forgotten with their call still running
	ended bool             // the session ended; no task is added
}

// A task is one task-augmented tools/call.
type task struct {
	id      string
	created time.Time
	ttl     time.Duration
	cancel  context.CancelFunc
	expiry  *time.Timer
	refs    atomic.Int32 // holds on the task's slot: see unref

	mu      sync.Mutex
	status  string
	message string
	updated time.Time
	result  json.RawMessage // the CallToolResult, when the call answered one
	err     error           // the call's JSON-RPC error, when it answered one
	done    chan struct{}   // closed once status is terminal
	asking  int             // requests of the call to the client under way
}

func newTaskStore(opts TaskOptions) *taskStore {
	opts.MaxSessionTasks = cmp.Or(opts.MaxSessionTasks, DefaultMaxSessionTasks)
	opts.MaxTasks = cmp.Or(opts.MaxTasks, DefaultMaxTasks)
	opts.TTL = cmp.Or(opts.TTL, DefaultTaskTTL)
	opts.MaxTTL = cmp.Or(opts.MaxTTL, DefaultMaxTaskTTL)
	opts.PollInterval = cmp.Or(opts.PollInterval, DefaultTaskPollInterval)
	opts.MaxResultBytes = cmp.Or(opts.MaxResultBytes, DefaultMaxTaskResultBytes)
	opts.MaxHeldResultBytes = cmp.Or(opts.MaxHeldResultBytes, DefaultMaxHeldTaskResultBytes)
	return &taskStore{opts: opts, sessions: map[*mcp.ServerSession]*sessionTasks{}}
}

// errTaskNotFound is the answer for a task ID the session does not hold:
// one it never had, one that expired, and one of another session alike.
var errTaskNotFound = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task not found"}

// taskID returns a new task ID: 128 random bits, which nobody guesses.
func taskID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// minTaskTTL is the shortest a task is kept: a task cancelled at once
// still holds its slot that long, so that creating and cancelling tasks
// in a loop is bounded by MaxSessionTasks a second.
const minTaskTTL = time.Second

// ttlOf returns the time a task is kept, given the client's request.
func (st *taskStore) ttlOf(meta any) time.Duration {
	ttl := st.opts.TTL
	if m, ok := meta.(map[string]any); ok {
		if ms, ok := m["ttl"].(float64); ok && ms >= 0 {
			ttl = time.Duration(min(ms, float64(st.opts.MaxTTL.Milliseconds()))) * time.Millisecond
		}
	}
	return max(min(ttl, st.opts.MaxTTL), minTaskTTL)
}

// add makes a task for a call of ss, within the bounds, and holds a slot
// for it until both it has expired and its call has returned.
func (st *taskStore) add(ss *mcp.ServerSession, ttl time.Duration, cancel context.CancelFunc) (*task, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	tasks := st.sessions[ss]
	if tasks == nil {
		tasks = &sessionTasks{tasks: map[string]*task{}}
		st.sessions[ss] = tasks
		go func() {
			ss.Wait()
			st.endSession(ss)
		}()
	}
	if st.total >= st.opts.MaxTasks {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the server holds %d tasks, its limit; try again later", st.opts.MaxTasks)}
	}
	tasks.mu.Lock()
	defer tasks.mu.Unlock()
	if tasks.ended {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the session has ended"}
	}
	if tasks.slots >= st.opts.MaxSessionTasks {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("this session holds %d tasks, its limit; a task, cancelled or not, is held until its ttl has passed", st.opts.MaxSessionTasks)}
	}
	now := time.Now()
	t := &task{id: taskID(), created: now, ttl: ttl, cancel: cancel, status: mcptask.Working, updated: now, done: make(chan struct{})}
	t.refs.Store(2) // the table's, and the call's
	tasks.tasks[t.id] = t
	tasks.slots++
	st.total++
	t.expiry = time.AfterFunc(ttl, func() { st.expire(ss, t) })
	return t, nil
}

// unref gives up one of the two holds on a task's slot, the table's or
// the call's, and gives the slot back once both are given up: a task whose
// call ignores cancellation counts against the bounds until it returns.
func (st *taskStore) unref(ss *mcp.ServerSession, t *task) {
	if t.refs.Add(-1) == 0 {
		st.release(ss)
	}
}

// release gives back a task's slot.
func (st *taskStore) release(ss *mcp.ServerSession) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.total--
	if tasks := st.sessions[ss]; tasks != nil {
		tasks.mu.Lock()
		tasks.slots--
		empty := tasks.slots == 0 && tasks.ended
		tasks.mu.Unlock()
		if empty {
			delete(st.sessions, ss)
		}
	}
}

// expire forgets a task whose time is up, cancelling its call if it
// still runs.
func (st *taskStore) expire(ss *mcp.ServerSession, t *task) {
	t.finish(mcptask.Cancelled, "The task expired.", nil, nil)
	t.cancel()
	if st.forget(ss, t) {
		t.mu.Lock()
		st.held.Add(-int64(len(t.result)))
		t.mu.Unlock()
		st.unref(ss, t)
	}
}

// hold counts n more bytes of results held, and reports whether they fit
// within MaxHeldResultBytes; when they do not, nothing is counted.
func (st *taskStore) hold(n int) bool {
	if st.held.Add(int64(n)) > int64(st.opts.MaxHeldResultBytes) {
		st.held.Add(-int64(n))
		return false
	}
	return true
}

// forget takes t out of its session's table, and reports whether it was
// there.
func (st *taskStore) forget(ss *mcp.ServerSession, t *task) bool {
	st.mu.Lock()
	tasks := st.sessions[ss]
	st.mu.Unlock()
	if tasks == nil {
		return false
	}
	tasks.mu.Lock()
	defer tasks.mu.Unlock()
	if tasks.tasks[t.id] != t {
		return false
	}
	delete(tasks.tasks, t.id)
	return true
}

// endSession cancels and forgets the tasks of a session that ended.
func (st *taskStore) endSession(ss *mcp.ServerSession) {
	st.mu.Lock()
	tasks := st.sessions[ss]
	st.mu.Unlock()
	if tasks == nil {
		return
	}
	tasks.mu.Lock()
	tasks.ended = true
	list := make([]*task, 0, len(tasks.tasks))
	for _, t := range tasks.tasks {
		list = append(list, t)
	}
	tasks.mu.Unlock()
	for _, t := range list {
		if t.expiry.Stop() {
			st.expire(ss, t)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tasks.mu.Lock()
	empty := tasks.slots == 0
	tasks.mu.Unlock()
	if empty && st.sessions[ss] == tasks {
		delete(st.sessions, ss)
	}
}

// lookup returns the task of ss with the given ID.
func (st *taskStore) lookup(ss *mcp.ServerSession, id string) (*task, error) {
	st.mu.Lock()
	tasks := st.sessions[ss]
	st.mu.Unlock()
	if tasks == nil {
		return nil, errTaskNotFound
	}
	tasks.mu.Lock()
	defer tasks.mu.Unlock()
	t := tasks.tasks[id]
	if t == nil {
		return nil, errTaskNotFound
	}
	return t, nil
}

// finish moves t to a terminal status, unless it has one; it reports
// whether it did.
func (t *task) finish(status, message string, result json.RawMessage, err error) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if mcptask.Terminal(t.status) {
		return false
	}
	t.status, t.message, t.result, t.err = status, message, result, err
	t.updated = time.Now()
	close(t.done)
	return true
}

// taskKey is the context key of a task's call, whose value is the task.
type taskKey struct{}

// taskOf returns the task whose call ctx serves; nil for a call that is
// not a task's.
func taskOf(ctx context.Context) *task {
	t, _ := ctx.Value(taskKey{}).(*task)
	return t
}

// taskStatusFrom returns the function that takes the progress of a task's
// call; nil for a call that is not a task's.
func taskStatusFrom(ctx context.Context) func(any) {
	if t := taskOf(ctx); t != nil {
		return t.progressed
	}
	return nil
}

// taskRequests is a sending middleware: a request to the client made by a
// task's call (elicitation, sampling) carries the task's ID in _meta
// (io.modelcontextprotocol/related-task), and the task's status is
// input_required until the client answers.
func (s *Server) taskRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		t := taskOf(ctx)
		if t == nil || (method != "elicitation/create" && method != "sampling/createMessage") {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			meta := p.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			meta[mcptask.RelatedMeta] = map[string]any{"taskId": t.id}
			p.SetMeta(meta)
		}
		t.waiting(true)
		defer t.waiting(false)
		return next(ctx, method, req)
	}
}

// waiting moves a task that is not over to input_required while its call
// waits for the client (on), and back to working once no request of it
// waits any more.
func (t *task) waiting(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if on {
		t.asking++
	} else {
		t.asking--
	}
	if mcptask.Terminal(t.status) {
		return
	}
	t.status, t.updated = mcptask.Working, time.Now()
	if t.asking > 0 {
		t.status = mcptask.InputRequired
	}
}

// progressed makes a progress report of the task's call its status
// message, so that a client that polls (over HTTP, the notifications of a
// request already answered may have nowhere to go) sees it.
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
	defer t.mu.Unlock()
	if !mcptask.Terminal(t.status) && msg != t.message {
		t.message, t.updated = msg, time.Now()
	}
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

// wire returns the task's state as the protocol gives it.
func (t *task) wire(poll time.Duration) mcptask.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	ttl := t.ttl.Milliseconds()
	w := mcptask.Task{
		TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: mcptask.Time(t.created), LastUpdatedAt: mcptask.Time(t.updated), TTL: &ttl,
	}
	if !mcptask.Terminal(t.status) {
		w.PollInterval = poll.Milliseconds()
	}
	return w
}

// taskCalls is the receiving middleware of tasks: it serves the
// task-augmented tools/call of the tools that may run as tasks, refuses
// the plain calls of those that must, and tells clients that the server
// has tasks (initialize) and which tools may run as them (tools/list).
func (s *Server) taskCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if init, ok := res.(*mcp.InitializeResult); ok && err == nil {
				return withTaskCapability(init), nil
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return withExecution(list), nil
			}
			return res, err
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
		switch {
		case !augmented && support == tool.TaskRequired:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("the tool %q runs as a task only: call it with a task parameter (its execution.taskSupport is \"required\")", call.Params.Name)}
		case !augmented:
			return next(ctx, method, req)
		case support == nil || support == tool.TaskForbidden:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("the tool %q does not run as a task: call it without a task parameter", call.Params.Name)}
		case call.Session == nil || ctx.Value(httpRequestKey{}) != nil:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "tasks need a session, and a stateless server has none: call the tool without a task parameter"}
		}
		return s.startTask(ctx, next, call, s.tasks.ttlOf(asked))
	}
}

// startTask runs a task-augmented call in the background, bound to its
// session, and answers with the task.
func (s *Server) startTask(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest, ttl time.Duration) (mcp.Result, error) {
	st := s.tasks
	// The call outlives its request, and ends with its task: cancelled,
	// expired, or its session ended.
	run, cancel := context.WithCancel(unrelated{context.WithoutCancel(ctx)})
	t, err := st.add(call.Session, ttl, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	related := map[string]any{"taskId": t.id}
	run = context.WithValue(run, taskKey{}, t)
	go func() {
		defer st.unref(call.Session, t)
		defer cancel()
		res, err := next(run, "tools/call", call)
		if err != nil {
			t.finish(mcptask.Failed, err.Error(), nil, err)
			return
		}
		result, _ := res.(*mcp.CallToolResult)
		if result == nil {
			t.finish(mcptask.Failed, "the call answered no result", nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call answered no result"})
			return
		}
		if result.Meta == nil {
			result.Meta = mcp.Meta{}
		}
		result.Meta[mcptask.RelatedMeta] = related
		data, err := json.Marshal(result)
		msg := ""
		switch {
		case err != nil:
		case len(data) > st.opts.MaxResultBytes:
			msg = fmt.Sprintf("the result of the tool %q is %d bytes, over the limit of %d bytes a task holds", call.Params.Name, len(data), st.opts.MaxResultBytes)
		case !st.hold(len(data)):
			msg = fmt.Sprintf("the result of the tool %q is %d bytes, more than the server can hold now (its tasks hold %d bytes of results at most); try again later", call.Params.Name, len(data), st.opts.MaxHeldResultBytes)
		}
		if msg != "" {
			data, err = json.Marshal(&mcp.CallToolResult{Meta: mcp.Meta{mcptask.RelatedMeta: related}, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true})
			result.IsError = true
			st.held.Add(int64(len(data))) // small, and given back as any other
		}
		if err != nil {
			t.finish(mcptask.Failed, err.Error(), nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
			return
		}
		status, message := mcptask.Completed, ""
		if result.IsError {
			status, message = mcptask.Failed, "The tool reported an error; tasks/result has it."
		}
		if !t.finish(status, message, data, nil) {
			st.held.Add(-int64(len(data))) // the task ended first: nothing held
		}
	}()
	return &mcptask.CreateResult{Task: t.wire(st.opts.PollInterval)}, nil
}

// unrelated is a task's context: the request's values, but for the SDK's
// tie to the request, under which the SDK's streamable HTTP server sends
// a message on the request's own stream — closed once the task is
// answered, so that the call's progress and its requests to the client
// would be dropped. Without it they go on the session's standalone
// stream. The SDK does not export the key, so it is known by its type's
// name; should that change, TestTaskAsks fails over HTTP.
type unrelated struct{ context.Context }

func (u unrelated) Value(key any) any {
	if t := reflect.TypeOf(key); t != nil && t.Name() == "idContextKey" && t.PkgPath() == "github.com/modelcontextprotocol/go-sdk/mcp" {
		return nil
	}
	return u.Context.Value(key)
}

// addTaskMethods serves tasks/get, tasks/result, tasks/cancel and
// tasks/list, each over the calling session's tasks only.
func (s *Server) addTaskMethods() {
	st := s.tasks
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.TaskResult, error) {
		t, err := st.lookup(ss, p.TaskID)
		if err != nil {
			return nil, err
		}
		return &mcptask.TaskResult{Task: t.wire(st.opts.PollInterval)}, nil
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodResult, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.RawResult, error) {
		t, err := st.lookup(ss, p.TaskID)
		if err != nil {
			return nil, err
		}
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		switch {
		case t.err != nil:
			return nil, t.err
		case t.result != nil:
			return &mcptask.RawResult{JSON: t.result}, nil
		}
		res := &mcp.CallToolResult{
			Meta:    mcp.Meta{mcptask.RelatedMeta: map[string]any{"taskId": t.id}},
			Content: []mcp.Content{&mcp.TextContent{Text: cmp.Or(t.message, "The task was cancelled.")}},
			IsError: true,
		}
		data, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		return &mcptask.RawResult{JSON: data}, nil
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodCancel, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.IDParams) (*mcptask.TaskResult, error) {
		t, err := st.lookup(ss, p.TaskID)
		if err != nil {
			return nil, err
		}
		if !t.finish(mcptask.Cancelled, "The task was cancelled by request.", nil, nil) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the task has already ended"}
		}
		t.cancel()
		return &mcptask.TaskResult{Task: t.wire(st.opts.PollInterval)}, nil
	}))
	must(mcp.AddReceivingCustomMethod(s.mcp, mcptask.MethodList, func(ctx context.Context, ss *mcp.ServerSession, p *mcptask.ListParams) (*mcptask.ListResult, error) {
		if p != nil && p.Cursor != "" {
			// The tasks of a session fit one page (MaxSessionTasks), so no
			// cursor was handed out.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
		res := &mcptask.ListResult{Tasks: []mcptask.Task{}}
		st.mu.Lock()
		tasks := st.sessions[ss]
		st.mu.Unlock()
		if tasks == nil {
			return res, nil
		}
		tasks.mu.Lock()
		list := make([]*task, 0, len(tasks.tasks))
		for _, t := range tasks.tasks {
			list = append(list, t)
		}
		tasks.mu.Unlock()
		slices.SortFunc(list, func(a, b *task) int { return cmp.Or(a.created.Compare(b.created), strings.Compare(a.id, b.id)) })
		for _, t := range list {
			res.Tasks = append(res.Tasks, t.wire(st.opts.PollInterval))
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
