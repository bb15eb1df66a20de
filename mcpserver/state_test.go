package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// roundTripper makes raw tools/calls on protocol 2026-07-28 over stateless
// HTTP, where the request state of a multi round-trip call is in the
// client's hands.
type roundTripper struct {
	t      *testing.T
	url    string
	client *http.Client // nil: http.DefaultClient
}

// callReply is the part of a tools/call's answer these tests read.
type callReply struct {
	Result *struct {
		ResultType   string                  `json:"resultType"`
		RequestState string                  `json:"requestState"`
		Content      []struct{ Text string } `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a tools/call of name with the given arguments, request state
// and answers (by input request key), as user (a bearer token of the
// user's name), and returns the reply.
func (rt roundTripper) call(user, name, args, state string, answers map[string]string) callReply {
	rt.t.Helper()
	params := map[string]any{
		"name":      name,
		"arguments": json.RawMessage(args),
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		},
	}
	if state != "" {
		params["requestState"] = state
	}
	responses := map[string]any{}
	for key, answer := range answers {
		responses[key] = map[string]any{"action": "accept", "content": map[string]any{"answer": answer}}
	}
	if len(responses) > 0 {
		params["inputResponses"] = responses
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
	if err != nil {
		rt.t.Fatal(err)
	}
	client := rt.client
	if client == nil {
		client = http.DefaultClient
	}
	_, out := post(rt.t, client, rt.url, "", string(body),
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", name, "Authorization", "Bearer "+user)
	var r callReply
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		rt.t.Fatalf("tools/call %s: %v in %s", name, err, out)
	}
	return r
}

// TestRequestStateIsSealed: the server accepts back only the request state
// it issued for the same call — tool, arguments and caller — once, and
// refuses a forged, altered, rebound or replayed one before the tool runs.
func TestRequestStateIsSealed(t *testing.T) {
	tb := newTalkback(t)
	users := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	ts := httptest.NewServer(tb.srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
	defer ts.Close()
	rt := roundTripper{t: t, url: ts.URL}

	refused := func(what string, r callReply) {
		t.Helper()
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "request state") {
			t.Errorf("%s: reply %+v, want a JSON-RPC invalid-params error about the request state", what, r)
		}
	}

	// A forged state answers the handler's questions without the user, and
	// so would answers to questions the server never asked.
	refused("a forged state", rt.call("ada", "transfer", `{}`, `{"asks":["main","10"]}`, nil))
	refused("answers without a state", rt.call("ada", "transfer", `{}`, "", map[string]string{"hands-ask-0": "main"}))
	if n := tb.transfers.Load(); n != 0 {
		t.Fatalf("the handler ran %d times on a forged state, want 0", n)
	}

	first := rt.call("ada", "transfer", `{}`, "", nil)
	if first.Result == nil || first.Result.ResultType != "input_required" || first.Result.RequestState == "" {
		t.Fatalf("the first round = %+v, want an input_required result with a request state", first)
	}
	s1 := first.Result.RequestState
	if strings.Contains(s1, "main") || strings.Contains(s1, "asks") {
		t.Errorf("the request state %q is readable", s1)
	}
	main := map[string]string{"hands-ask-0": "main"}
	flipped := []byte(s1)
	flipped[len(flipped)/2] ^= 1
	runs := tb.transfers.Load()
	refused("an altered state", rt.call("ada", "transfer", `{}`, string(flipped), main))
	refused("the state of another tool", rt.call("ada", "both", `{}`, s1, main))
	refused("the state of other arguments", rt.call("ada", "transfer", `{"to":"mallory"}`, s1, main))
	refused("the state of another caller", rt.call("eve", "transfer", `{}`, s1, main))
	if n := tb.transfers.Load(); n != runs {
		t.Fatalf("the handler ran %d times on refused states, want 0", n-runs)
	}

	// Arguments written another way are the same arguments.
	second := rt.call("ada", "transfer", "{ }", s1, main)
	if second.Result == nil || second.Result.ResultType != "input_required" || second.Result.RequestState == "" {
		t.Fatalf("the second round = %+v, want the next question", second)
	}
	refused("a replayed state", rt.call("ada", "transfer", `{}`, s1, main))
	s2 := second.Result.RequestState
	last := rt.call("ada", "transfer", `{}`, s2, map[string]string{"hands-ask-1": "10"})
	if last.Result == nil || len(last.Result.Content) != 1 || last.Result.Content[0].Text != "moved 10 from main" {
		t.Fatalf("the last round = %+v, want the transfer done", last)
	}
}

// TestRequestStateExpires: a request state is accepted until Options.StateTTL
// has passed since the server issued it, and refused from then on, before
// the tool runs. It runs in a synctest bubble, so the minute passes at once
// and exactly.
func TestRequestStateExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		tb := newTalkback(t)
		srv := mcpserver.New(tb.reg, &mcpserver.Options{StateTTL: ttl})
		users := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
		}
		pn := servePipe(t, srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
		rt := roundTripper{t: t, url: pn.URL, client: pn.Client}
		main := map[string]string{"hands-ask-0": "main"}
		for _, tt := range []struct {
			after time.Duration
			ok    bool
		}{
			{ttl - time.Second, true},
			{ttl, false},
			{ttl + time.Hour, false},
		} {
			first := rt.call("ada", "transfer", `{}`, "", nil)
			if first.Result == nil || first.Result.RequestState == "" {
				t.Fatalf("the first round = %+v, want a request state", first)
			}
			time.Sleep(tt.after)
			runs := tb.transfers.Load()
			r := rt.call("ada", "transfer", `{}`, first.Result.RequestState, main)
			if tt.ok && (r.Result == nil || r.Result.ResultType != "input_required") {
				t.Errorf("a state used %v after it was issued, with a TTL of %v: %+v, want the next question", tt.after, ttl, r)
			}
			if !tt.ok && (r.Error == nil || r.Error.Code != -32602 || tb.transfers.Load() != runs) {
				t.Errorf("a state used %v after it was issued, with a TTL of %v: %+v, want it refused before the tool runs", tt.after, ttl, r)
			}
		}
	})
}

// TestStateShareIsPerCaller: a caller that has used as many request states
// as it may hold is refused its next multi round-trip call, and another
// caller's goes on.
func TestStateShareIsPerCaller(t *testing.T) {
	tb := newTalkback(t)
	users := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	ts := httptest.NewServer(tb.srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
	defer ts.Close()
	rt := roundTripper{t: t, url: ts.URL}
	mcpserver.FillStateShare(t, "mallory")

	main := map[string]string{"hands-ask-0": "main"}
	first := rt.call("mallory", "transfer", `{}`, "", nil)
	if first.Result == nil || first.Result.RequestState == "" {
		t.Fatalf("mallory's first round = %+v, want a request state", first)
	}
	r := rt.call("mallory", "transfer", `{}`, first.Result.RequestState, main)
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "share") {
		t.Errorf("mallory's second round, past her share = %+v, want a JSON-RPC invalid-params error about her share", r)
	}

	first = rt.call("ada", "transfer", `{}`, "", nil)
	if first.Result == nil || first.Result.RequestState == "" {
		t.Fatalf("ada's first round = %+v, want a request state", first)
	}
	second := rt.call("ada", "transfer", `{}`, first.Result.RequestState, main)
	if second.Result == nil || second.Result.ResultType != "input_required" || second.Result.RequestState == "" {
		t.Fatalf("ada's second round, with mallory's share used = %+v, want the next question", second)
	}
	last := rt.call("ada", "transfer", `{}`, second.Result.RequestState, map[string]string{"hands-ask-1": "10"})
	if last.Result == nil || len(last.Result.Content) != 1 || last.Result.Content[0].Text != "moved 10 from main" {
		t.Fatalf("ada's last round = %+v, want the transfer done", last)
	}
}

// TestAnonymousFloodDeniesNoOne: once a client the server cannot tell
// apart from others has used twice as many request states as a process
// once held for all such clients together, another such client's multi
// round-trip call still goes through, a replayed state is still refused,
// and a state opens only for the caller it was issued to, anonymous or
// not.
func TestAnonymousFloodDeniesNoOne(t *testing.T) {
	tb := newTalkback(t)
	users := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token == "nobody" {
			return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil // a token of no user
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	ts := httptest.NewServer(tb.srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true, Verify: users}))
	defer ts.Close()
	rt := roundTripper{t: t, url: ts.URL}
	mcpserver.FloodAnonymousStates(t, 2<<16)

	refused := func(what string, r callReply) {
		t.Helper()
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "request state") {
			t.Errorf("%s: reply %+v, want a JSON-RPC invalid-params error about the request state", what, r)
		}
	}
	main := map[string]string{"hands-ask-0": "main"}
	first := rt.call("nobody", "transfer", `{}`, "", nil)
	if first.Result == nil || first.Result.RequestState == "" {
		t.Fatalf("the first round = %+v, want a request state", first)
	}
	s1 := first.Result.RequestState
	refused("an anonymous caller's state used by a user", rt.call("ada", "transfer", `{}`, s1, main))
	second := rt.call("nobody", "transfer", `{}`, s1, main)
	if second.Result == nil || second.Result.ResultType != "input_required" || second.Result.RequestState == "" {
		t.Fatalf("the second round, after the flood = %+v, want the next question", second)
	}
	refused("a replayed anonymous state", rt.call("nobody", "transfer", `{}`, s1, main))
	last := rt.call("nobody", "transfer", `{}`, second.Result.RequestState, map[string]string{"hands-ask-1": "10"})
	if last.Result == nil || len(last.Result.Content) != 1 || last.Result.Content[0].Text != "moved 10 from main" {
		t.Fatalf("the last round, after the flood = %+v, want the transfer done", last)
	}

	ada := rt.call("ada", "transfer", `{}`, "", nil)
	if ada.Result == nil || ada.Result.RequestState == "" {
		t.Fatalf("ada's first round = %+v, want a request state", ada)
	}
	refused("a user's state used by an anonymous caller", rt.call("nobody", "transfer", `{}`, ada.Result.RequestState, main))
}
