package agent

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// FuzzSealSurvivesJSON checks that a sealed interrupt still verifies after
// any number of trips through JSON, whatever its arguments, texts and
// provider state hold — invalid JSON and invalid UTF-8 included — that the
// canonical encoding's shortcut agrees with the trip it skips, and that a
// change to the arguments breaks the seal.
func FuzzSealSurvivesJSON(f *testing.F) {
	f.Add([]byte(`{"path": "b"}`), "contents", []byte(`{"openai":{"id":"r1"}}`))
	f.Add([]byte(`{"path":`), "\xff\xfe<&>", []byte(`  [1, 2.50, 1e3, "\u00e9"] `))
	f.Add([]byte(``), "", []byte(`null`))
	f.Add([]byte(`{"a":"\ufffd\u2028<"}`), "\u2028\ufffd\x80 \\ufffd", []byte(`{"s":"\xff"}`))
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
		fast, err := in.canonical(false)
		if err != nil {
			t.Fatal(err)
		}
		if slow, _ := in.canonical(true); string(fast) != string(slow) {
			t.Fatalf("the encoding without a trip through JSON is\n%s\nwith one\n%s", fast, slow)
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

// benchInterrupt is a paused run of 10 turns, each a call with arguments
// and a result of 1,024 NUL characters (6 KiB of JSON escapes): about
// 63 KB of JSON.
func benchInterrupt() *Interrupt {
	in := &Interrupt{Turn: 10, History: History{UserText("tidy up")}}
	text := string(make([]byte, 1024))
	for i := range 10 {
		id := fmt.Sprint("c", i)
		in.History = append(in.History,
			Message{Role: RoleAssistant, Calls: []ToolCall{{ID: id, Name: "read", Args: json.RawMessage(`{"path":"/var/log/app.log","lines":200}`)}}},
			Message{Role: RoleTool, CallID: id, Name: "read", Text: text})
	}
	call := ToolCall{ID: "d1", Name: "delete", Args: json.RawMessage(`{"path":"/var/cache"}`)}
	in.History = append(in.History, Message{Role: RoleAssistant, Calls: []ToolCall{call}})
	in.Pending = []Pending{{Kind: PendingApproval, Call: call}}
	return in
}

// BenchmarkSeal measures what a pause adds: sealing the interrupt, and on
// resume verifying it.
func BenchmarkSeal(b *testing.B) {
	key := []byte("0123456789abcdef0123456789abcdef")
	in := benchInterrupt()
	data, _ := json.Marshal(in)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := in.seal(key, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := in.verify(key); err != nil {
				b.Fatal(err)
			}
		}
	})
}
