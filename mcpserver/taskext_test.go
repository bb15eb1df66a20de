package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An extClient speaks the tasks extension (protocol 2026-07-28) to a
// stateless HTTP server as written, as the user its bearer token names.
type extClient struct {
	t    *testing.T
	url  string
	user string
	// declared is whether requests declare the extension.
	declared bool
}

// extReply is a JSON-RPC reply.
type extReply struct {
	status int
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// send posts one request with the headers 2026-07-28 asks for (Mcp-Name:
// the tool's name, or the task's ID on tasks/*), unless header overrides
// them.
func (c extClient) send(method string, params map[string]any, header ...string) extReply {
	c.t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if c.declared {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	h := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Authorization", "Bearer " + c.user}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	status, out := post(c.t, http.DefaultClient, c.url, "", string(body), append(h, header...)...)
	r := extReply{status: status}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		c.t.Fatalf("%s: %v in %q", method, err, out)
	}
	return r
}

// extTask is a task as the extension writes it.
type extTask struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage            `json:"result"`
	Error          *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c extClient) start(name string) extTask {
	c.t.Helper()
	r := c.send("tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
	var task extTask
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" || task.TaskID == "" {
		c.t.Fatalf("tools/call %s: %s, %+v; want a CreateTaskResult", name, r.Result, r.Error)
	}
	return task
}

func (c extClient) get(id string) (extTask, extReply) {
	c.t.Helper()
	r := c.send("tasks/get", map[string]any{"taskId": id})
	var task extTask
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &task); err != nil {
			c.t.Fatal(err)
		}
	}
	return task, r
}

// await polls tasks/get until the task's status is one of want.
func (c extClient) await(id string, want ...string) extTask {
	c.t.Helper()
	for range 10_000 {
		task, r := c.get(id)
		if r.Error != nil {
			c.t.Fatalf("tasks/get: %+v", r.Error)
		}
		for _, w := range want {
			if task.Status == w {
				return task
			}
		}
		time.Sleep(time.Millisecond) // a poll, as a client makes; no duration is asserted
	}
	c.t.Fatalf("task %s never reached %v", id, want)
	return extTask{}
}

// emptyAck reports whether result is the empty acknowledgement of
// tasks/update and tasks/cancel: resultType "complete" and nothing else
// but the _meta every result may carry.
func emptyAck(result json.RawMessage) bool {
	var o map[string]json.RawMessage
	if json.Unmarshal(result, &o) != nil {
		return false
	}
	delete(o, "_meta")
	return len(o) == 1 && string(o["resultType"]) == `"complete"`
}

// users verifies any token as the user it names.
func users(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
}

// replicas are servers of one registry that share a task store and a
// state key, each behind stateless HTTP on 127.0.0.1.
func replicas(t *testing.T, reg *tool.Registry, opts mcpserver.TaskOptions, n int) []string {
	t.Helper()
	if opts.Store == nil {
		opts.Store = taskstore.NewMemory(nil)
	}
	key := make([]byte, mcpserver.StateKeyBytes)
	key[0] = 1
	var urls []string
	for range n {
		srv := mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts})
		ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	return urls
}

