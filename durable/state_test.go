package durable_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/durable"
	"github.com/hands-go/hands/provider"
)

// Provider states as the adapters write them (provider.State): encoding/json's
// compact form, with <, > and & escaped. Their strings hold what a data
// converter could change: markup, quotes, non-ASCII, U+2028, base64.
var (
	// anthropicThinking is an assistant message's thinking block,
	// signature included.
	anthropicThinking = provider.State("anthropic", map[string]any{"blocks": []json.RawMessage{
		json.RawMessage(`{"type":"thinking","thinking":"<plan> delete a & then \"report\" — é\u2028done","signature":"EqQBCkYIBRgCKkD+/x9Zz=="}`),
		json.RawMessage(`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}`),
	}})
	// openaiReasoning is an assistant message's encrypted reasoning item,
	// and its call's item ID.
	openaiReasoning = provider.State("openai", map[string]any{"reasoning": []map[string]any{
		{"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAAAABo+/=<&>", "summary": []any{}},
	}})
	openaiCall = provider.State("openai", map[string]string{"itemId": "fc_1"})
	// geminiText and geminiCall are a model turn's text part and function
	// call, with their thought signatures (bytes, so base64 in JSON).
	geminiText = provider.State("gemini", map[string]any{"parts": []map[string]any{{"text": "let me", "signature": []byte{0xff, 0x00, '<', 0xfe}}}})
	geminiCall = provider.State("gemini", map[string]any{"id": "fc_1", "signature": []byte{0x01, 0x02, '&', 0xfd}})
)

// TestProviderState: the provider state of an assistant message and of its
// calls survives a durable run byte for byte, as the adapters write it: in
// the history QueryHistory returns while the run waits for approval, in
// the request of the model's next turn after the approval, and in the
// run's result. State that is JSON but not in that form keeps its meaning,
// compacted and escaped as encoding/json writes it.
func TestProviderState(t *testing.T) {
	for _, tt := range []struct {
		name        string
		state, call json.RawMessage
		// want, wantCall: the state as it comes back; nil for as it went.
		want, wantCall json.RawMessage
	}{
		{name: "anthropic thinking", state: anthropicThinking},
		{name: "openai reasoning", state: openaiReasoning, call: openaiCall},
		{name: "gemini signatures", state: geminiText, call: geminiCall},
		{
			name:     "other JSON",
			state:    json.RawMessage(`{ "mine" : {"note": "<&>", "n": 123456789012345678901234567890, "s": "\u00e9"} }`),
			want:     json.RawMessage(`{"mine":{"note":"\u003c\u0026\u003e","n":123456789012345678901234567890,"s":"\u00e9"}}`),
			call:     json.RawMessage("{\"mine\":\n[1, 2.50, true]}"),
			wantCall: json.RawMessage(`{"mine":[1,2.50,true]}`),
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, wantCall := cmpOr(tt.want, tt.state), cmpOr(tt.wantCall, tt.call)
			f := &files{}
			call := agenttest.Call("c1", "delete", `{"path":"a"}`)
			call.State = tt.call
			model := agenttest.NewScript(
				agent.Response{Text: "let me", State: tt.state, Calls: []agent.ToolCall{call}, FinishReason: agent.FinishToolCalls},
				agent.Response{Text: "done", FinishReason: agent.FinishStop},
			)
			e := env(t, f, model)
			// check reports whether the assistant message of h, from where,
			// holds the states.
			check := func(where string, h []agent.Message) {
				t.Helper()
				i := slices.IndexFunc(h, func(m agent.Message) bool { return m.Role == agent.RoleAssistant })
				if i < 0 {
					t.Errorf("%s: no assistant message in %+v", where, h)
					return
				}
				m := h[i]
				if !bytes.Equal(m.State, want) {
					t.Errorf("%s: the message's state is\n%s\nwant\n%s", where, m.State, want)
				}
				if len(m.Calls) != 1 || !bytes.Equal(m.Calls[0].State, wantCall) {
					t.Errorf("%s: the calls %+v, want one whose state is %s", where, m.Calls, wantCall)
				}
			}
			e.RegisterDelayedCallback(func() {
				v, err := e.QueryWorkflow(durable.QueryHistory)
				if err != nil {
					t.Error(err)
					return
				}
				var h agent.History
				if err := v.Get(&h); err != nil {
					t.Error(err)
				}
				check("the history while the run waits", h)
				if len(f.calls()) != 0 {
					t.Errorf("ran %q before the approval", f.calls())
				}
			}, time.Minute)
			var refused error
			decide(e, 2*time.Minute, agent.Approve("c1"), &refused)
			e.ExecuteWorkflow(durable.WorkflowName, durable.Input{History: agent.History{agent.UserText("delete a")}})
			h := result(t, e)
			if refused != nil {
				t.Fatalf("the approval was refused: %v", refused)
			}
			if got := f.calls(); !reflect.DeepEqual(got, []string{"delete a"}) {
				t.Errorf("ran %q, want [delete a]", got)
			}
			reqs := model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the model was asked %d times, want 2", len(reqs))
			}
			check("the model's second request", reqs[1].Messages)
			check("the run's result", h)
			if !json.Valid(want) || !jsonEqual(t, want, tt.state) || (tt.call != nil && !jsonEqual(t, wantCall, tt.call)) {
				t.Errorf("the state that came back does not mean what went")
			}
		})
	}
}

// cmpOr returns a, or b when a is nil.
func cmpOr(a, b json.RawMessage) json.RawMessage {
	if a == nil {
		return b
	}
	return a
}

// jsonEqual reports whether a and b are the same JSON value, their numbers
// compared as they are written.
func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	decode := func(data json.RawMessage) any {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}
