package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// A countingStore counts the calls made to the store it wraps.
type countingStore struct {
	taskstore.Store
	calls atomic.Int64
}

func (s *countingStore) Create(ctx context.Context, n taskstore.New, lim taskstore.Limits) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Create(ctx, n, lim)
}

func (s *countingStore) Get(ctx context.Context, id string) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Get(ctx, id)
}

func (s *countingStore) Update(ctx context.Context, id string, c taskstore.Change) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Update(ctx, id, c)
}

func (s *countingStore) Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Answer(ctx, id, answers)
}

func (s *countingStore) Cancel(ctx context.Context, id, message string) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Cancel(ctx, id, message)
}

func (s *countingStore) Finish(ctx context.Context, id string, o taskstore.Outcome, lim taskstore.Limits) (*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.Finish(ctx, id, o, lim)
}

func (s *countingStore) List(ctx context.Context, owner string) ([]*taskstore.Task, error) {
	s.calls.Add(1)
	return s.Store.List(ctx, owner)
}

// echoArgs are the arguments of the seal tests' tool.
type echoArgs struct {
	Text string `json:"text"`
	N    int64  `json:"n"`
}

// An echoRun is one run of the echo tool: its arguments, and the token it
// ran with.
type echoRun struct {
	args  echoArgs
	token *auth.TokenInfo
}

// sealZone is the zone of the tokens' expiry, which is not the machine's.
var sealZone = time.FixedZone("", 5*3600+30*60)

// richTokens verifies any token as the user it names, with scopes, an
// expiry in sealZone (and a monotonic reading) and extra claims that JSON
// does not carry as they are: an int64 beyond 2⁵³, a []string, text to
// escape.
func richTokens(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	return &auth.TokenInfo{
		UserID:     token,
		Scopes:     []string{"files:read", "files:write"},
		Expiration: time.Now().Add(time.Hour).In(sealZone),
		Extra:      map[string]any{"tenant": "acme <&> é\u2028", "seq": int64(1<<53 + 1), "groups": []string{"a", "b"}},
	}, nil
}

// A sealFleet is a front server of StateKey 1 whose extension's tasks go
// to a manual runner, a front server of another key on the same store and
// runner, and the runner's worker, of key 1, whose store counts its calls.
type sealFleet struct {
	front, other extClient
	ask          roundTripper // a plain tool that asks, on the front server
	w            *workerRunner
	store        *countingStore // the worker's view of the store
	runs         chan echoRun
}

func newSealFleet(t *testing.T) *sealFleet {
	t.Helper()
	f := &sealFleet{runs: make(chan echoRun, 10)}
	echo := tool.New("echo", "Echo the text.", func(ctx context.Context, a echoArgs) (string, error) {
		c, _ := mcpserver.CallerFrom(ctx)
		f.runs <- echoRun{args: a, token: c.Token}
		return "echo " + a.Text, nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	type answer struct {
		Answer string `json:"answer"`
	}
	ask := tool.New("ask", "Ask the user.", func(ctx context.Context, _ struct{}) (string, error) {
		a, err := mcpserver.Elicit[answer](ctx, "Go on?")
		return a.Answer, err
	})
	quick := tool.New("quick", "Answer at once.", func(ctx context.Context, _ struct{}) (string, error) {
		return "quick done", nil
	}, tool.WithTaskSupport(tool.TaskOptional))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "seal", Tools: []tool.Interface{echo, ask, quick}})
	if err != nil {
		t.Fatal(err)
	}
	f.w = newWorkerRunner(true)
	shared := taskstore.NewMemory(nil)
	opts := mcpserver.TaskOptions{Store: shared, Runner: f.w, Lease: time.Minute, PollInterval: time.Millisecond}
	serve := func(key byte) string {
		k := make([]byte, mcpserver.StateKeyBytes)
		k[0] = key
		srv := mcpserver.New(reg, &mcpserver.Options{StateKey: k, Tasks: opts})
		ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: richTokens}))
		t.Cleanup(ts.Close)
		return ts.URL
	}
	f.front = extClient{t: t, url: serve(1), user: "ada", declared: true}
	f.other = extClient{t: t, url: serve(2), user: "ada", declared: true}
	f.ask = roundTripper{t: t, url: f.front.url}
	f.store = &countingStore{Store: shared}
	opts.Store, opts.Runner = f.store, nil
	key := make([]byte, mcpserver.StateKeyBytes)
	key[0] = 1
	f.w.worker = mcpserver.New(reg, &mcpserver.Options{StateKey: key, Tasks: opts})
	return f
}

// start calls echo through c with args, and returns the task and the call
// the runner was handed.
func (f *sealFleet) start(c extClient, args string) (extTask, mcpserver.TaskCall) {
	c.t.Helper()
	r := c.send("tools/call", map[string]any{"name": "echo", "arguments": json.RawMessage(args)})
	var task extTask
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" {
		c.t.Fatalf("tools/call echo: %s %+v, want a task", r.Result, r.Error)
	}
	return task, <-f.w.calls
}

