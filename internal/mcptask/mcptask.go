// Package mcptask holds the wire types of MCP tasks (protocol revision
// 2025-11-25) and the rewriting that carries them through the MCP SDK,
// which has no task support of its own: the SDK decodes messages into its
// own types and drops the fields it does not know (a tools/call's task
// parameter, the task of its result, a tool's execution), so the
// transports of mcpserver and mcpclient move those fields into _meta,
// under keys of hands' own, where the SDK keeps them, and back.
package mcptask

import (
	"bytes"
	"encoding/json"
	"maps"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/hands-go/hands/taskstore"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods of tasks.
const (
	MethodGet    = "tasks/get"
	MethodResult = "tasks/result"
	MethodCancel = "tasks/cancel"
	MethodList   = "tasks/list"
)

// The statuses of a task, package taskstore's. Completed, Failed and
// Cancelled are terminal.
const (
	Working       = taskstore.Working
	InputRequired = taskstore.InputRequired
	Completed     = taskstore.Completed
	Failed        = taskstore.Failed
	Cancelled     = taskstore.Cancelled
)

// Terminal reports whether a task in status s has ended.
func Terminal(s string) bool { return taskstore.Terminal(s) }

// RelatedMeta is the _meta key that ties a message to its task, as
// {"taskId": "..."}.
const RelatedMeta = "io.modelcontextprotocol/related-task"

// The _meta keys under which the transports carry what the SDK would
// drop. They are hands' own; a peer that sends them itself gets what it
// would get by sending the fields they stand for.
const (
	// ParamMeta carries a tools/call's task parameter ({"ttl": ms}).
	ParamMeta = "com.github.hands-go/task"
	// CreatedMeta carries the task of a CreateTaskResult.
	CreatedMeta = "com.github.hands-go/created-task"
	// ExecutionMeta carries a listed tool's execution
	// ({"taskSupport": "required"}).
	ExecutionMeta = "com.github.hands-go/execution"
	// DetailedMeta carries the extension's CreateTaskResult (resultType
	// "task", the task's fields inline), whole but for its _meta.
	DetailedMeta = "com.github.hands-go/detailed-task"
)

// A Task is the state of one task, as tasks/get, tasks/cancel and
// tasks/list give it.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is how long, in milliseconds from its creation, the task is
	// kept; nil for as long as the receiver likes.
	TTL *int64 `json:"ttl"`
	// PollInterval is how many milliseconds the receiver suggests between
	// two tasks/get; zero for no suggestion.
	PollInterval int64 `json:"pollInterval,omitempty"`
}

