package kvtool_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/memkv"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/kvtool"
)

func TestKVTools(t *testing.T) {
	store := kv.New(memkv.New(), &kv.Options{MaxValueBytes: 100})
	reg, err := tool.NewRegistry(&tool.Scope{Tools: kvtool.Tools(store)})
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) tool.Result {
		t.Helper()
		return tool.Run(t.Context(), reg, tool.Call{Name: name, Args: json.RawMessage(args)})
	}
	if res := call("kv_put", `{"key":"trip/city","value":"Oslo","note":"travel","ttlSeconds":3600}`); res.IsError {
		t.Fatal(res.Err)
	}
	call("kv_put", `{"key":"trip/date","value":"May"}`)
	call("kv_put", `{"key":"other","value":"x"}`)
	res := call("kv_get", `{"key":"trip/city"}`)
	var e kvtool.Entry
	if err := json.Unmarshal([]byte(res.Content), &e); err != nil || e.Value != "Oslo" || e.Metadata["note"] != "travel" || e.Expires == nil {
		t.Errorf("kv_get = %s, %v", res.Content, err)
	}
	res = call("kv_list", `{"prefix":"trip/","limit":1}`)
	var p kvtool.Page
	if err := json.Unmarshal([]byte(res.Content), &p); err != nil || len(p.Keys) != 1 || p.Keys[0].Name != "trip/city" || p.Cursor == "" {
		t.Fatalf("kv_list page 1 = %s, %v", res.Content, err)
	}
	res = call("kv_list", `{"prefix":"trip/","cursor":"`+p.Cursor+`"}`)
	p = kvtool.Page{}
	if err := json.Unmarshal([]byte(res.Content), &p); err != nil || len(p.Keys) != 1 || p.Keys[0].Name != "trip/date" || p.Cursor != "" {
		t.Errorf("kv_list page 2 = %s, %v", res.Content, err)
	}
	if res := call("kv_delete", `{"key":"trip/city"}`); res.IsError || res.Content != `deleted "trip/city"` {
		t.Fatalf("kv_delete = %q, %v", res.Content, res.Err)
	}
	// A key that holds nothing is not an error: nothing is under it, as
	// asked. The result says that nothing was there.
	if res := call("kv_delete", `{"key":"trip/city"}`); res.IsError || !strings.Contains(res.Content, "nothing was stored") {
		t.Errorf("kv_delete of a missing key = %q, %v; want a result that says nothing was there", res.Content, res.Err)
	}
	if res := call("kv_get", `{"key":"trip/city"}`); !errors.Is(res.Err, kv.ErrKeyNotFound) {
		t.Errorf("kv_get after kv_delete = %v, want ErrKeyNotFound", res.Err)
	}
	// Sizes: a value over the store's limit, a key over 512 bytes, and
	// arguments far over the tool's limit are refused, and nothing is
	// stored.
	if res := call("kv_put", `{"key":"big","value":"`+strings.Repeat("v", 101)+`"}`); !errors.Is(res.Err, kv.ErrOversize) {
		t.Errorf("kv_put of 101 bytes under a limit of 100 = %v, want ErrOversize", res.Err)
	}
	if res := call("kv_put", `{"key":"`+strings.Repeat("k", 513)+`","value":"v"}`); !res.IsError {
		t.Error("kv_put of a 513-byte key succeeded")
	}
	if res := call("kv_put", `{"key":"`+strings.Repeat("é", 300)+`","value":"v"}`); !errors.Is(res.Err, kv.ErrOversize) {
		t.Errorf("kv_put of a 600-byte key of 300 characters = %v, want ErrOversize", res.Err)
	}
	if res := call("kv_put", `{"key":"huge","value":"`+strings.Repeat("v", 1<<20)+`"}`); !errors.Is(res.Err, tool.ErrInvalidArguments) {
		t.Errorf("kv_put of 1 MiB to a store of 100-byte values = %v, want the arguments refused", res.Err)
	}
	for _, k := range []string{"big", "huge"} {
		if _, err := store.Get(t.Context(), k); !errors.Is(err, kv.ErrKeyNotFound) {
			t.Errorf("after a refused put, %s holds something: %v", k, err)
		}
	}
}

// TestKVNoteWithinSchema stores every note that kv_put's schema accepts,
// at the schema's longest, of the characters that take the most bytes as
// JSON, in a store of the default limits; the error for a store with a
// smaller metadata limit speaks of the note.
func TestKVNoteWithinSchema(t *testing.T) {
	tools := kvtool.Tools(kv.New(memkv.New(), nil))
	put := tools[1]
	note := put.Spec().InputSchema.Properties["note"]
	if note == nil || note.MaxLength == nil {
		t.Fatal("kv_put's note has no maxLength")
	}
	n := *note.MaxLength
	for _, r := range []string{"\x01", "<", `"`, "\u2028", "😀", "é"} {
		args, _ := json.Marshal(map[string]string{"key": "k", "value": "v", "note": strings.Repeat(r, n)})
		if res := tool.Run(t.Context(), put, tool.Call{Name: "kv_put", Args: args}); res.IsError {
			t.Errorf("a note of %d × %q, within the schema, was refused: %v", n, r, res.Err)
		}
	}
	small := kvtool.Tools(kv.New(memkv.New(), &kv.Options{MaxMetadataBytes: 64}))[1]
	args, _ := json.Marshal(map[string]string{"key": "k", "value": "v", "note": strings.Repeat("x", 100)})
	res := tool.Run(t.Context(), small, tool.Call{Name: "kv_put", Args: args})
	if !errors.Is(res.Err, kv.ErrOversize) || !strings.Contains(res.Err.Error(), "note") || strings.Contains(res.Err.Error(), "metadata") {
		t.Errorf("a note over a small store's limit = %v, want ErrOversize about the note", res.Err)
	}
}
