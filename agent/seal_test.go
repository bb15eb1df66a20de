package agent

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzSealSurvivesJSON checks that a sealed interrupt still verifies after
// any number of trips through JSON, whatever its arguments, texts and
// provider state hold — invalid JSON and invalid UTF-8 included — and that
// a change to any of them breaks the seal.
func FuzzSealSurvivesJSON(f *testing.F) {
	f.Add([]byte(`{"path": "b"}`), "contents", []byte(`{"openai":{"id":"r1"}}`))
	f.Add([]byte(`{"path":`), "\xff\xfe<&>", []byte(`  [1, 2.50, 1e3, "\u00e9"] `))
	f.Add([]byte(``), "", []byte(`null`))
	key := []byte("0123456789abcdef0123456789abcdef")
	f.Fuzz(func(t *testing.T, args []byte, text string, state []byte) {
		if !json.Valid(state) {
			state = nil // provider state is JSON; Run refuses to encode anything else
		}
		in := &Interrupt{
			Turn: 2,
			History: History{
				UserText(text),
				{Role: RoleAssistant, Text: text, State: state, Calls: []ToolCall{{ID: "c1", Name: "t", Args: args, State: state}}},
			},
			Pending: []Pending{{Kind: PendingApproval, Call: ToolCall{ID: "c1", Name: "t", Args: args, State: state}}},
		}
		if err := in.seal(key, time.Hour); err != nil {
			t.Fatalf("seal: %v", err)
		}
		got := in
		for range 2 {
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			got = &Interrupt{}
			if err := json.Unmarshal(data, got); err != nil {
				t.Fatal(err)
			}
			if err := got.verify(key); err != nil {
				t.Fatalf("after JSON, verify = %v; the seal must survive its own encoding (%s)", err, data)
			}
		}
		got.Pending[0].Call.Args = append(append(json.RawMessage{}, got.Pending[0].Call.Args...), ' ', 'x')
		if err := got.verify(key); err == nil {
			t.Fatalf("verify accepted changed arguments %q", got.Pending[0].Call.Args)
		}
	})
}
