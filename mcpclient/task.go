package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool whose execution.taskSupport is "required" is called as an MCP
// task: the tools/call carries a task parameter, the server answers at
// once with a task, and the client polls it (tasks/get) until it ends,
// then fetches its result (tasks/result), which reads as any other call's.
// A tool whose task support is "optional" is called plainly.

// The bounds on polling a task.
const (
	// minTaskPoll and maxTaskPoll bound the wait between two tasks/get,
	// whatever pollInterval the server suggests; defaultTaskPoll is the
	// wait when it suggests none.
	minTaskPoll     = 100 * time.Millisecond
	maxTaskPoll     = 10 * time.Second
	defaultTaskPoll = time.Second
	// maxTaskPolls is how many times a task is polled before the call
	// gives up and cancels it: a bound of its own for a call without a
	// timeout (a negative Options.Timeout), else the timeout comes first.
	maxTaskPolls = 10_000
	// cancelTaskTimeout bounds the tasks/cancel sent when a call ends
	// before its task.
	cancelTaskTimeout = 5 * time.Second
	// maxStatusBytes bounds a task's status message passed on as
	// progress: a server may send a new one on every poll.
	maxStatusBytes = 1024
	// taskTTLMargin is how long past the call's deadline the task is
	// asked to be kept, so that its result outlives the last poll.
	taskTTLMargin = time.Minute
	// closeCancels is how many tasks/cancel Close has under way at once.
	closeCancels = 16
)

var (
	errNoTask        = errors.New("the server answered a call made as a task with no task")
	errTooManyPolls  = fmt.Errorf("the task did not end within %d polls", maxTaskPolls)
	errTaskCancelled = errors.New("the server cancelled the task")
	// errClientClosed is the error of a call whose task Close cancelled,
	// and errClientClosing that of a call made once Close had begun: the
	// CallError of either matches ErrDisconnected.
	errClientClosed  = fmt.Errorf("the client was closed while the call's task ran, and the task was cancelled: %w", mcp.ErrConnectionClosed)
	errClientClosing = fmt.Errorf("the client is closing, so the call was not made: %w", mcp.ErrConnectionClosed)
)

// taskKey is the context key under which callTool asks taskSending to send
// a tools/call as a task, with this task parameter.
type taskKey struct{}

// addTaskMethods declares the task methods the client sends, and the
// middleware that adds the task parameter to a tools/call.
func (c *Client) addTaskMethods() {
	for _, err := range []error{
		mcp.AddSendingCustomMethod[*mcptask.IDParams, *mcptask.GetResult](c.client, mcptask.MethodGet),
		mcp.AddSendingCustomMethod[*mcptask.IDParams, *mcp.CallToolResult](c.client, mcptask.MethodResult),
		mcp.AddSendingCustomMethod[*mcptask.IDParams, *mcptask.TaskResult](c.client, mcptask.MethodCancel),
		mcp.AddSendingCustomMethod[*mcptask.UpdateParams, *mcptask.Ack](c.client, mcptask.MethodUpdate),
	} {
		if err != nil {
			panic(err) // the SDK took a task method for its own: a mistake at build time
		}
	}
	c.client.AddSendingMiddleware(taskSending, declaringTasks)
}

// taskSending is a sending middleware: a tools/call whose context asks for
// a task goes out with the task parameter, which the SDK's CallToolParams
// has no field for.
func taskSending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		task, ok := ctx.Value(taskKey{}).(*mcptask.Metadata)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParams)
		cs, _ := req.GetSession().(*mcp.ClientSession)
		if !ok || cs == nil {
			return next(ctx, method, req)
		}
		args, err := json.Marshal(p.Arguments)
		if err != nil {
			return nil, err
		}
		params := &mcptask.CallParams{ParamsBase: mcp.ParamsBase{Meta: p.Meta}, Name: p.Name, Arguments: args, Task: *task}
		return next(ctx, method, &mcp.ClientRequest[*mcptask.CallParams]{Session: cs, Params: params})
	}
}

// callTool calls a tool on the server, as a task when asTask: it returns
// the tool's result either way. mayBeTask says that the server may answer
// with a task though the call is not made as one (an optional tool, from
// 2026-07-28).
func (c *Client) callTool(ctx context.Context, params *mcp.CallToolParams, asTask, mayBeTask bool) (*mcp.CallToolResult, error) {
	session := c.session.Load()
	if extension(session) {
		return c.callExtension(ctx, session, params, asTask, mayBeTask || asTask)
	}
	if !asTask {
		return session.CallTool(ctx, params)
	}
	meta := &mcptask.Metadata{}
	if deadline, ok := ctx.Deadline(); ok {
		ttl := (time.Until(deadline) + taskTTLMargin).Milliseconds()
		meta.TTL = &ttl
	}
	token, _ := params.GetProgressToken().(string)
	creation, err := c.beginTask()
	if err != nil {
		return nil, err
	}
	defer creation()
	c.creatingTask()
	created, err := createTask(ctx, session, params, meta)
	var task mcptask.Task
	ok := false
	if err == nil {
		task, ok = createdTask(created)
	}
	if !ok {
		task.TaskID = ""
	}
	defer c.taskCreated(task.TaskID, token)()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNoTask
	}
	if ctx.Err() != nil {
		c.cancelTask(ctx, session, task.TaskID)
		return nil, ctx.Err()
	}
	release, err := c.holdTask(ctx, session, task.TaskID, creation)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := c.awaitTask(ctx, session, task)
	if closedUnder(err) && c.isClosed() {
		return nil, errClientClosed
	}
	if err != nil && ctx.Err() != nil {
		// The call ended before its task: the task is not wanted any more.
		c.cancelTask(ctx, session, task.TaskID)
		return nil, ctx.Err()
	}
	return res, err
}

