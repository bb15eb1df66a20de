package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/internal/redistest"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
)

// The fleet test: replicas of hands serve --stateless, as separate
// processes of the built command, share a task store and a state key
// behind a round-robin proxy, and relay the tools of one upstream.

// fleetCallers is how many callers HANDS_TOKENS names in the fleet test.
const fleetCallers = 10

// fleetTasks is how many tasks the callers create together.
const fleetTasks = 1000

// fleetMaxRSS bounds the resident memory of each replica, in bytes: a
// generous bound, many times what a replica takes, that a leak of the
// tasks (their results, their goroutines) would still pass.
const fleetMaxRSS = 300 << 20

// A fleetUpstream is the upstream MCP server of the fleet: its tool hold
// runs until the test releases its key or its call ends, and echo answers
// at once. Both may run as tasks.
type fleetUpstream struct {
	url     string
	started chan string // the keys of hold calls begun
	ended   chan string // the keys of hold calls whose context ended

	mu    sync.Mutex
	gates map[string]chan struct{}
}

func startFleetUpstream(t *testing.T) *fleetUpstream {
	t.Helper()
	u := &fleetUpstream{started: make(chan string, 16), ended: make(chan string, 16), gates: map[string]chan struct{}{}}
	type keyed struct {
		Key string `json:"key"`
	}
	hold := tool.New("hold", "Hold until released.", func(ctx context.Context, a keyed) (string, error) {
		u.started <- a.Key
		select {
		case <-u.gate(a.Key):
			return "held " + a.Key, nil
		case <-ctx.Done():
			u.ended <- a.Key
			return "", ctx.Err()
		}
	}, tool.WithTaskSupport(tool.TaskOptional))
	type text struct {
		Text string `json:"text"`
	}
	echo := tool.New("echo", "Answer with the text.", func(ctx context.Context, a text) (string, error) {
		return "echo " + a.Text, nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	srv, err := mcpserver.NewTools(nil, hold, echo)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	u.url = ts.URL + "/mcp"
	return u
}

// gate returns the channel that releases the hold call of key.
func (u *fleetUpstream) gate(key string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	g, ok := u.gates[key]
	if !ok {
		g = make(chan struct{})
		u.gates[key] = g
	}
	return g
}

// awaitStarted waits until the hold call of key has begun upstream.
func (u *fleetUpstream) awaitStarted(t *testing.T, key string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case k := <-u.started:
			if k == key {
				return
			}
		case <-timeout:
			t.Fatalf("the upstream's hold %s did not begin within a minute", key)
		}
	}
}

// A fleetReplica is one hands serve process.
type fleetReplica struct {
	url    string // its /mcp endpoint
	cmd    *exec.Cmd
	exited chan struct{}
	log    *lockedBuffer
}

// memory returns the replica's resident memory and its peak, in bytes,
// from /proc/PID/status.
func (r *fleetReplica) memory(t *testing.T) (rss, hwm int64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", r.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(line, ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch {
		case err != nil:
		case name == "VmRSS":
			rss = kb << 10
		case name == "VmHWM":
			hwm = kb << 10
		}
	}
	if rss == 0 || hwm == 0 {
		t.Fatalf("no VmRSS or VmHWM in /proc/%d/status", r.cmd.Process.Pid)
	}
	return rss, hwm
}

