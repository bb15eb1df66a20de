package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// From protocol revision 2026-07-28 tasks are an extension
// (io.modelcontextprotocol/tasks, SEP-2663): the client declares it in
// the capabilities of each tools/call and tasks/* request, and the server
// decides whether a call becomes a task, answering with the task itself
// (resultType "task") in place of the call's result. The client then
// polls tasks/get, which has the result inline once the task ends, and
// the server's requests (elicitation, sampling) as the task's
// inputRequests while it waits for them, which the client answers with
// tasks/update.

// The bounds on polling a task of the extension, beside minTaskPoll,
// maxTaskPolls and cancelTaskTimeout.
const (
	// maxExtTaskPoll is the longest wait between two tasks/get: a longer
	// pollIntervalMs is taken as this.
	maxExtTaskPoll = time.Minute
	// maxExtBackoff is as long as the wait grows while a task goes on
	// unchanged, unless the server's interval is longer.
	maxExtBackoff = 5 * time.Second
	// maxTaskInputs is how many of the server's requests one task may
	// have the client answer.
	maxTaskInputs = 64
	// maxTTLMs is the longest ttlMs taken as it is (some thirty years),
	// within what a Duration holds.
	maxTTLMs = 1 << 40
)

var (
	errTaskExpired     = errors.New("the task did not end within its ttl")
	errTooManyInputs   = fmt.Errorf("the server asked more than %d questions through the task", maxTaskInputs)
	errUnknownStatus   = errors.New("the task has a status the protocol does not define")
	errNoInlineOutcome = errors.New("the task ended with neither a result nor an error")
)

// extension reports whether a session speaks the revision on which tasks
// are the extension's.
func extension(session *mcp.ClientSession) bool {
	res := session.InitializeResult()
	return res != nil && res.ProtocolVersion >= mcptask.ExtensionFrom
}

// declaringTasks is a sending middleware: on the extension's revision, a
// tools/call and the extension's tasks/* declare the extension in the
// request's capabilities, which the SDK has put in its _meta.
func declaringTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call", mcptask.MethodGet, mcptask.MethodUpdate, mcptask.MethodCancel:
		default:
			return next(ctx, method, req)
		}
		cs, _ := req.GetSession().(*mcp.ClientSession)
		if p := req.GetParams(); p != nil && cs != nil && extension(cs) {
			if meta := p.GetMeta(); meta != nil {
				p.SetMeta(mcptask.Declare(meta))
			}
		}
		return next(ctx, method, req)
	}
}

