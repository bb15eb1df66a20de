package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// word is a form of one text field.
type word struct {
	Word string `json:"word"`
}

// keyedReply is a tools/call's answer as the tests of named input
// requests read it.
type keyedReply struct {
	Result *struct {
		ResultType    string                     `json:"resultType"`
		RequestState  string                     `json:"requestState"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		Content       []struct{ Text string }    `json:"content"`
		IsError       bool                       `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// keys returns the keys of the reply's input requests, or nil.
func (r keyedReply) keys() []string {
	if r.Result == nil {
		return nil
	}
	var keys []string
	for k := range r.Result.InputRequests {
		keys = append(keys, k)
	}
	return keys
}

// text returns the reply's text, or "".
func (r keyedReply) text() string {
	if r.Result == nil || len(r.Result.Content) != 1 {
		return ""
	}
	return r.Result.Content[0].Text
}

// keyedCall sends a tools/call of name on protocol 2026-07-28 over
// stateless HTTP, with the request state and the answers, a form of one
// field word by key.
func keyedCall(t *testing.T, url, name, state string, answers map[string]string) keyedReply {
	t.Helper()
	params := map[string]any{
		"name":      name,
		"arguments": map[string]any{},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		},
	}
	if state != "" {
		params["requestState"] = state
	}
	if len(answers) > 0 {
		responses := map[string]any{}
		for key, w := range answers {
			responses[key] = map[string]any{"action": "accept", "content": map[string]any{"word": w}}
		}
		params["inputResponses"] = responses
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	_, out := post(t, http.DefaultClient, url, "", string(body),
		"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", name)
	var r keyedReply
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("tools/call %s: %v in %s", name, err, out)
	}
	return r
}

// keyedServer serves tools over stateless HTTP and returns its URL.
func keyedServer(t *testing.T, tools ...tool.Interface) string {
	t.Helper()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "keyed", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(mcpserver.New(reg, nil).HTTPHandler(&mcpserver.HTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestInputKeyNamesRequests: a request named with WithInputKey goes back
// under its key, and its answer reaches it by key when the handler runs
// again, whatever the order in which it then asks; the handler's unnamed
// requests keep hands' keys and their answers by order; an answer to a
// key the round did not ask is not taken.
func TestInputKeyNamesRequests(t *testing.T) {
	var runs atomic.Int32
	pair := tool.New("pair", "Asks two named questions and an unnamed one.", func(ctx context.Context, _ struct{}) (string, error) {
		order := []string{"first", "second"}
		if runs.Add(1) >= 3 {
			order = []string{"second", "first"} // the run that has both answers asks the other way round
		}
		got := map[string]string{}
		for _, key := range order {
			w, err := mcpserver.Elicit[word](mcpserver.WithInputKey(ctx, key), "Your "+key+" word?")
			if err != nil {
				return "", err
			}
			got[key] = w.Word
		}
		res, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{Message: "Anything else?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"word": map[string]any{"type": "string"}},
		}})
		if err != nil {
			return "", err
		}
		return "first=" + got["first"] + " second=" + got["second"] + " else=" + res.Content["word"].(string), nil
	})
	url := keyedServer(t, pair)

	r1 := keyedCall(t, url, "pair", "", nil)
	if k := r1.keys(); len(k) != 1 || k[0] != "first" || r1.Result.RequestState == "" {
		t.Fatalf("round 1 = %+v, want the input request keyed first", r1)
	}
	// The answer to "second", which round 1 did not ask, is not taken.
	r2 := keyedCall(t, url, "pair", r1.Result.RequestState, map[string]string{"first": "A", "second": "Z"})
	if k := r2.keys(); len(k) != 1 || k[0] != "second" {
		t.Fatalf("round 2 = %+v, want the input request keyed second", r2)
	}
	r3 := keyedCall(t, url, "pair", r2.Result.RequestState, map[string]string{"second": "B"})
	if k := r3.keys(); len(k) != 1 || k[0] != "hands-0" {
		t.Fatalf("round 3 = %+v, want the unnamed request keyed hands-0", r3)
	}
	r4 := keyedCall(t, url, "pair", r3.Result.RequestState, map[string]string{"hands-0": "C"})
	if got, want := r4.text(), "first=A second=B else=C"; got != want {
		t.Fatalf("round 4 = %+v, want %q", r4, want)
	}
}

// TestInputKeyReused: a handler that gives two of its requests one key is
// told so, precisely, rather than getting one answer for both.
func TestInputKeyReused(t *testing.T) {
	twice := tool.New("twice", "Asks two questions under one key.", func(ctx context.Context, _ struct{}) (string, error) {
		ctx = mcpserver.WithInputKey(ctx, "word")
		a, err := mcpserver.Elicit[word](ctx, "One?")
		if err != nil {
			return "", err
		}
		b, err := mcpserver.Elicit[word](ctx, "Two?")
		if errors.Is(err, mcpserver.ErrInputKeyReused) {
			return "refused: " + err.Error(), nil
		}
		if err != nil {
			return "", err
		}
		return a.Word + b.Word, nil
	})
	url := keyedServer(t, twice)
	r1 := keyedCall(t, url, "twice", "", nil)
	if k := r1.keys(); len(k) != 1 || k[0] != "word" {
		t.Fatalf("round 1 = %+v, want the input request keyed word", r1)
	}
	r2 := keyedCall(t, url, "twice", r1.Result.RequestState, map[string]string{"word": "A"})
	if got := r2.text(); !strings.HasPrefix(got, "refused: ") || !strings.Contains(got, `"word"`) {
		t.Fatalf("round 2 = %+v, want the second request refused, naming the key", r2)
	}
}

// TestInputKeyInvalid: a key a handler names is bounded and plain, and
// does not take the form of the keys hands gives, whichever helper asks,
// on MCP or off it.
func TestInputKeyInvalid(t *testing.T) {
	for _, key := range []string{
		"", "hands-0", "hands-ask-0", strings.Repeat("k", mcpserver.MaxInputKeyBytes+1),
		"a b", "a\x00b", "../x", `"}`, "ü", "a/b", "key\n",
	} {
		ctx := mcpserver.WithInputKey(context.Background(), key)
		_, err := mcpserver.Elicit[word](ctx, "Word?")
		if !errors.Is(err, mcpserver.ErrInputKeyInvalid) {
			t.Errorf("Elicit with key %q: %v, want ErrInputKeyInvalid", key, err)
		}
		if _, err := mcpserver.ElicitRequest(ctx, &mcp.ElicitParams{Message: "Word?"}); !errors.Is(err, mcpserver.ErrInputKeyInvalid) {
			t.Errorf("ElicitRequest with key %q: %v, want ErrInputKeyInvalid", key, err)
		}
		if _, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 1}); !errors.Is(err, mcpserver.ErrInputKeyInvalid) {
			t.Errorf("Sample with key %q: %v, want ErrInputKeyInvalid", key, err)
		}
	}

	// The longest key, of every kind of byte allowed, is taken.
	long := strings.Repeat("aZ0_-.", mcpserver.MaxInputKeyBytes)[:mcpserver.MaxInputKeyBytes]
	ask := tool.New("ask", "Asks under a long key.", func(ctx context.Context, _ struct{}) (string, error) {
		w, err := mcpserver.Elicit[word](mcpserver.WithInputKey(ctx, long), "Word?")
		return w.Word, err
	})
	url := keyedServer(t, ask)
	r1 := keyedCall(t, url, "ask", "", nil)
	if k := r1.keys(); len(k) != 1 || k[0] != long {
		t.Fatalf("round 1 = %+v, want the input request keyed %q", r1, long)
	}
	if r2 := keyedCall(t, url, "ask", r1.Result.RequestState, map[string]string{long: "yes"}); r2.text() != "yes" {
		t.Fatalf("round 2 = %+v, want yes", r2)
	}
}