// buildHands builds the command into a directory of t's.
func buildHands(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hands")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// fleetEnv returns the environment of the replicas: the test's, less
// every HANDS_ variable, and then env.
func fleetEnv(env ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HANDS_") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") && !strings.HasPrefix(kv, "OTEL_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

var servingAt = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)

// startFleet starts n replicas of bin, hands serve --stateless on a free
// port of 127.0.0.1 relaying upstream, with env; each has a data
// directory of its own. They are stopped when t ends.
func startFleet(t *testing.T, bin, upstream string, n int, env ...string) []*fleetReplica {
	t.Helper()
	fleet := make([]*fleetReplica, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range fleet {
		wg.Go(func() { fleet[i], errs[i] = startReplica(t, bin, upstream, env) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return fleet
}

func startReplica(t *testing.T, bin, upstream string, env []string) (*fleetReplica, error) {
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--stateless", "--upstream", upstream)
	cmd.Dir = t.TempDir()
	cmd.Env = fleetEnv(append([]string{"XDG_DATA_HOME=" + t.TempDir()}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &fleetReplica{cmd: cmd, exited: make(chan struct{}), log: &lockedBuffer{}}
	lines := make(chan string, 1)
	go func() {
		defer close(r.exited)
		br := bufio.NewReader(stderr)
		sent := false
		for {
			line, err := br.ReadString('\n')
			r.log.Write([]byte(line))
			if !sent && servingAt.MatchString(line) {
				lines <- line
				sent = true
			}
			if err != nil {
				break
			}
		}
		if !sent {
			close(lines)
		}
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-r.exited
		}
	})
	select {
	case line, ok := <-lines:
		if !ok {
			return nil, fmt.Errorf("hands serve exited before serving:\n%s", r.log.String())
		}
		r.url = servingAt.FindStringSubmatch(line)[1]
		return r, nil
	case <-time.After(2 * time.Minute):
		return nil, fmt.Errorf("hands serve did not start within 2 minutes:\n%s", r.log.String())
	}
}

// endpoints returns the replicas' endpoints.
func endpoints(fleet []*fleetReplica) []string {
	var urls []string
	for _, r := range fleet {
		urls = append(urls, r.url)
	}
	return urls
}

// roundRobin serves a reverse proxy on 127.0.0.1 that sends each request
// to the next of the endpoints, and returns its own.
func roundRobin(t testing.TB, endpoints []string) string {
	t.Helper()
	ts := httptest.NewServer(roundRobinHandler(t, endpoints, &http.Transport{MaxIdleConnsPerHost: 128}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// roundRobinHandler is roundRobin's proxy, which sends the requests on
// through transport.
//
// It reads a request's body whole before it sends the request on, and
// sends it from memory. Streamed from the client, the body would end its
// reply: http.Transport sends the body's bytes, and the replica may
// answer, before the goroutine that writes the request reads the body
// once more, to check that it ends at its length; the HTTP/1 server, as
// the proxy begins writing the reply, reads what is left of the body and
// closes it (a handler may not read its body while it writes, unless it
// asks for full duplex); that last read then fails ("http: invalid Read
// on closed Body"), the transport takes the request's write as failed and
// closes the connection to the replica, the reply still being read from
// it ("use of closed network connection"), and the proxy cuts the
// client's reply after its headers (golang/go#40747). On a loaded machine
// the writing goroutine waits for the CPU long enough, now and then
// (TestRoundRobinWholeReply).
func roundRobinHandler(t testing.TB, endpoints []string, transport http.RoundTripper) http.Handler {
	t.Helper()
	var targets []*url.URL
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = ""
		targets = append(targets, u)
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))])
			if pr.Out.Body != nil {
				// The body read whole below, rather than the proxy's
				// wrapper of it, which fails reads once the handler
				// has returned.
				pr.Out.Body = pr.In.Body
			}
		},
		Transport: transport,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "the proxy could not read the request's body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		proxy.ServeHTTP(w, r)
	})
}

// A fleetClient speaks the tasks extension (protocol 2026-07-28) to an
// endpoint, declaring it on every request, as the caller of its token.
// Its methods return errors, so that several goroutines may use it.
type fleetClient struct {
	http  *http.Client
	token string
	plain bool // declares no extension: calls are answered plainly
}

func newFleetClient(token string) fleetClient {
	return fleetClient{http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}, Timeout: time.Minute}, token: token}
}

// fleetReply is a JSON-RPC reply.
type fleetReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send posts one request with the headers and _meta of 2026-07-28, and
// reads the reply from a JSON body or an event stream.
func (c fleetClient) send(ctx context.Context, endpoint, method string, params map[string]any) (fleetReply, error) {
	caps := map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
	if c.plain {
		caps = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return fleetReply{}, err
	}
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	status, data, err := c.post(ctx, endpoint, method, name, body)
	if err != nil {
		return fleetReply{}, err
	}
	var r fleetReply
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %d %q: %w", method, status, data, err)
	}
	return r, nil
}

// post sends one request and returns the JSON-RPC message of its reply,
// from a JSON body or an event stream.
func (c fleetClient) post(ctx context.Context, endpoint, method, name string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var msg []byte
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && strings.Contains(d, `"id"`) {
				msg = []byte(d)
			}
		}
		data = msg
	}
	return resp.StatusCode, data, nil
}