// Time formats t as a task's timestamps do (RFC 3339, in UTC).
func Time(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Metadata is a tools/call's task parameter.
type Metadata struct {
	// TTL is how long, in milliseconds, the requestor asks the task to be
	// kept; nil leaves it to the receiver.
	TTL *int64 `json:"ttl,omitempty"`
}

// IDParams are the params of tasks/get, tasks/result and tasks/cancel.
type IDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// ListParams are the params of tasks/list.
type ListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// TaskResult is the result of tasks/get and tasks/cancel.
type TaskResult struct {
	mcp.ResultBase
	Task
}

// ListResult is the result of tasks/list.
type ListResult struct {
	mcp.ResultBase
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// CreateResult is the result of a task-augmented tools/call.
type CreateResult struct {
	mcp.ResultBase
	Task Task `json:"task"`
}

// CallParams are the params of a task-augmented tools/call, as a client
// sends them.
type CallParams struct {
	mcp.ParamsBase
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Task      Metadata        `json:"task"`
}

// RawResult is a result whose JSON is already written. Its Meta, which
// the SDK sets on the results it sends (the server's serverInfo, from
// protocol 2026-07-28: SEP-2575), is added to the JSON's _meta.
type RawResult struct {
	mcp.ResultBase
	JSON json.RawMessage
}

// MarshalJSON returns r.JSON, with each member of r.Meta that its _meta
// does not have already.
func (r *RawResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) == 0 {
		return r.JSON, nil
	}
	var o object
	if err := jsonv2.Unmarshal(r.JSON, &o); err != nil {
		return nil, err
	}
	meta := object{}
	if m, ok := o["_meta"]; ok {
		if err := jsonv2.Unmarshal(m, &meta); err != nil {
			return nil, err
		}
	}
	for k, v := range r.Meta {
		if _, ok := meta[k]; ok {
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		meta[k] = data
	}
	data, err := marshal(meta)
	if err != nil {
		return nil, err
	}
	o["_meta"] = data
	return marshal(o)
}

// An object is a JSON object whose members are kept as written. Objects
// are read and written with JSON v2, which scans once and does not
// escape what it copies; an object with a name twice is not read, and
// is left to the SDK as it came.
type object map[string]jsontext.Value

// move moves the member from of o into o's _meta, under key; it reports
// whether there was one to move.
func (o object) move(from, key string) bool {
	v, ok := o[from]
	if !ok {
		return false
	}
	meta := object{}
	if m, ok := o["_meta"]; ok && jsonv2.Unmarshal(m, &meta) != nil {
		return false // a _meta that is not an object is the SDK's to refuse
	}
	if meta == nil {
		meta = object{}
	}
	meta[key] = v
	data, err := marshal(meta)
	if err != nil {
		return false
	}
	delete(o, from)
	o["_meta"] = data
	return true
}

// unmove moves the member key of o's _meta out to o's member to; it
// reports whether there was one to move.
func (o object) unmove(key, to string) bool {
	m, ok := o["_meta"]
	if !ok {
		return false
	}
	var meta object
	if jsonv2.Unmarshal(m, &meta) != nil {
		return false
	}
	v, ok := meta[key]
	if !ok {
		return false
	}
	delete(meta, key)
	if len(meta) == 0 {
		delete(o, "_meta")
	} else if o["_meta"], _ = marshal(meta); o["_meta"] == nil {
		return false
	}
	o[to] = v
	return true
}

// LiftParams moves the task parameter of a tools/call's params into
// their _meta, under ParamMeta, where the SDK keeps it. Params without
// one come back as they are.
func LiftParams(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return params
	}
	var o object
	if jsonv2.Unmarshal(params, &o) != nil || !o.move("task", ParamMeta) {
		return params
	}
	data, err := marshal(o)
	if err != nil {
		return params
	}
	return data
}

// LiftRequest is LiftParams for one JSON-RPC message as written: a
// tools/call request gets its task parameter lifted; any other message
// comes back as it is. Only a message that holds the bytes "task" (the
// member's name, which LiftParams looks for as written) is parsed: a
// tasks/get's "taskId", or an argument that begins with the word, is
// not.
func LiftRequest(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"task"`)) {
		return msg
	}
	isCall := func(o object) bool {
		var method string
		return jsonv2.Unmarshal(o["method"], &method) == nil && method == "tools/call"
	}
	return liftMember(msg, "params", isCall, LiftParams)
}

// liftMember lifts the member name of the JSON object msg with lift, when
// the object is one that when accepts, and writes the object again if
// that changed it; else msg comes back as it is.
func liftMember(msg []byte, name string, when func(object) bool, lift func(json.RawMessage) json.RawMessage) []byte {
	if !bytes.Contains(msg, []byte(`"task`)) {
		return msg
	}
	var o object
	if jsonv2.Unmarshal(msg, &o) != nil || !when(o) {
		return msg
	}
	v, ok := o[name]
	if !ok {
		return msg
	}
	lifted := lift(json.RawMessage(v))
	if bytes.Equal(lifted, v) {
		return msg
	}
	o[name] = jsontext.Value(lifted)
	data, err := marshal(o)
	if err != nil {
		return msg
	}
	return data
}