// refused runs call, which must be refused with ErrTaskCallAltered
// before the worker touches the store, the tool not run.
func (f *sealFleet) refused(t *testing.T, call mcpserver.TaskCall) {
	t.Helper()
	before := f.store.calls.Load()
	err := f.w.worker.RunTask(context.Background(), call)
	if !errors.Is(err, mcpserver.ErrTaskCallAltered) {
		t.Errorf("RunTask(%+v) = %v, want ErrTaskCallAltered", call, err)
	}
	if n := f.store.calls.Load() - before; n != 0 {
		t.Errorf("RunTask of a refused call made %d calls to the store, want none", n)
	}
	select {
	case run := <-f.runs:
		t.Errorf("the tool ran with %+v for a refused call", run.args)
	default:
	}
}

// ran runs call, which must run the tool once with want and ada's token
// and complete its task.
func (f *sealFleet) ran(t *testing.T, task extTask, call mcpserver.TaskCall, want echoArgs) {
	t.Helper()
	if err := f.w.worker.RunTask(context.Background(), call); err != nil {
		t.Fatalf("RunTask of the call as handed over: %v", err)
	}
	select {
	case run := <-f.runs:
		if run.args != want {
			t.Errorf("the tool ran with %+v, want %+v", run.args, want)
		}
		tok := run.token
		if tok == nil || tok.UserID != "ada" || !slices.Equal(tok.Scopes, []string{"files:read", "files:write"}) ||
			tok.Expiration.IsZero() || tok.Extra["tenant"] != "acme <&> é\u2028" {
			t.Errorf("the tool ran with the token %+v, want ada's as verified", tok)
		}
	default:
		t.Fatal("RunTask returned nil, and the tool did not run")
	}
	if done := f.front.await(task.TaskID, "completed", "failed"); done.Status != "completed" {
		t.Errorf("the task: %+v, want completed", done)
	}
}

// TestRunTaskRefusesAlteredCalls: RunTask runs only a TaskCall as the
// server that made its task sealed it. A call changed in any field that
// grants authority — the task, the owner, the tool, the arguments (a
// number past 2⁵³ included, which a float64 would not tell apart), the
// token's user, scopes, expiry or claims, the TTL, the lease — or whose
// seal is missing, another call's, made under another key, or a task
// handle or request state sealed under the same key, is refused with
// ErrTaskCallAltered before the worker touches the store, and the tool
// does not run; the call as handed over then runs.
func TestRunTaskRefusesAlteredCalls(t *testing.T) {
	f := newSealFleet(t)
	const args = `{"text": "hello <world>", "n": 9007199254740993}`
	want := echoArgs{Text: "hello <world>", N: 9007199254740993}
	_, eveCall := f.start(extClient{t: t, url: f.front.url, user: "eve", declared: true}, `{"text":"eve's","n":1}`)
	handle := f.front.start("echo").TaskID
	<-f.w.calls
	state := f.ask.call("ada", "ask", `{}`, "", nil)
	if state.Result == nil || state.Result.RequestState == "" {
		t.Fatalf("tools/call ask: %+v, want a request state", state)
	}
	for _, tt := range []struct {
		name  string
		alter func(c *mcpserver.TaskCall)
	}{
		{"id", func(c *mcpserver.TaskCall) { c.ID = eveCall.ID }},
		{"owner", func(c *mcpserver.TaskCall) { c.Owner = "user eve" }},
		{"tool", func(c *mcpserver.TaskCall) { c.Tool = "quick" }},
		{"arguments", func(c *mcpserver.TaskCall) { c.Arguments = json.RawMessage(`{"text":"rm -rf /","n":9007199254740993}`) }},
		{"arguments number", func(c *mcpserver.TaskCall) {
			c.Arguments = json.RawMessage(`{"text":"hello <world>","n":9007199254740992}`)
		}},
		{"arguments member added", func(c *mcpserver.TaskCall) {
			c.Arguments = json.RawMessage(`{"text":"hello <world>","n":9007199254740993,"force":true}`)
		}},
		{"no arguments", func(c *mcpserver.TaskCall) { c.Arguments = nil }},
		{"token user", func(c *mcpserver.TaskCall) { c.Token.UserID = "eve" }},
		{"token scopes", func(c *mcpserver.TaskCall) { c.Token.Scopes = append(c.Token.Scopes, "admin") }},
		{"token scopes fewer", func(c *mcpserver.TaskCall) { c.Token.Scopes = c.Token.Scopes[:1] }},
		{"token expiry", func(c *mcpserver.TaskCall) { c.Token.Expiration = c.Token.Expiration.Add(365 * 24 * time.Hour) }},
		{"token expiry by a nanosecond", func(c *mcpserver.TaskCall) { c.Token.Expiration = c.Token.Expiration.Add(time.Nanosecond) }},
		{"token claim", func(c *mcpserver.TaskCall) { c.Token.Extra["tenant"] = "globex" }},
		{"token claim added", func(c *mcpserver.TaskCall) { c.Token.Extra["role"] = "admin" }},
		{"token claim number", func(c *mcpserver.TaskCall) { c.Token.Extra["seq"] = int64(7) }},
		{"no token", func(c *mcpserver.TaskCall) { c.Token = nil }},
		{"ttl", func(c *mcpserver.TaskCall) { c.TTL *= 2 }},
		{"lease", func(c *mcpserver.TaskCall) { c.Lease *= 2 }},
		{"no seal", func(c *mcpserver.TaskCall) { c.Seal = "" }},
		{"another call's seal", func(c *mcpserver.TaskCall) { c.Seal = eveCall.Seal }},
		{"seal changed", func(c *mcpserver.TaskCall) { c.Seal = flipLast(c.Seal) }},
		{"seal with a newline", func(c *mcpserver.TaskCall) { c.Seal = "\n" + c.Seal }},
		{"task handle", func(c *mcpserver.TaskCall) { c.Seal = handle }},
		{"task handle as a call's", func(c *mcpserver.TaskCall) { c.Seal = sealPrefix(c.Seal) + handle[strings.Index(handle, ".")+1:] }},
		{"request state", func(c *mcpserver.TaskCall) { c.Seal = state.Result.RequestState }},
		{"request state as a call's", func(c *mcpserver.TaskCall) {
			s := state.Result.RequestState
			c.Seal = sealPrefix(c.Seal) + s[strings.Index(s, ".")+1:]
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			task, call := f.start(f.front, args)
			altered := cloneCall(t, call)
			tt.alter(&altered)
			f.refused(t, altered)
			if got, _ := f.front.get(task.TaskID); got.Status != "working" {
				t.Errorf("after the refused call, its task is %+v, want working", got)
			}
			f.ran(t, task, call, want)
		})
	}

	t.Run("another key", func(t *testing.T) {
		_, call := f.start(f.other, args)
		f.refused(t, call)
	})
}