// fleetTask is a task as the extension writes it.
type fleetTask struct {
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	CreatedAt     string          `json:"createdAt"`
	TTLMs         *int64          `json:"ttlMs"`
	Result        json.RawMessage `json:"result"`
	Error         *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// start calls a tool, which must answer with a task.
func (c fleetClient) start(ctx context.Context, endpoint, name string, args map[string]any) (fleetTask, error) {
	r, err := c.send(ctx, endpoint, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return fleetTask{}, err
	}
	var task fleetTask
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" || task.TaskID == "" {
		return task, fmt.Errorf("tools/call %s: %s %+v; want a task", name, r.Result, r.Error)
	}
	return task, nil
}

// get answers tasks/get: the task and the raw result, or the reply's
// error.
func (c fleetClient) get(ctx context.Context, endpoint, id string) (fleetTask, fleetReply, error) {
	r, err := c.send(ctx, endpoint, "tasks/get", map[string]any{"taskId": id})
	if err != nil {
		return fleetTask{}, r, err
	}
	var task fleetTask
	if r.Error == nil {
		if err := json.Unmarshal(r.Result, &task); err != nil {
			return task, r, err
		}
	}
	return task, r, nil
}

// await polls tasks/get at endpoint until the task has ended, and returns
// it and the raw result.
func (c fleetClient) await(ctx context.Context, endpoint, id string) (fleetTask, json.RawMessage, error) {
	for {
		task, r, err := c.get(ctx, endpoint, id)
		switch {
		case err != nil:
			return task, nil, err
		case r.Error != nil:
			return task, nil, fmt.Errorf("tasks/get: %+v", r.Error)
		case taskstore.Terminal(task.Status):
			return task, r.Result, nil
		}
		select {
		case <-ctx.Done():
			return task, nil, fmt.Errorf("task %.16s… still %s: %w", id, task.Status, ctx.Err())
		case <-time.After(20 * time.Millisecond): // a client's poll; no duration is asserted
		}
	}
}

// fleetTokens returns the HANDS_TOKENS of the callers and their tokens.
func fleetTokens() (env string, tokens []string) {
	var pairs []string
	for i := range fleetCallers {
		token := fmt.Sprintf("token-of-caller-%d-%x", i, i*7919)
		tokens = append(tokens, token)
		pairs = append(pairs, fmt.Sprintf("caller%d=%s", i, token))
	}
	return "HANDS_TOKENS=" + strings.Join(pairs, ","), tokens
}

// TestFleet runs three replicas of hands serve --stateless, separate
// processes sharing one task store (Redis, then PostgreSQL) and one state
// key, behind a round-robin proxy, relaying an upstream's tools that may
// run as tasks; see fleetScenario for what it checks.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs replicas of it")
	}
	bin := buildHands(t)
	t.Run("redis", func(t *testing.T) {
		fleetScenario(t, bin, redistest.Start(t).URL)
	})
	t.Run("postgres", func(t *testing.T) {
		fleetScenario(t, bin, pgtest.Start(t).URL)
	})
}