// askingTools adds to taskTools one that asks its user for a name, as a
// task.
func askingTools(t *testing.T) *taskTools {
	tt := newTaskTools(t)
	type name struct {
		Name string `json:"name"`
	}
	greet := tool.New("greet", "Greet the user by name.", func(ctx context.Context, _ struct{}) (string, error) {
		mcpserver.BecomeTask(ctx) // ask through the task, not in the call's result
		who, err := mcpserver.Elicit[name](ctx, "Your name?")
		if err != nil {
			return "", err
		}
		return "Hello, " + who.Name + "!", nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	if err := tt.reg.Add(&tool.Scope{Name: "asking", Tools: []tool.Interface{greet}}); err != nil {
		t.Fatal(err)
	}
	return tt
}

// TestTaskExtensionDiscover: server/discover declares the extension.
func TestTaskExtensionDiscover(t *testing.T) {
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{}, 1)
	r := extClient{t: t, url: urls[0], user: "ada"}.send("server/discover", map[string]any{})
	var d struct {
		Capabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &d) != nil || string(d.Capabilities.Extensions["io.modelcontextprotocol/tasks"]) != "{}" {
		t.Errorf("server/discover: %s, %+v; want capabilities.extensions with io.modelcontextprotocol/tasks: {}", r.Result, r.Error)
	}
}

// TestTaskExtensionNegotiation: a client that does not declare the
// extension gets a tool that requires a task refused with -32021 naming
// the extension, over HTTP with 400 Bad Request as 2026-07-28 has it for
// that error, an optional one called plainly, and its tasks/* refused
// likewise; tasks/result and tasks/list are not methods of 2026-07-28.
func TestTaskExtensionNegotiation(t *testing.T) {
	// Every declared call of a tool that allows a task is one: the test
	// needs a task of quick.
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{ResultWait: -1}, 1)
	plain := extClient{t: t, url: urls[0], user: "ada"}
	r := plain.send("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	if r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 || !strings.Contains(string(r.Error.Data), `"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`) {
		t.Errorf("undeclared call of a task-required tool: %d %s %+v; want 400 and -32021 naming the extension", r.status, r.Result, r.Error)
	}
	r = plain.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
	if r.Error != nil || !strings.Contains(string(r.Result), "quick done") {
		t.Errorf("undeclared call of an optional tool: %s, %+v; want its result", r.Result, r.Error)
	}
	declared := plain
	declared.declared = true
	task := declared.start("quick")
	if r := plain.send("tasks/get", map[string]any{"taskId": task.TaskID}); r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32021 {
		t.Errorf("undeclared tasks/get: %d %+v, want 400 and -32021", r.status, r.Error)
	}
	for _, method := range []string{"tasks/result", "tasks/list"} {
		if r := declared.send(method, map[string]any{"taskId": task.TaskID}); r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("%s on 2026-07-28: %s %+v, want -32601", method, r.Result, r.Error)
		}
	}
	done := declared.await(task.TaskID, "completed")
	if done.ResultType != "complete" || !strings.Contains(string(done.Result), "quick done") || done.PollIntervalMs != 0 {
		t.Errorf("completed task: %+v, want resultType complete and the result inline", done)
	}
}

// TestTaskExtensionTaskParameter: at 2026-07-28 the task parameter of
// SEP-1686 is not part of the protocol, and is ignored as an unknown field
// (SEP-2663, Backward Compatibility): with the extension declared the
// server decides as it does without it, and without it a tool that
// requires a task is refused and an optional one called plainly — never
// a task of SEP-1686.
func TestTaskExtensionTaskParameter(t *testing.T) {
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{ResultWait: -1}, 1)
	plain := extClient{t: t, url: urls[0], user: "ada"}
	declared := plain
	declared.declared = true
	param := map[string]any{"ttl": 60000}
	r := declared.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}, "task": param})
	var task extTask
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" || strings.Contains(string(r.Result), `"task":`) {
		t.Errorf("declared call with a task parameter: %s %+v; want the extension's task", r.Result, r.Error)
	}
	r = plain.send("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "task": param})
	if r.Error == nil || r.Error.Code != -32021 {
		t.Errorf("undeclared call of a task-required tool with a task parameter: %s %+v; want -32021", r.Result, r.Error)
	}
	r = plain.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}, "task": param})
	if r.Error != nil || !strings.Contains(string(r.Result), "quick done") {
		t.Errorf("undeclared call of an optional tool with a task parameter: %s %+v; want its result", r.Result, r.Error)
	}
}

// TestTaskExtensionResultFields: on 2026-07-28 the results the tasks
// extension writes itself — tools/list of a registry with tools that may
// run as tasks, whose tools it lowers to execution.taskSupport, and the
// task of tools/call and tasks/get — carry resultType and the server's
// _meta["io.modelcontextprotocol/serverInfo"], as the SDK's results do
// (SEP-2322, SEP-2575).
func TestTaskExtensionResultFields(t *testing.T) {
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{ResultWait: -1}, 1) // quick runs as a task
	c := extClient{t: t, url: urls[0], user: "ada", declared: true}
	task := c.start("quick")
	done := c.await(task.TaskID, "completed")
	for _, r := range []struct {
		method string
		want   string
		result json.RawMessage
	}{
		{"tools/list", "complete", c.send("tools/list", map[string]any{}).Result},
		{"tools/call", "task", c.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}}).Result},
		{"tasks/get", "complete", c.send("tasks/get", map[string]any{"taskId": done.TaskID}).Result},
	} {
		var got struct {
			ResultType string `json:"resultType"`
			Meta       struct {
				ServerInfo *struct {
					Name string `json:"name"`
				} `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(r.result, &got); err != nil {
			t.Fatalf("%s: %v in %s", r.method, err, r.result)
		}
		if got.ResultType != r.want {
			t.Errorf("%s: resultType %q, want %q: %s", r.method, got.ResultType, r.want, r.result)
		}
		if got.Meta.ServerInfo == nil || got.Meta.ServerInfo.Name != "hands" {
			t.Errorf("%s: no _meta serverInfo naming hands: %s", r.method, r.result)
		}
	}
}