// createTask sends a tools/call as a task: with the task parameter meta
// (SEP-1686), or, when meta is nil, as the extension's server decides.
// The call may end while its answer is on the way, and then the task,
// once known, must be cancelled: so the request outlives the call by
// cancelTaskTimeout at most.
func createTask(ctx context.Context, session *mcp.ClientSession, params *mcp.CallToolParams, meta *mcptask.Metadata) (*mcp.CallToolResult, error) {
	rctx := context.WithoutCancel(ctx)
	if meta != nil {
		rctx = context.WithValue(rctx, taskKey{}, meta)
	}
	rctx, cancel := context.WithCancel(rctx)
	defer cancel()
	defer context.AfterFunc(ctx, func() {
		grace := time.NewTimer(cancelTaskTimeout)
		defer grace.Stop()
		select {
		case <-grace.C:
			cancel()
		case <-rctx.Done(): // answered meanwhile
		}
	})()
	res, err := session.CallTool(rctx, params)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, err
}

// createdTask returns the task of a CreateTaskResult, which the client's
// transport carried in _meta (see mcptask.LiftResult).
func createdTask(res *mcp.CallToolResult) (mcptask.Task, bool) {
	var task mcptask.Task
	raw, ok := res.Meta[mcptask.CreatedMeta]
	if !ok {
		return task, false
	}
	data, err := json.Marshal(raw)
	if err != nil || json.Unmarshal(data, &task) != nil || task.TaskID == "" {
		return task, false
	}
	return task, true
}

// awaitTask polls a task until it ends, or asks for input, and returns its
// result. Its status messages are the call's progress.
func (c *Client) awaitTask(ctx context.Context, session *mcp.ClientSession, task mcptask.Task) (*mcp.CallToolResult, error) {
	said := ""
	for polls := 0; !mcptask.Terminal(task.Status) && task.Status != mcptask.InputRequired; polls++ {
		if task.StatusMessage != "" && task.StatusMessage != said {
			said = task.StatusMessage
			tool.Progress(ctx, tool.ProgressReport{Message: cutText(said, maxStatusBytes)})
		}
		if polls >= maxTaskPolls {
			c.cancelTask(ctx, session, task.TaskID)
			return nil, errTooManyPolls
		}
		wait := defaultTaskPoll
		if task.PollInterval > 0 {
			// Bounded in milliseconds first: a huge interval would
			// overflow a Duration into a short or negative one.
			wait = min(max(time.Duration(min(task.PollInterval, maxTaskPoll.Milliseconds()))*time.Millisecond, minTaskPoll), maxTaskPoll)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		got, err := mcp.CallCustomMethod[*mcptask.IDParams, *mcptask.GetResult](ctx, session, mcptask.MethodGet, &mcptask.IDParams{TaskID: task.TaskID})
		if err != nil {
			return nil, err
		}
		if got.TaskID != task.TaskID {
			return nil, fmt.Errorf("tasks/get for the task %q answered for the task %q", cutText(task.TaskID, maxStatusBytes), cutText(got.TaskID, maxStatusBytes))
		}
		task = got.Task
	}
	// Terminal, or waiting for input that tasks/result lets the server ask
	// for (elicitation reaches Options.Elicit): tasks/result blocks until
	// the task ends.
	res, err := mcp.CallCustomMethod[*mcptask.IDParams, *mcp.CallToolResult](ctx, session, mcptask.MethodResult, &mcptask.IDParams{TaskID: task.TaskID})
	if err != nil && task.Status == mcptask.Cancelled && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: %s", errTaskCancelled, cutText(task.StatusMessage, maxStatusBytes))
	}
	if err == nil {
		// One session carries the calls of all of a client's callers: a
		// result that says it is another task's is not this call's.
		if related, ok := res.Meta[mcptask.RelatedMeta].(map[string]any); ok && related["taskId"] != task.TaskID {
			return nil, fmt.Errorf("tasks/result for the task %q answered for the task %q", cutText(task.TaskID, maxStatusBytes), cutText(fmt.Sprint(related["taskId"]), maxStatusBytes))
		}
	}
	return res, err
}

// heldTask is a task of the server that a call under way awaits.
type heldTask struct {
	session *mcp.ClientSession
	id      string
}