// fleetScenario checks, on the store at storeURL, that
//
//   - the relayed tools may run as tasks, as upstream;
//   - a task created through one replica reads the same through every
//     other, while it runs and once it has ended;
//   - 1,000 tasks of 10 callers, created at once through the proxy, all
//     complete with their own results, none is found by another caller,
//     and the replicas' memory stays bounded;
//   - a task whose replica is stopped (SIGTERM) reads as failed, with the
//     lapsed lease's message, on every replica left as soon as it has
//     exited, and its upstream call has ended;
//   - a task whose replica is killed (SIGKILL) reads so on every replica
//     left within a few leases.
//
// It logs what it measured: the throughput of the tasks, the replicas'
// memory, how long a stop took, and the time from the kill to the
// failure.
func fleetScenario(t *testing.T, bin, storeURL string) {
	ctx := t.Context()
	key := make([]byte, mcpserver.StateKeyBytes)
	for i := range key {
		key[i] = byte(i * 31)
	}
	tokensEnv, tokens := fleetTokens()
	env := []string{
		"HANDS_TASK_STORE=" + storeURL,
		"HANDS_STATE_KEY=" + base64.StdEncoding.EncodeToString(key),
		tokensEnv,
		"HANDS_MAX_TASKS=4096",
		"HANDS_MAX_CALLER_TASKS=512",
		"HANDS_TASK_RESULT_WAIT=-1s", // every call of the relayed tools a task
	}
	up := startFleetUpstream(t)
	fleet := startFleet(t, bin, up.url, 3, env...)
	proxy := roundRobin(t, endpoints(fleet))
	ada := newFleetClient(tokens[0])

	// The relayed tools may run as tasks, as they may upstream.
	r, err := ada.send(ctx, proxy, "tools/list", map[string]any{})
	if err != nil || r.Error != nil {
		t.Fatalf("tools/list: %v %+v", err, r.Error)
	}
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	supports := map[string]string{}
	for _, tl := range list.Tools {
		supports[tl.Name] = tl.Execution.TaskSupport
	}
	if supports["hold"] != "optional" || supports["echo"] != "optional" {
		t.Fatalf("the relayed tools' taskSupport: hold %q, echo %q; want optional, as upstream", supports["hold"], supports["echo"])
	}

	t.Run("replicas agree", func(t *testing.T) { fleetAgree(t, fleet, proxy, up, ada) })
	t.Run("1000 tasks", func(t *testing.T) { fleetMany(t, fleet, proxy, tokens) })
	t.Run("SIGTERM", func(t *testing.T) { fleetStop(t, fleet, up, ada) })
	t.Run("kill -9", func(t *testing.T) {
		// A fleet of its own, whose lease is short.
		fleet := startFleet(t, bin, up.url, 3, append(env, "HANDS_TASK_LEASE=2s")...)
		fleetKill(t, fleet, up, ada, 2*time.Second)
	})
}