// LiftResult moves what the SDK would drop from a result into _meta: the
// task of a CreateTaskResult (under CreatedMeta, with an empty content,
// so that it reads as a CallToolResult), the extension's CreateTaskResult
// (resultType "task": its members under DetailedMeta, likewise), and the
// execution of each tool
// of a tools/list page (under ExecutionMeta). Other results come back as
// they are, and so do the tools' schemas, byte for byte.
func LiftResult(result json.RawMessage) json.RawMessage {
	if !bytes.Contains(result, []byte(`"task`)) { // "task", or "taskSupport" in an execution
		return result
	}
	var o object
	if jsonv2.Unmarshal(result, &o) != nil {
		return result
	}
	changed := false
	if _, content := o["content"]; !content && o.move("task", CreatedMeta) {
		o["content"] = jsontext.Value("[]")
		changed = true
	}
	if _, content := o["content"]; !content && isTaskResult(o) {
		// The extension's CreateTaskResult: the task is the result itself.
		var meta object
		if m, ok := o["_meta"]; ok && jsonv2.Unmarshal(m, &meta) != nil {
			return result // a _meta that is not an object is the SDK's to refuse
		}
		if meta == nil {
			meta = object{}
		}
		task := object{}
		for k, v := range o {
			if k != "_meta" {
				task[k] = v
			}
		}
		data, err := marshal(task)
		if err != nil {
			return result
		}
		meta[DetailedMeta] = data
		if data, err = marshal(meta); err != nil {
			return result
		}
		o = object{"_meta": data, "content": jsontext.Value("[]"), "resultType": o["resultType"]}
		changed = true
	}
	if tools, ok := o["tools"]; ok {
		var list []jsontext.Value
		if jsonv2.Unmarshal(tools, &list) == nil {
			lifted := false
			for i, raw := range list {
				if !bytes.Contains(raw, []byte(`"execution"`)) {
					continue // the tool stays as written, unparsed
				}
				var t object
				if jsonv2.Unmarshal(raw, &t) != nil || !t.move("execution", ExecutionMeta) {
					continue
				}
				if data, err := marshal(t); err == nil {
					list[i] = data
					lifted = true
				}
			}
			if lifted {
				if data, err := marshal(list); err == nil {
					o["tools"] = data
					changed = true
				}
			}
		}
	}
	if !changed {
		return result
	}
	data, err := marshal(o)
	if err != nil {
		return result
	}
	return data
}

// isTaskResult reports whether o is the extension's CreateTaskResult
// (resultType "task").
func isTaskResult(o object) bool {
	var rt string
	return jsonv2.Unmarshal(o["resultType"], &rt) == nil && rt == "task"
}

// LiftResponse is LiftResult for one JSON-RPC message as written: a
// response gets its result lifted; any other message comes back as it is.
func LiftResponse(msg []byte) []byte {
	return liftMember(msg, "result", func(object) bool { return true }, LiftResult)
}

// LowerTool moves a tool's execution out of its _meta (ExecutionMeta),
// where the SDK's mcp.Tool carries it, to where the protocol puts it.
func LowerTool(tool json.RawMessage) json.RawMessage {
	if !bytes.Contains(tool, []byte(ExecutionMeta)) {
		return tool
	}
	var o object
	if jsonv2.Unmarshal(tool, &o) != nil || !o.unmove(ExecutionMeta, "execution") {
		return tool
	}
	data, err := marshal(o)
	if err != nil {
		return tool
	}
	return data
}

// Execution returns the taskSupport of a tool's execution as the client
// transports keep it in its _meta; "" when the tool gives none.
func Execution(meta mcp.Meta) string {
	v, ok := meta[ExecutionMeta].(map[string]any)
	if !ok {
		return ""
	}
	s, _ := v["taskSupport"].(string)
	return s
}