// beginTask counts a call whose answer may be a task, until the returned
// end is called (holdTask calls it): Close waits for such calls, so that
// a task created as it begins is cancelled too. Once Close has begun, it
// returns errClientClosing and the call is not made.
func (c *Client) beginTask() (end func(), err error) {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if c.closed {
		return nil, errClientClosing
	}
	c.creations.Add(1)
	return sync.OnceFunc(c.creations.Done), nil
}

// holdTask records that a call awaits the task id of session, until
// release is called, so that Close cancels it, and ends the call's
// creation (beginTask). Once Close has begun, it cancels the task itself
// and returns errClientClosed.
func (c *Client) holdTask(ctx context.Context, session *mcp.ClientSession, id string, creation func()) (release func(), err error) {
	defer creation()
	h := heldTask{session, id}
	c.heldMu.Lock()
	if c.closed {
		c.heldMu.Unlock()
		c.cancelTask(ctx, session, id)
		return nil, errClientClosed
	}
	c.held[h]++
	c.heldMu.Unlock()
	return func() {
		c.heldMu.Lock()
		if c.held[h]--; c.held[h] <= 0 {
			delete(c.held, h)
		}
		c.heldMu.Unlock()
	}, nil
}

// closedUnder reports whether err is what awaiting a task returns when
// Close cancels it, or ends the session, under the call: the task read
// cancelled, or the connection closed.
func closedUnder(err error) bool {
	return err != nil && (errors.Is(err, errTaskCancelled) || disconnected(err))
}

// isClosed reports whether Close has begun.
func (c *Client) isClosed() bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	return c.closed
}

// cancelHeld, as Close begins, cancels the tasks that calls under way
// await, closeCancels at once, and waits for the calls whose answer may
// still be a task, which cancel theirs: cancelTaskTimeout in all. The
// tasks not cancelled by then are left to their ttl.
func (c *Client) cancelHeld() {
	c.heldMu.Lock()
	c.closed = true
	held := slices.Collect(maps.Keys(c.held))
	c.heldMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cancelTaskTimeout)
	defer cancel()
	created := make(chan struct{})
	go func() { c.creations.Wait(); close(created) }()
	var wg sync.WaitGroup
	slots := make(chan struct{}, closeCancels)
	for _, h := range held {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			c.cancelTaskWithin(ctx, h.session, h.id)
		})
	}
	select {
	case <-created:
	case <-ctx.Done():
	}
	wg.Wait()
}

// cancelTask asks the server to cancel a task, within cancelTaskTimeout,
// on a context of its own: the call's has ended.
func (c *Client) cancelTask(ctx context.Context, session *mcp.ClientSession, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTaskTimeout)
	defer cancel()
	c.cancelTaskWithin(ctx, session, id)
}

// cancelTaskWithin asks the server to cancel a task within ctx.
func (c *Client) cancelTaskWithin(ctx context.Context, session *mcp.ClientSession, id string) {
	if _, err := mcp.CallCustomMethod[*mcptask.IDParams, *mcptask.TaskResult](ctx, session, mcptask.MethodCancel, &mcptask.IDParams{TaskID: id}); err != nil {
		c.logger.DebugContext(ctx, "mcpclient: cancelling a task failed", "server", c.name, "task", id, "err", err)
	}
}

// creatingTask counts a task creation under way, which taskCreated ends:
// until then a server's request may name a task the client does not know
// yet (taskCall).
func (c *Client) creatingTask() {
	c.progressMu.Lock()
	c.creating++
	c.progressMu.Unlock()
}

// taskCreated ends a task creation that creatingTask counted. The task id,
// unless empty, then names the call whose progress token is token, until
// the returned forget is called, when the call is over.
func (c *Client) taskCreated(id, token string) (forget func()) {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	c.creating--
	close(c.created) // wakes the requests that wait for the task (taskCall)
	c.created = make(chan struct{})
	if id == "" || token == "" {
		return func() {}
	}
	c.tasks[id] = token
	return func() {
		c.progressMu.Lock()
		defer c.progressMu.Unlock()
		if c.tasks[id] == token { // a server may give two calls one ID: the later one's stays
			delete(c.tasks, id)
		}
	}
}

// relatedTask returns the ID of the task a server's request says it is
// for (_meta io.modelcontextprotocol/related-task), or "".
func relatedTask(meta map[string]any) string {
	related, _ := meta[mcptask.RelatedMeta].(map[string]any)
	id, _ := related["taskId"].(string)
	return id
}

// taskToken returns the progress token of the call under way that
// created the task id, or "".
func (c *Client) taskToken(id string) string {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	return c.tasks[id]
}

// taskCall returns the call under way that created the task id, or nil
// when no call did. A task may ask before the client has read the answer
// that created it, so while creations are under way an unknown id waits
// for them, within ctx; each creation is bounded by its call's context
// and cancelTaskTimeout.
func (c *Client) taskCall(ctx context.Context, id string) *forwarder {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	for {
		if token, ok := c.tasks[id]; ok || c.creating == 0 {
			return c.progress[token]
		}
		wait := c.created
		c.progressMu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
		}
		c.progressMu.Lock()
		if ctx.Err() != nil {
			return nil
		}
	}
}