// fleetAgree creates a task through each replica and reads it through
// every replica and the proxy: the same task while it runs, and the same
// result, byte for byte, once it has ended.
func fleetAgree(t *testing.T, fleet []*fleetReplica, proxy string, up *fleetUpstream, c fleetClient) {
	ctx := t.Context()
	endpoints := []string{proxy, proxy, proxy}
	for _, r := range fleet {
		endpoints = append(endpoints, r.url)
	}
	for i, creator := range fleet {
		key := fmt.Sprintf("agree-%d", i)
		task, err := c.start(ctx, creator.url, "hold", map[string]any{"key": key})
		if err != nil {
			t.Fatal(err)
		}
		up.awaitStarted(t, key)
		for _, e := range endpoints {
			got, r, err := c.get(ctx, e, task.TaskID)
			if err != nil || r.Error != nil || got.Status != "working" || got.TaskID != task.TaskID || got.CreatedAt != task.CreatedAt || got.TTLMs == nil || task.TTLMs == nil || *got.TTLMs != *task.TTLMs {
				t.Errorf("the task created at replica %d, read at %s: %+v %+v %v; want it working as created (%+v)", i, e, got, r.Error, err, task)
			}
		}
		close(up.gate(key))
		done, want, err := c.await(ctx, proxy, task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != "completed" || !strings.Contains(string(done.Result), `"held `+key+`"`) {
			t.Errorf("the task created at replica %d ended %+v; want completed with its result", i, done)
		}
		for _, e := range endpoints {
			_, r, err := c.get(ctx, e, task.TaskID)
			if err != nil || r.Error != nil || !bytes.Equal(r.Result, want) {
				t.Errorf("the ended task, read at %s: %s %+v %v; want\n%s", e, r.Result, r.Error, err, want)
			}
		}
	}
}

// fleetMany has the callers create fleetTasks tasks of echo at once
// through the proxy, then awaits them all, then has each task looked up
// by another caller.
func fleetMany(t *testing.T, fleet []*fleetReplica, proxy string, tokens []string) {
	ctx := t.Context()
	type job struct {
		caller int
		text   string
		id     string
	}
	jobs := make([]job, fleetTasks)
	for i := range jobs {
		jobs[i] = job{caller: i % len(tokens), text: fmt.Sprintf("task %d of caller %d", i, i%len(tokens))}
	}
	clients := make([]fleetClient, len(tokens))
	for i, token := range tokens {
		clients[i] = newFleetClient(token)
	}
	// parallel runs f for every job, on 64 goroutines, and returns the
	// first errors, up to 10.
	parallel := func(f func(j *job) error) []error {
		var (
			mu   sync.Mutex
			errs []error
			next atomic.Int64
			wg   sync.WaitGroup
		)
		for range 64 {
			wg.Go(func() {
				for i := next.Add(1) - 1; i < int64(len(jobs)); i = next.Add(1) - 1 {
					if err := f(&jobs[i]); err != nil {
						mu.Lock()
						if len(errs) < 10 {
							errs = append(errs, err)
						}
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		return errs
	}
	before := make([][2]int64, len(fleet))
	for i, r := range fleet {
		before[i][0], before[i][1] = r.memory(t)
	}

	begin := time.Now()
	errs := parallel(func(j *job) error {
		task, err := clients[j.caller].start(ctx, proxy, "echo", map[string]any{"text": j.text})
		j.id = task.TaskID
		return err
	})
	if len(errs) > 0 {
		t.Fatalf("creating the tasks: %v", errors.Join(errs...))
	}
	created := time.Since(begin)
	errs = parallel(func(j *job) error {
		task, _, err := clients[j.caller].await(ctx, proxy, j.id)
		if err != nil {
			return err
		}
		if task.Status != "completed" || !strings.Contains(string(task.Result), `"echo `+j.text+`"`) {
			return fmt.Errorf("the task %q of caller %d ended %s %s %+v; want completed with its own result", j.text, j.caller, task.Status, task.Result, task.Error)
		}
		return nil
	})
	if len(errs) > 0 {
		t.Fatalf("awaiting the tasks: %v", errors.Join(errs...))
	}
	ended := time.Since(begin)
	errs = parallel(func(j *job) error {
		other := (j.caller + 1 + len(j.text)%(len(tokens)-1)) % len(tokens) // never the caller
		_, r, err := clients[other].get(ctx, proxy, j.id)
		if err != nil {
			return err
		}
		if r.Error == nil || r.Error.Code != -32602 || r.Error.Message != "task not found" {
			return fmt.Errorf("caller %d's tasks/get of caller %d's task: %s %+v; want -32602 task not found", other, j.caller, r.Result, r.Error)
		}
		return nil
	})
	if len(errs) > 0 {
		t.Errorf("other callers' lookups: %v", errors.Join(errs...))
	}
	t.Logf("%d tasks of %d callers: created in %v, all completed in %v (%.0f tasks/s)", fleetTasks, len(tokens), created.Round(time.Millisecond), ended.Round(time.Millisecond), fleetTasks/ended.Seconds())
	for i, r := range fleet {
		rss, hwm := r.memory(t)
		t.Logf("replica %d: VmRSS %.1f MB before, %.1f MB after; VmHWM %.1f MB before, %.1f MB after", i, mb(before[i][0]), mb(rss), mb(before[i][1]), mb(hwm))
		if hwm > fleetMaxRSS {
			t.Errorf("replica %d's peak resident memory is %.1f MB, over %.0f MB", i, mb(hwm), mb(fleetMaxRSS))
		}
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// fleetStop creates a task at the last replica and stops it with
// SIGTERM while the call runs: once it has exited, the others read the
// task failed at once, not a lease later, and the upstream's call has
// ended.
func fleetStop(t *testing.T, fleet []*fleetReplica, up *fleetUpstream, c fleetClient) {
	ctx := t.Context()
	stopped, others := fleet[len(fleet)-1], fleet[:len(fleet)-1]
	task, err := c.start(ctx, stopped.url, "hold", map[string]any{"key": "stopped"})
	if err != nil {
		t.Fatal(err)
	}
	up.awaitStarted(t, "stopped")
	if err := stopped.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	<-stopped.exited
	t.Logf("the replica exited %v after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	// The lease (30 s) was renewed within the last 10 s, and has not lapsed.
	for i, o := range others {
		got, r, err := c.get(ctx, o.url, task.TaskID)
		if err != nil || r.Error != nil || got.Status != "failed" || got.StatusMessage != taskstore.LapsedMessage || got.Error == nil || got.Error.Code != -32603 {
			t.Errorf("replica %d, once the one running the task has stopped: %+v %+v %v; want failed, with the lapsed lease's message", i, got, r.Error, err)
		}
	}
	select {
	case <-up.ended:
	case <-time.After(time.Minute):
		t.Errorf("the upstream's call of the stopped replica still runs a minute after it stopped; the replica wrote:\n%s", stopped.log.String())
		close(up.gate("stopped"))
	}
}

// fleetKill creates a task at the first replica, kills it with SIGKILL
// while the call runs, and awaits the task's failure on every other.
func fleetKill(t *testing.T, fleet []*fleetReplica, up *fleetUpstream, c fleetClient, lease time.Duration) {
	ctx := t.Context()
	victim, survivors := fleet[0], fleet[1:]
	task, err := c.start(ctx, victim.url, "hold", map[string]any{"key": "victim"})
	if err != nil {
		t.Fatal(err)
	}
	up.awaitStarted(t, "victim")
	for _, s := range survivors {
		if got, r, err := c.get(ctx, s.url, task.TaskID); err != nil || r.Error != nil || got.Status != "working" {
			t.Fatalf("before the kill: %+v %+v %v; want working", got, r.Error, err)
		}
	}
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	<-victim.exited
	// A bound five leases wide: the machine may be loaded.
	wait, cancel := context.WithTimeout(ctx, 5*lease)
	defer cancel()
	for i, s := range survivors {
		got, _, err := c.await(wait, s.url, task.TaskID)
		if err != nil {
			t.Fatalf("survivor %d after the kill: %v", i, err)
		}
		if got.Status != "failed" || got.StatusMessage != taskstore.LapsedMessage || got.Error == nil || got.Error.Code != -32603 || got.Error.Message != taskstore.LapsedMessage {
			t.Errorf("survivor %d after the kill: %+v; want failed, with the lapsed lease's message and an internal error", i, got)
		}
		t.Logf("survivor %d read the task failed %v after the kill (lease %v)", i, time.Since(killed).Round(time.Millisecond), lease)
	}
	// The upstream's call goes on: a client's disconnection is not a
	// cancellation (Streamable HTTP), and a killed replica sends none.
	select {
	case <-up.ended:
		t.Logf("the upstream's call ended %v after the kill", time.Since(killed).Round(time.Millisecond))
	default:
		t.Logf("the upstream's call still runs %v after the kill; released now", time.Since(killed).Round(time.Millisecond))
		close(up.gate("victim"))
	}
}

// BenchmarkFleetTask measures a task's round trip through the proxy in
// front of three replicas in this process, sharing a store: the call
// that creates the task, and tasks/get until it has completed (polled at
// once, so that the time is the store's and the servers', not a poll
// interval's). The tool answers at once. "plain" is the same call made by
// a client that does not declare the extension, answered without a task.
func BenchmarkFleetTask(b *testing.B) {
	for _, bc := range []struct {
		name  string
		store func(b *testing.B) string // a --task-store URL
	}{
		{"plain", func(*testing.B) string { return "mem://" }},
		{"mem", func(*testing.B) string { return "mem://" }},
		{"redis", func(b *testing.B) string { return redistest.Start(b).URL }},
		{"postgres", func(b *testing.B) string { return pgtest.Start(b).URL }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			proxy := benchFleet(b, bc.store(b))
			c := newFleetClient("bench-token")
			c.plain = bc.name == "plain"
			ctx := b.Context()
			polls := 0
			b.ReportAllocs()
			for b.Loop() {
				if c.plain {
					r, err := c.send(ctx, proxy, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
					if err != nil || r.Error != nil || !strings.Contains(string(r.Result), "echo hi") {
						b.Fatalf("tools/call: %s %+v %v", r.Result, r.Error, err)
					}
					continue
				}
				task, err := c.start(ctx, proxy, "echo", map[string]any{"text": "hi"})
				if err != nil {
					b.Fatal(err)
				}
				for !taskstore.Terminal(task.Status) {
					polls++
					var r fleetReply
					if task, r, err = c.get(ctx, proxy, task.TaskID); err != nil || r.Error != nil {
						b.Fatalf("tasks/get: %+v %v", r.Error, err)
					}
				}
				if task.Status != "completed" {
					b.Fatalf("the task ended %+v", task)
				}
			}
			b.ReportMetric(float64(polls)/float64(b.N), "polls/op")
		})
	}
}

// benchFleet serves three replicas of a registry with a tool echo that
// may run as a task, sharing the store at storeURL (a shared memory for
// mem://), behind a round-robin proxy, and returns the proxy's endpoint.
func benchFleet(b *testing.B, storeURL string) string {
	type text struct {
		Text string `json:"text"`
	}
	echo := tool.New("echo", "Answer with the text.", func(ctx context.Context, a text) (string, error) {
		return "echo " + a.Text, nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "bench", Tools: []tool.Interface{echo}})
	if err != nil {
		b.Fatal(err)
	}
	verify, err := mcpserver.StaticTokens(map[string]string{"bench": "bench-token"})
	if err != nil {
		b.Fatal(err)
	}
	key := make([]byte, mcpserver.StateKeyBytes)
	var shared taskstore.Store
	if storeURL == "mem://" {
		shared = taskstore.NewMemory(nil)
	}
	// As large as the benchmark's tasks, held for their ttl, need; every
	// call of echo, which may run as a task, is one at once, as
	// HANDS_TASK_RESULT_WAIT=-1s has it in TestFleet.
	limits := mcpserver.TaskOptions{MaxTasks: 1 << 20, MaxSessionTasks: 1 << 20, MaxHeldResultBytes: 1 << 30, ResultWait: -1}
	var urls []string
	for range 3 {
		opts := limits
		opts.Store = shared
		if shared == nil {
			store, closeStore, err := openTaskStore(b.Context(), storeURL)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(closeStore)
			opts.Store = store
		}
		srv := mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts})
		ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, Verify: verify}))
		b.Cleanup(ts.Close)
		urls = append(urls, ts.URL+"/mcp")
	}
	return roundRobin(b, urls)
}

// TestRoundRobinWholeReply: the fleet's proxy passes a reply on whole when
// its transport reads the end of the request's body only after the reply
// has begun, as http.Transport does now and then when the goroutine that
// writes the request waits for the CPU (see roundRobinHandler).
func TestRoundRobinWholeReply(t *testing.T) {
	const reply = "data: the whole reply\n\n"
	began := make(chan struct{}) // the client has the reply's headers
	late := make(chan error, 1)  // what the late read of the body's end returned
	replica := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		select {
		case err := <-late:
			if err == nil {
				io.WriteString(w, reply)
				return
			}
		case <-t.Context().Done():
		}
		// The proxy's request failed: it closes the connection, and the
		// reply is cut.
		<-r.Context().Done()
	}))
	t.Cleanup(replica.Close)
	proxy := httptest.NewServer(roundRobinHandler(t, []string{replica.URL}, lateEnd{next: &http.Transport{}, began: began, late: late}))
	t.Cleanup(proxy.Close)

	resp, err := http.Post(proxy.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	close(began)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != reply {
		t.Errorf("the reply through the proxy: %q, %v; want %q whole", got, err, reply)
	}
}

// lateEnd is a transport that reads the end of a request's body only once
// began is closed: it reads the body's bytes at once, as next asks for
// them, and the read after the last byte, with which http.Transport checks
// that the body is no longer than its length, waits for began; late gets
// what that read returned (nil for the end).
type lateEnd struct {
	next  http.RoundTripper
	began chan struct{}
	late  chan error
}

func (l lateEnd) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body = &lateBody{ReadCloser: req.Body, l: l}
	}
	return l.next.RoundTrip(req)
}

// lateBody is a request body that lateEnd reads late to its end.
type lateBody struct {
	io.ReadCloser
	l    lateEnd
	rest bool // the bytes have been read: what is left is the end
}

func (b *lateBody) Read(p []byte) (int, error) {
	if !b.rest {
		n, err := b.ReadCloser.Read(p)
		if err != io.EOF {
			return n, err
		}
		b.rest = true
		if n > 0 {
			return n, nil
		}
	}
	<-b.l.began
	n, err := b.ReadCloser.Read(p)
	select {
	case b.l.late <- cmpEOF(err):
	default:
	}
	return n, err
}

// cmpEOF returns err, or nil for io.EOF.
func cmpEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