// TestTaskCallSealSurvivesJSON: the seal is of what the call means, not
// of its bytes: a call that went through JSON — encoding/json, as
// Temporal's data converter has it (arguments compacted, <, > and &
// escaped; the token's int64 claim read back as a float64, its expiry
// without its monotonic reading), json v2 (strings written in their
// shortest form), or indented — runs, with its arguments as the client
// sent them, to the last digit.
func TestTaskCallSealSurvivesJSON(t *testing.T) {
	f := newSealFleet(t)
	const args = "{ \"text\" : \"\\u00e9t\\u00e9 <&> \u2028\", \"n\" : 9007199254740993 }"
	want := echoArgs{Text: "été <&> \u2028", N: 9007199254740993}
	nano := jsonv1.FormatDurationAsNano(true) // durations as encoding/json writes them
	for _, tt := range []struct {
		name string
		enc  func(any) ([]byte, error)
		dec  func([]byte, any) error
	}{
		{"encoding/json", json.Marshal, json.Unmarshal},
		{"json v2", func(v any) ([]byte, error) { return jsonv2.Marshal(v, nano) }, func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, nano) }},
		{"indented", func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "\t") }, json.Unmarshal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			task, call := f.start(f.front, args)
			data, err := tt.enc(call)
			if err != nil {
				t.Fatal(err)
			}
			var got mcpserver.TaskCall
			if err := tt.dec(data, &got); err != nil {
				t.Fatal(err)
			}
			t.Logf("arguments %s became %s", call.Arguments, got.Arguments)
			f.ran(t, task, got, want)
		})
	}
}

// cloneCall returns a deep copy of call, through encoding/json, as a
// runner would carry it.
func cloneCall(t *testing.T, call mcpserver.TaskCall) mcpserver.TaskCall {
	t.Helper()
	data, err := json.Marshal(call)
	if err != nil {
		t.Fatal(err)
	}
	var c mcpserver.TaskCall
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// sealPrefix returns the version prefix of a seal, through its dot.
func sealPrefix(seal string) string { return seal[:strings.Index(seal, ".")+1] }

// flipLast returns seal with its next-to-last base64url character
// changed: a bit of the MAC's tag.
func flipLast(seal string) string {
	if len(seal) < 2 {
		return seal + "AA"
	}
	c := byte('A')
	if seal[len(seal)-2] == 'A' {
		c = 'B'
	}
	return seal[:len(seal)-2] + string(c) + seal[len(seal)-1:]
}