// marshal writes v as JSON, the members kept as written as they were.
func marshal(v any) ([]byte, error) { return jsonv2.Marshal(v, jsonv2.Deterministic(true)) }

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663), which
// carries tasks from protocol revision 2026-07-28.
const (
	// Extension names the extension in capabilities' extensions.
	Extension = "io.modelcontextprotocol/tasks"
	// MethodUpdate is the extension's method that answers a task's
	// inputRequests.
	MethodUpdate = "tasks/update"
	// ExtensionFrom is the first protocol revision that carries tasks as
	// the extension; before it, they are SEP-1686's.
	ExtensionFrom = "2026-07-28"
	// CodeMissingCapability is the JSON-RPC error of a request that needs
	// a capability, or an extension, the client did not declare
	// (MissingRequiredClientCapabilityError).
	CodeMissingCapability = -32021
	// CodeHeaderMismatch is the JSON-RPC error of a Streamable HTTP request
	// whose headers do not match its body (HeaderMismatchError).
	CodeHeaderMismatch = -32020
)

// A DetailedTask is a task as the extension writes it: the result of
// tasks/get (resultType "complete"), and, with resultType "task", of a
// tools/call that created it (CreateTaskResult).
type DetailedTask struct {
	ResultType    string `json:"resultType"`
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is how long, in milliseconds from its creation, the task is
	// kept; nil for unlimited.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs is the time the server suggests between two polls.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// InputRequests are the server's requests that wait for the client, by
	// key, in status input_required.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// Result is the call's result, in status completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the call's JSON-RPC error, in status failed.
	Error json.RawMessage `json:"error,omitempty"`
}

// UpdateParams are the params of tasks/update.
type UpdateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// Declared reports whether the per-request client capabilities in meta
// (io.modelcontextprotocol/clientCapabilities) declare the extension.
func Declared(meta mcp.Meta) bool {
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[Extension]
	return ok
}

// MissingExtension returns the error of a request that needs the
// extension from a client that did not declare it (the extension's
// Capability Negotiation).
func MissingExtension(message string) *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    CodeMissingCapability,
		Message: message,
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + Extension + `":{}}}}`),
	}
}

// GetResult is the result of tasks/get as a client reads it, on either
// revision: the SDK decodes a method's results into one type, so it holds
// SEP-1686's task (Task) and the fields the extension adds or names
// otherwise (DetailedTask's).
type GetResult struct {
	mcp.ResultBase
	Task
	ResultType     string                     `json:"resultType,omitempty"`
	TTLMs          *int64                     `json:"ttlMs,omitempty"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          json.RawMessage            `json:"error,omitempty"`
}

// Detailed returns the task of a tasks/get result as the extension
// writes it.
func (r *GetResult) Detailed() DetailedTask {
	return DetailedTask{
		ResultType: r.ResultType, TaskID: r.TaskID, Status: r.Status, StatusMessage: r.StatusMessage,
		CreatedAt: r.CreatedAt, LastUpdatedAt: r.LastUpdatedAt, TTLMs: r.TTLMs, PollIntervalMs: r.PollIntervalMs,
		InputRequests: r.InputRequests, Result: r.Result, Error: r.Error,
	}
}

// Ack is the empty acknowledgement of tasks/update and, from 2026-07-28,
// tasks/cancel.
type Ack struct {
	mcp.ResultBase
	ResultType string `json:"resultType,omitempty"`
}

// Declare returns meta with the extension declared in its per-request
// client capabilities (io.modelcontextprotocol/clientCapabilities), which
// it holds already, as the SDK put them there; meta as it is when it
// holds none, or none that reads as an object.
func Declare(meta mcp.Meta) mcp.Meta {
	caps, ok := meta[mcp.MetaKeyClientCapabilities]
	if !ok {
		return meta
	}
	var m map[string]any
	if mm, ok := caps.(map[string]any); ok {
		m = mm
	} else if data, err := json.Marshal(caps); err != nil || json.Unmarshal(data, &m) != nil || m == nil {
		return meta
	}
	ext, _ := m["extensions"].(map[string]any)
	ext = maps.Clone(ext)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[Extension] = map[string]any{}
	m = maps.Clone(m)
	m["extensions"] = ext
	meta[mcp.MetaKeyClientCapabilities] = m
	return meta
}
