package mcptask

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

var liftCases = []struct {
	name, in, want string
}{
	{"created task", `{"task":{"taskId":"t","status":"working"}}`, `{"_meta":{"com.github.hands-go/created-task":{"taskId":"t","status":"working"}},"content":[]}`},
	{"created task with meta", `{"_meta":{"a":1},"task":{"taskId":"t"}}`, `{"_meta":{"a":1,"com.github.hands-go/created-task":{"taskId":"t"}},"content":[]}`},
	{"a call's result named task", `{"content":[],"task":1}`, `{"content":[],"task":1}`},
	{"tools", `{"tools":[{"name":"a","inputSchema":{"properties":{"z":{},"a":{"description":"<b>"}}},"execution":{"taskSupport":"required"}},{"name":"b"}]}`,
		`{"tools":[{"_meta":{"com.github.hands-go/execution":{"taskSupport":"required"}},"inputSchema":{"properties":{"z":{},"a":{"description":"<b>"}}},"name":"a"},{"name":"b"}]}`},
	{"no task", `{"content":[{"type":"text","text":"hi"}]}`, `{"content":[{"type":"text","text":"hi"}]}`},
	{"not an object", `["task"]`, `["task"]`},
	{"meta not an object", `{"_meta":3,"task":{}}`, `{"_meta":3,"task":{}}`},
	{"not JSON", `{"task":`, `{"task":`},
	{"the extension's created task", `{"resultType":"task","taskId":"t","status":"working","ttlMs":null,"_meta":{"a":1}}`,
		`{"_meta":{"a":1,"com.github.hands-go/detailed-task":{"resultType":"task","status":"working","taskId":"t","ttlMs":null}},"content":[],"resultType":"task"}`},
	{"the extension's task, polled", `{"resultType":"complete","taskId":"t","status":"completed","result":{"content":[]}}`, `{"resultType":"complete","taskId":"t","status":"completed","result":{"content":[]}}`},
	{"the extension's task with content", `{"resultType":"task","taskId":"t","content":[]}`, `{"resultType":"task","taskId":"t","content":[]}`},
}

func TestLiftResult(t *testing.T) {
	for _, tc := range liftCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LiftResult(json.RawMessage(tc.in)); string(got) != tc.want {
				t.Errorf("LiftResult(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestLiftParams(t *testing.T) {
	got := LiftParams(json.RawMessage(`{"name":"x","arguments":{"b":1,"a":2},"task":{"ttl":5},"_meta":{"progressToken":"p"}}`))
	want := `{"_meta":{"com.github.hands-go/task":{"ttl":5},"progressToken":"p"},"arguments":{"b":1,"a":2},"name":"x"}`
	if string(got) != want {
		t.Errorf("LiftParams\n got %s\nwant %s", got, want)
	}
	msg := LiftRequest([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}`))
	if !bytes.Contains(msg, []byte(`"_meta":{"com.github.hands-go/task":{}}`)) {
		t.Errorf("LiftRequest: %s", msg)
	}
	other := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"task":{}}}`)
	if got := LiftRequest(other); !bytes.Equal(got, other) {
		t.Errorf("LiftRequest of a tools/list: %s", got)
	}
}

func TestLowerTool(t *testing.T) {
	in := `{"name":"a","_meta":{"com.github.hands-go/execution":{"taskSupport":"optional"}}}`
	if got, want := string(LowerTool(json.RawMessage(in))), `{"execution":{"taskSupport":"optional"},"name":"a"}`; got != want {
		t.Errorf("LowerTool\n got %s\nwant %s", got, want)
	}
	in = `{"name":"a","_meta":{"v":"2","com.github.hands-go/execution":{"taskSupport":"optional"}}}`
	if got, want := string(LowerTool(json.RawMessage(in))), `{"_meta":{"v":"2"},"execution":{"taskSupport":"optional"},"name":"a"}`; got != want {
		t.Errorf("LowerTool\n got %s\nwant %s", got, want)
	}
}

// FuzzLift checks that lifting never fails a message: valid JSON stays
// valid JSON, with the same members once the lifted ones are put back,
// and a message without a task is left byte for byte.
func FuzzLift(f *testing.F) {
	for _, tc := range liftCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := LiftResult(json.RawMessage(in))
		if !bytes.Contains([]byte(in), []byte(`"task`)) && string(got) != in {
			t.Fatalf("LiftResult changed a result without a task: %s -> %s", in, got)
		}
		if json.Valid([]byte(in)) && !json.Valid(got) {
			t.Fatalf("LiftResult(%s) = %s, not JSON", in, got)
		}
		if string(got) == in {
			return
		}
		var before, after map[string]any
		if json.Unmarshal([]byte(in), &before) != nil || json.Unmarshal(got, &after) != nil {
			t.Fatalf("LiftResult changed %s, which is not an object, to %s", in, got)
		}
		if meta, ok := after["_meta"].(map[string]any); ok {
			if task, ok := meta[CreatedMeta]; ok {
				if !reflect.DeepEqual(task, before["task"]) {
					t.Fatalf("LiftResult(%s): lifted task %v, want %v", in, task, before["task"])
				}
			}
			if task, ok := meta[DetailedMeta]; ok && before["resultType"] == "task" {
				want := maps.Clone(before)
				delete(want, "_meta")
				if !reflect.DeepEqual(task, want) {
					t.Fatalf("LiftResult(%s): lifted task %v, want %v", in, task, want)
				}
			}
		}
		LiftParams(json.RawMessage(in))
		LiftRequest([]byte(in))
		LiftResponse([]byte(in))
		LowerTool(json.RawMessage(in))
	})
}

// TestDeclare declares the extension in the per-request capabilities the
// SDK wrote, keeping what they declare, and leaves meta without them as
// it is.
func TestDeclare(t *testing.T) {
	type caps struct {
		Elicitation *struct{}      `json:"elicitation,omitempty"`
		Extensions  map[string]any `json:"extensions,omitempty"`
	}
	meta := Declare(map[string]any{"io.modelcontextprotocol/clientCapabilities": &caps{Elicitation: &struct{}{}, Extensions: map[string]any{"x/y": map[string]any{"a": 1}}}})
	got, _ := json.Marshal(meta)
	if want := `{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{},"x/y":{"a":1}}}}`; string(got) != want {
		t.Errorf("Declare\n got %s\nwant %s", got, want)
	}
	if meta := Declare(map[string]any{"progressToken": "p"}); len(meta) != 1 {
		t.Errorf("Declare without capabilities added %v", meta)
	}
}