// callExtension calls a tool on a server of the extension's revision: a
// plain result is the call's; a task is awaited, and its result, or its
// error, is the call's as a plain call's would be. A tool that requires a
// task is called as createTask calls one, so that a task created as the
// call ends is known and cancelled; any other is called within ctx.
// Close waits for the answer to a call that mayBeTask (beginTask).
func (c *Client) callExtension(ctx context.Context, session *mcp.ClientSession, params *mcp.CallToolParams, asTask, mayBeTask bool) (*mcp.CallToolResult, error) {
	creation := func() {}
	var err error
	if mayBeTask {
		if creation, err = c.beginTask(); err != nil {
			return nil, err
		}
	}
	defer creation()
	var res *mcp.CallToolResult
	if asTask {
		res, err = createTask(ctx, session, params, nil)
	} else {
		res, err = session.CallTool(ctx, params)
	}
	if err != nil {
		return nil, err
	}
	raw, ok := res.Meta[mcptask.DetailedMeta]
	if !ok {
		return res, nil
	}
	var task mcptask.DetailedTask
	data, err := json.Marshal(raw)
	if err != nil || json.Unmarshal(data, &task) != nil || task.TaskID == "" {
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
	res, err = c.awaitExtension(ctx, session, task)
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

// awaitExtension polls a task of the extension until it ends, and returns
// its result. Its status messages are the call's progress, and the
// server's requests among its inputRequests are answered (answerInput)
// with tasks/update, each once. It waits the server's pollIntervalMs
// before each tasks/get (minTaskPoll when it suggests none or less, at
// most maxExtTaskPoll); while the task goes on unchanged, each wait is
// half again as long as the one before, up to maxExtBackoff or the
// server's interval when that is longer. It gives up, cancelling the
// task, once the task's ttlMs has passed since the client read the task,
// or after maxTaskPolls.
func (c *Client) awaitExtension(ctx context.Context, session *mcp.ClientSession, task mcptask.DetailedTask) (*mcp.CallToolResult, error) {
	start := c.now()
	said := ""
	answered := map[string]bool{}
	var wait time.Duration
	for polls := 0; ; polls++ {
		if task.StatusMessage != "" && task.StatusMessage != said {
			said = task.StatusMessage
			tool.Progress(ctx, tool.ProgressReport{Message: cutText(said, maxStatusBytes)})
			wait = 0 // a change: the server's interval again
		}
		switch task.Status {
		case mcptask.Completed:
			if len(task.Result) == 0 {
				return nil, errNoInlineOutcome
			}
			var res mcp.CallToolResult
			if err := json.Unmarshal(task.Result, &res); err != nil {
				return nil, fmt.Errorf("the result of the task: %w", err)
			}
			return &res, nil
		case mcptask.Failed:
			werr := &jsonrpc.Error{}
			if len(task.Error) == 0 || json.Unmarshal(task.Error, werr) != nil {
				werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: cutText(task.StatusMessage, maxStatusBytes)}
			}
			werr.Message = cutText(werr.Message, maxStatusBytes)
			// As the SDK reports a call's JSON-RPC error.
			return nil, fmt.Errorf("calling %q: %w", "tools/call", werr)
		case mcptask.Cancelled:
			return nil, fmt.Errorf("%w: %s", errTaskCancelled, cutText(task.StatusMessage, maxStatusBytes))
		case mcptask.InputRequired:
			asked, err := c.answerInputs(ctx, session, task, answered)
			if err != nil {
				if ctx.Err() == nil {
					c.cancelTask(ctx, session, task.TaskID)
				}
				return nil, err
			}
			if asked {
				wait = 0
			}
		case mcptask.Working:
		default:
			c.cancelTask(ctx, session, task.TaskID)
			return nil, fmt.Errorf("%w: %q", errUnknownStatus, cutText(task.Status, maxStatusBytes))
		}
		if polls >= maxTaskPolls {
			c.cancelTask(ctx, session, task.TaskID)
			return nil, errTooManyPolls
		}
		wait = nextPoll(wait, task.PollIntervalMs)
		if task.TTLMs != nil {
			// Bounded in milliseconds first, as the interval is.
			left := start.Add(time.Duration(min(max(*task.TTLMs, 0), maxTTLMs)) * time.Millisecond).Sub(c.now())
			if left <= 0 {
				c.cancelTask(ctx, session, task.TaskID)
				return nil, fmt.Errorf("%w of %d ms", errTaskExpired, *task.TTLMs)
			}
			wait = min(wait, left) // the last poll comes at the ttl
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
		got, err := mcp.CallCustomMethod[*mcptask.IDParams, *mcptask.GetResult](ctx, session, mcptask.MethodGet, &mcptask.IDParams{TaskID: task.TaskID})
		if err != nil {
			return nil, err
		}
		if got.TaskID != task.TaskID {
			return nil, fmt.Errorf("tasks/get for the task %q answered for the task %q", cutText(task.TaskID, maxStatusBytes), cutText(got.TaskID, maxStatusBytes))
		}
		if got.Status != task.Status {
			wait = 0
		}
		task = got.Detailed()
	}
}

// nextPoll returns the wait before the next tasks/get, given the last one
// (zero for none since a change) and the server's interval in
// milliseconds (zero or less for none): the server's interval, within
// minTaskPoll and maxExtTaskPoll, and then half again as long each time,
// up to maxExtBackoff or the server's interval when that is longer.
func nextPoll(last time.Duration, intervalMs int64) time.Duration {
	// Bounded in milliseconds first: a huge interval would overflow a
	// Duration into a short or negative one.
	base := min(max(time.Duration(min(intervalMs, maxExtTaskPoll.Milliseconds()))*time.Millisecond, minTaskPoll), maxExtTaskPoll)
	if last < base {
		return base
	}
	return max(min(last+last/2, max(maxExtBackoff, base)), base)
}

// answerInputs answers the requests among a task's inputRequests that the
// client has not answered yet, each with tasks/update once answered, and
// records them in answered. It reports whether there were any.
func (c *Client) answerInputs(ctx context.Context, session *mcp.ClientSession, task mcptask.DetailedTask, answered map[string]bool) (bool, error) {
	asked := false
	for key, req := range task.InputRequests {
		if answered[key] {
			continue // Task Update Requests: a key is asked again until the server shows the answer
		}
		if len(answered) >= maxTaskInputs {
			return asked, errTooManyInputs
		}
		asked = true
		answered[key] = true
		data, err := c.answerInput(ctx, session, req)
		if err != nil {
			return asked, err
		}
		p := &mcptask.UpdateParams{TaskID: task.TaskID, InputResponses: map[string]json.RawMessage{key: data}}
		if _, err := mcp.CallCustomMethod[*mcptask.UpdateParams, *mcptask.Ack](ctx, session, mcptask.MethodUpdate, p); err != nil {
			return asked, err
		}
	}
	return asked, nil
}

// answerInput returns the client's answer to one of a task's
// inputRequests ({"method": ..., "params": ...}), as the request would
// get it had the server sent it on its own: Options.Elicit answers
// elicitation/create, with the form's answer checked against its schema
// as the SDK checks it, and Options.Sample sampling/createMessage, each
// with the call's ctx, since the request is the call's; roots/list gets
// no roots. A request the client did not declare, or does not know, ends
// the call, as its own request would have been refused.
func (c *Client) answerInput(ctx context.Context, session *mcp.ClientSession, raw json.RawMessage) (json.RawMessage, error) {
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("the server's request in the task does not read: %w", err)
	}
	var res any
	switch req.Method {
	case "elicitation/create":
		var p mcp.ElicitParams
		if c.opts.Elicit == nil {
			return nil, errors.New("the server asked through the task for elicitation, which the client did not declare")
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, fmt.Errorf("the server's elicitation in the task does not read: %w", err)
		}
		got, err := c.elicitInput(ctx, session, &p)
		if err != nil {
			return nil, err
		}
		res = got
	case "sampling/createMessage":
		var p mcp.CreateMessageParams
		if c.opts.Sample == nil {
			return nil, errors.New("the server asked through the task for sampling, which the client did not declare")
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, fmt.Errorf("the server's sampling request in the task does not read: %w", err)
		}
		got, err := c.opts.Sample(ctx, &mcp.CreateMessageRequest{Session: session, Params: &p})
		if err != nil {
			return nil, err
		}
		res = got
	case "roots/list":
		res = &mcp.ListRootsResult{Roots: []*mcp.Root{}}
	default:
		return nil, fmt.Errorf("the server asked through the task with %q, which the client does not answer", cutText(req.Method, maxStatusBytes))
	}
	return json.Marshal(res)
}

// elicitInput passes an elicitation of a task to Options.Elicit, and
// checks the answer as the SDK checks that of a request the server sends
// on its own: a form's mode and schema, and an accepted form's content
// against its schema, with the schema's defaults applied.
func (c *Client) elicitInput(ctx context.Context, session *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	req := &mcp.ElicitRequest{Session: session, Params: p}
	switch p.Mode {
	case "", "form":
		if p.URL != "" {
			return nil, errors.New("the server's form elicitation in the task has a URL")
		}
	case "url":
		if p.RequestedSchema != nil || p.URL == "" {
			return nil, errors.New("the server's URL elicitation in the task has a schema, or no URL")
		}
		return c.opts.Elicit(ctx, req)
	default:
		return nil, fmt.Errorf("the server's elicitation in the task has the mode %q, which the client does not know", cutText(p.Mode, maxStatusBytes))
	}
	var schema *jsonschema.Schema
	if p.RequestedSchema != nil {
		data, err := json.Marshal(p.RequestedSchema)
		if err == nil {
			err = json.Unmarshal(data, &schema)
		}
		if err != nil {
			return nil, fmt.Errorf("the schema of the server's elicitation in the task: %w", err)
		}
	}
	res, err := c.opts.Elicit(ctx, req)
	if err != nil || res == nil || res.Action != "accept" || schema == nil || res.Content == nil {
		return res, err
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the schema of the server's elicitation in the task: %w", err)
	}
	if err := resolved.Validate(res.Content); err != nil {
		return nil, fmt.Errorf("the answer to the server's elicitation in the task does not satisfy its schema: %w", err)
	}
	if err := resolved.ApplyDefaults(&res.Content); err != nil {
		return nil, fmt.Errorf("the answer to the server's elicitation in the task: %w", err)
	}
	return res, nil
}

// sleepCtx waits d, or until ctx ends, when it returns ctx's error: the
// Client's sleep, but in tests.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// nameTask sets the Mcp-Name header of a tasks/get, tasks/update or
// tasks/cancel over streamable HTTP to the task's ID, as the extension
// asks (Streamable HTTP: Routing Headers), for load balancers to route
// on: the SDK names the tool of a tools/call, and nothing of tasks/*. A
// value the header cannot carry as it is goes in Base64 (SEP-2243). sent
// is the message r carries.
func nameTask(r *http.Request, sent *mcpwire.Message) *http.Request {
	switch r.Header.Get("Mcp-Method") {
	case mcptask.MethodGet, mcptask.MethodUpdate, mcptask.MethodCancel:
	default:
		return r
	}
	if r.Header.Get("Mcp-Name") != "" || sent == nil {
		return r
	}
	req := sent.Request(mcptask.MethodGet, mcptask.MethodUpdate, mcptask.MethodCancel)
	if req == nil {
		return r
	}
	var params struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(req.Params, &params) != nil || params.TaskID == "" {
		return r
	}
	r = r.Clone(r.Context())
	r.Header.Set("Mcp-Name", headerValue(params.TaskID))
	return r
}

// headerValue returns s as an HTTP header carries it (SEP-2243): as it
// is, or, when it has characters outside printable ASCII, spaces at
// either end, or the form of an encoded value, Base64 encoded.
func headerValue(s string) string {
	const prefix, suffix = "=?base64?", "?="
	plain := !(len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t'))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain && !(len(s) >= len(prefix)+len(suffix) && s[:len(prefix)] == prefix && s[len(s)-len(suffix):] == suffix) {
		return s
	}
	return prefix + base64.StdEncoding.EncodeToString([]byte(s)) + suffix
}