// TestTaskExtensionErrors: a task's call that fails with a JSON-RPC error
// is failed, the error inline and no result; one whose handler returns an
// error or panics is completed with an error result, as that call is
// answered outside a task (SEP-2663, Task Execution Errors: "The
// `failed` status MUST NOT be used to represent non-JSON-RPC errors").
// The error here is -32021: the handler asks in URL mode, which the
// client, declaring form elicitation only, did not declare.
func TestTaskExtensionErrors(t *testing.T) {
	type none struct{}
	required := tool.WithTaskSupport(tool.TaskRequired)
	reg, err := tool.NewRegistry(&tool.Scope{Name: "errors", Tools: []tool.Interface{
		tool.New("signin", "Ask the user to sign in.", func(ctx context.Context, _ none) (string, error) {
			_, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/sign-in", ElicitationID: "e1"})
			return "signed in", err
		}, required),
		tool.New("broken", "Fail.", func(context.Context, none) (string, error) {
			return "", errors.New("the disk is full")
		}, required),
		tool.New("panics", "Panic.", func(context.Context, none) (string, error) {
			panic("out of range")
		}, required),
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := extClient{t: t, url: replicas(t, reg, mcpserver.TaskOptions{}, 1)[0], user: "ada", declared: true}

	failed := c.await(c.start("signin").TaskID, "completed", "failed")
	if failed.Status != "failed" || failed.Error == nil || failed.Error.Code != -32021 || failed.Error.Message == "" || len(failed.Result) != 0 {
		t.Errorf("task of a call that failed with -32021: status %q, error %+v, result %s; want failed, error -32021 inline, no result", failed.Status, failed.Error, failed.Result)
	}
	for _, name := range []string{"broken", "panics"} {
		done := c.await(c.start(name).TaskID, "completed", "failed")
		var res struct {
			IsError bool `json:"isError"`
		}
		if done.Status != "completed" || done.Error != nil || json.Unmarshal(done.Result, &res) != nil || !res.IsError {
			t.Errorf("task of %s: status %q, error %+v, result %s; want completed with an error result", name, done.Status, done.Error, done.Result)
		}
	}
}

// TestTaskExtensionLegacyTaskParam: on 2026-07-28 SEP-1686's task
// parameter, sent to a tool that runs as no task, is tolerated and makes
// no task (SEP-2663): the call is served plainly, where before 2026-07-28
// it is refused with -32601.
func TestTaskExtensionLegacyTaskParam(t *testing.T) {
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{}, 1)
	for _, declared := range []bool{false, true} {
		c := extClient{t: t, url: urls[0], user: "ada", declared: declared}
		r := c.send("tools/call", map[string]any{"name": "plain", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
		var res struct {
			ResultType string            `json:"resultType"`
			TaskID     string            `json:"taskId"`
			Content    []json.RawMessage `json:"content"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.ResultType != "complete" || res.TaskID != "" || len(res.Content) == 0 {
			t.Errorf("declared %v: tools/call of a plain tool with a task parameter: %s %+v; want its result, and no task", declared, r.Result, r.Error)
		}
	}
}

// TestTaskExtensionReplicas: two replicas share a store and a state key; a
// task created through one is polled, answered and cancelled through the
// other.
func TestTaskExtensionReplicas(t *testing.T) {
	tt := askingTools(t)
	urls := replicas(t, tt.reg, mcpserver.TaskOptions{PollInterval: time.Millisecond, Lease: 3 * time.Second}, 2)
	a := extClient{t: t, url: urls[0], user: "ada", declared: true}
	b := a
	b.url = urls[1]

	task := a.start("greet")
	asking := b.await(task.TaskID, "input_required")
	var req struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}
	if len(asking.InputRequests) != 1 {
		t.Fatalf("input_required task: %+v, want one input request", asking)
	}
	var key string
	for k, v := range asking.InputRequests {
		key = k
		if json.Unmarshal(v, &req) != nil || req.Method != "elicitation/create" || req.Params.Message != "Your name?" {
			t.Errorf("input request %s, want the elicitation", v)
		}
	}
	r := b.send("tasks/update", map[string]any{"taskId": task.TaskID, "inputResponses": map[string]any{
		key: map[string]any{"action": "accept", "content": map[string]any{"name": "Luca"}},
	}})
	if r.Error != nil || !emptyAck(r.Result) {
		t.Fatalf("tasks/update: %s %+v, want an empty acknowledgement", r.Result, r.Error)
	}
	done := b.await(task.TaskID, "completed", "failed")
	if !strings.Contains(string(done.Result), "Hello, Luca!") {
		t.Errorf("answered task: %+v, want its result greeting Luca", done)
	}

	slow := b.start("slow")
	<-tt.started
	if r := a.send("tasks/cancel", map[string]any{"taskId": slow.TaskID}); r.Error != nil || !emptyAck(r.Result) {
		t.Fatalf("tasks/cancel through the other replica: %s %+v", r.Result, r.Error)
	}
	if got, _ := b.get(slow.TaskID); got.Status != "cancelled" {
		t.Errorf("after tasks/cancel, status %q, want cancelled", got.Status)
	}
	select {
	case <-tt.ended: // the runner learned of it from the store
	case <-time.After(time.Minute):
		t.Fatal("the cancelled task's call still runs on the other replica")
	}
}

// TestTaskExtensionCaller: a task's ID is sealed and bound to its caller:
// another user's tasks/get, tasks/update and tasks/cancel with it, and an
// altered one, get "task not found", as a task never created does.
func TestTaskExtensionCaller(t *testing.T) {
	tt := newTaskTools(t)
	urls := replicas(t, tt.reg, mcpserver.TaskOptions{}, 2)
	ada := extClient{t: t, url: urls[0], user: "ada", declared: true}
	bob := extClient{t: t, url: urls[1], user: "bob", declared: true}
	task := ada.start("slow")
	<-tt.started
	altered := []byte(task.TaskID)
	altered[len(altered)-2] ^= 1
	for _, id := range []string{task.TaskID, string(altered), "made-up"} {
		for _, c := range []struct {
			who    extClient
			method string
		}{{bob, "tasks/get"}, {bob, "tasks/update"}, {bob, "tasks/cancel"}, {ada, "tasks/get"}} {
			if c.who.user == "ada" && id == task.TaskID {
				continue
			}
			r := c.who.send(c.method, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
			if r.Error == nil || r.Error.Code != -32602 || r.Error.Message != "task not found" {
				t.Errorf("%s's %s of %.12s…: %s %+v, want -32602 task not found", c.who.user, c.method, id, r.Result, r.Error)
			}
		}
	}
	if got, r := ada.get(task.TaskID); r.Error != nil || got.Status != "working" {
		t.Errorf("ada's task after bob's attempts: %+v %+v, want working", got, r.Error)
	}
	close(tt.release)
}

// TestTaskExtensionMcpName: over HTTP, tasks/* carries the task's ID in
// Mcp-Name (Streamable HTTP: Routing Headers); a request without it, or
// naming another task, is refused with 400 and -32020 before it is
// served. The Base64 form of the header is decoded.
func TestTaskExtensionMcpName(t *testing.T) {
	urls := replicas(t, newTaskTools(t).reg, mcpserver.TaskOptions{ResultWait: -1}, 1)
	c := extClient{t: t, url: urls[0], user: "ada", declared: true}
	task := c.start("quick")
	for _, h := range [][]string{{"Mcp-Name", "another"}, {"Mcp-Name", ""}} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			r := c.send(method, map[string]any{"taskId": task.TaskID, "inputResponses": map[string]any{}}, h...)
			if r.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32020 {
				t.Errorf("%s with Mcp-Name %q: %d %+v, want 400 and -32020", method, h[1], r.status, r.Error)
			}
		}
	}
	encoded := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(task.TaskID)) + "?="
	if r := c.send("tasks/get", map[string]any{"taskId": task.TaskID}, "Mcp-Name", encoded); r.Error != nil {
		t.Errorf("tasks/get with the ID in Base64: %+v", r.Error)
	}
}

// TestTaskExtensionLeaseLapse: when the replica running a task stops
// renewing its lease, the other reports the task failed, with a message
// that tells the model to call the tool again. The store's clock is the
// test's.
func TestTaskExtensionLeaseLapse(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	tt := newTaskTools(t)
	// The lease outlasts the test: the runner renews it at a third of an
	// hour, which the store's clock passes without it.
	store := taskstore.NewMemory(&taskstore.MemoryOptions{Now: clock})
	urls := replicas(t, tt.reg, mcpserver.TaskOptions{Store: store, Lease: time.Hour / 2, TTL: 2 * time.Hour, MaxTTL: 2 * time.Hour}, 2)
	a := extClient{t: t, url: urls[0], user: "ada", declared: true}
	b := a
	b.url = urls[1]
	task := a.start("slow")
	<-tt.started
	if got, _ := b.get(task.TaskID); got.Status != "working" {
		t.Fatalf("within the lease: %+v, want working", got)
	}
	mu.Lock()
	now = now.Add(time.Hour / 2)
	mu.Unlock()
	got, r := b.get(task.TaskID)
	if r.Error != nil || got.Status != "failed" || got.StatusMessage != taskstore.LapsedMessage || got.Error == nil || got.Error.Code != -32603 {
		t.Errorf("past the lease: %+v %+v, want failed, with LapsedMessage and an internal error", got, r.Error)
	}
	close(tt.release)
	select {
	case <-tt.ended:
	default:
	}
}

// TestTaskStatelessSEP1686: a stateless server has no session to hold a
// task of SEP-1686 in (2025-11-25, a task parameter), and says so, rather
// than starting a task nobody can poll.
func TestTaskStatelessSEP1686(t *testing.T) {
	tt := newTaskTools(t)
	srv := mcpserver.New(tt.reg, nil)
	ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick","arguments":{},"task":{"ttl":60000}}}`
	status, out := post(t, http.DefaultClient, ts.URL, "", body, "Mcp-Protocol-Version", "2025-11-25")
	if !strings.Contains(out, "stateless") || !strings.Contains(out, `"error"`) {
		t.Errorf("a SEP-1686 task on a stateless server: %d %s, want an error that says why", status, out)
	}
}

// TestTaskShutdown: a server that shuts down refuses new tasks, waits for
// the calls of its tasks until its context ends, then fails the tasks
// still running, as a lapsed lease would, and cancels their calls; the
// other replica reads them failed at once, though the lease (an hour) has
// not lapsed.
func TestTaskShutdown(t *testing.T) {
	// serve returns the first of two replicas, and both's URLs.
	serve := func(t *testing.T, tt *taskTools, store taskstore.Store, log ...io.Writer) (*mcpserver.Server, []string) {
		opts := mcpserver.TaskOptions{Store: store, Lease: time.Hour, MaxSessionTasks: 1000, ResultWait: -1}
		key := make([]byte, mcpserver.StateKeyBytes)
		var servers []*mcpserver.Server
		var urls []string
		logger := slog.New(slog.DiscardHandler)
		if len(log) > 0 {
			logger = slog.New(slog.NewTextHandler(log[0], nil))
		}
		for range 2 {
			srv := mcpserver.New(tt.reg, &mcpserver.Options{StateKey: key, Tasks: opts, Logger: logger})
			ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
			t.Cleanup(ts.Close)
			servers, urls = append(servers, srv), append(urls, ts.URL)
		}
		return servers[0], urls
	}
	t.Run("a call that outlasts the grace", func(t *testing.T) {
		tt := newTaskTools(t)
		a, urls := serve(t, tt, taskstore.NewMemory(nil))
		ada := extClient{t: t, url: urls[0], user: "ada", declared: true}
		task := ada.start("slow")
		<-tt.started
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := a.Shutdown(ctx); err != context.Canceled {
			t.Errorf("Shutdown with its context ended = %v, want context.Canceled", err)
		}
		ada.url = urls[1]
		got, r := ada.get(task.TaskID)
		if r.Error != nil || got.Status != "failed" || got.StatusMessage != taskstore.LapsedMessage || got.Error == nil || got.Error.Code != -32603 {
			t.Errorf("the other replica reads %+v %+v; want failed, with the lapsed lease's message", got, r.Error)
		}
		select {
		case <-tt.ended:
		case <-time.After(time.Minute):
			t.Error("the task's call still runs a minute after Shutdown")
		}
	})
	t.Run("a store slow to answer", func(t *testing.T) {
		// The store holds every write that fails a task until the test
		// lets it go, whatever its context says: the call is cancelled
		// all the same (what it cancels in turn, an upstream's task, is
		// not kept waiting on the store), and Shutdown returns.
		tt := newTaskTools(t)
		store := &holdingStore{Store: taskstore.NewMemory(nil), hold: make(chan struct{}), finished: make(chan struct{}, 10)}
		var log lockedBuffer
		a, urls := serve(t, tt, store, &log)
		ada := extClient{t: t, url: urls[0], user: "ada", declared: true}
		task := ada.start("slow")
		<-tt.started
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		done := make(chan error, 1)
		go func() { done <- a.Shutdown(ctx) }()
		select {
		case <-tt.ended:
		case <-time.After(time.Minute):
			t.Fatal("the task's call was not cancelled while the store held the write that fails its task")
		}
		select {
		case err := <-done:
			if err != context.Canceled {
				t.Errorf("Shutdown = %v, want context.Canceled", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("Shutdown did not return while the store held its write")
		}
		// The log tells the operator what was left undone.
		if got := log.String(); !strings.Contains(got, "not all is done") || !strings.Contains(got, "unwritten=1 calls_returned=false") {
			t.Errorf("Shutdown logged %q; want what it left undone: the store's writes, and the call's return (its own write)", got)
		}
		close(store.hold)
		<-store.finished
		ada.url = urls[1]
		got, r := ada.get(task.TaskID)
		if r.Error != nil || got.Status != "failed" || got.StatusMessage != taskstore.LapsedMessage {
			t.Errorf("the other replica reads %+v %+v; want failed, with the lapsed lease's message", got, r.Error)
		}
	})
	t.Run("a call that returns within it", func(t *testing.T) {
		tt := newTaskTools(t)
		a, urls := serve(t, tt, taskstore.NewMemory(nil))
		ada := extClient{t: t, url: urls[0], user: "ada", declared: true}
		task := ada.start("slow")
		<-tt.started
		done := make(chan error, 1)
		go func() { done <- a.Shutdown(t.Context()) }()
		for {
			// Once Shutdown has begun, a new task is refused.
			r := ada.send("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{}})
			if r.Error != nil && r.Error.Message == "the server is stopping; call the tool again" {
				break
			}
			if r.Error != nil {
				t.Fatalf("a task while stopping: %+v", r.Error)
			}
			time.Sleep(time.Millisecond) // no duration is asserted
		}
		select {
		case err := <-done:
			t.Fatalf("Shutdown returned %v while a call ran", err)
		default:
		}
		close(tt.release)
		if err := <-done; err != nil {
			t.Errorf("Shutdown = %v, want nil once the call returned", err)
		}
		ada.url = urls[1]
		if got, r := ada.get(task.TaskID); r.Error != nil || got.Status != "completed" || !strings.Contains(string(got.Result), "slow done") {
			t.Errorf("the other replica reads %+v %+v; want completed with the call's result", got, r.Error)
		}
	})
}

// holdingStore is a task store whose writes of a lapsed task's outcome
// wait until hold is closed, whatever their context, as those of a store
// that does not answer; each sends on finished once written.
type holdingStore struct {
	taskstore.Store
	hold     chan struct{}
	finished chan struct{}
}

func (s *holdingStore) Finish(ctx context.Context, id string, o taskstore.Outcome, lim taskstore.Limits) (*taskstore.Task, error) {
	if o.Message == taskstore.LapsedMessage {
		<-s.hold
		defer func() { s.finished <- struct{}{} }()
	}
	return s.Store.Finish(context.WithoutCancel(ctx), id, o, lim)
}
