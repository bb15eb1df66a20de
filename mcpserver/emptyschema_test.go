package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestEmptySchemasAsObjects(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"object","properties":{"v":true,"r":true},"required":["v"]}`, `{"type":"object","properties":{"v":{},"r":{}},"required":["v"]}`},
		{`{"type":"array","items":true,"prefixItems":[true,{"type":"string"}]}`, `{"type":"array","items":{},"prefixItems":[{},{"type":"string"}]}`},
		{`{"anyOf":[true,{"not":true}],"$defs":{"a":true},"additionalProperties":true}`, `{"anyOf":[{},{"not":{}}],"$defs":{"a":{}},"additionalProperties":{}}`},
		// Values that are not schemas stay as they are.
		{`{"type":"boolean","default":true,"const":true,"enum":[true],"examples":[{"items":true}]}`, `{"type":"boolean","default":true,"const":true,"enum":[true],"examples":[{"items":true}]}`},
		{`{"properties":{"items":{"default":{"properties":true}},"true":true}}`, `{"properties":{"items":{"default":{"properties":true}},"true":{}}}`},
		{`{"properties":{"x":false},"additionalProperties":false}`, `{"properties":{"x":false},"additionalProperties":false}`},
		{`true`, `{}`},
	} {
		got, err := emptySchemasAsObjects([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("emptySchemasAsObjects(%s)\n = %s\nwant %s", c.in, got, c.want)
		}
	}
	// The identity case: a schema with no true in it is the same bytes.
	in := []byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"<&>"}}}`)
	if got, _ := emptySchemasAsObjects(in); !bytes.Equal(got, in) {
		t.Errorf("a schema without true came out as %s", got)
	}
	if _, err := emptySchemasAsObjects([]byte(`{"properties":{"v":true}} {}`)); err == nil {
		t.Error("an encoding with data after the schema was accepted")
	}
}

func FuzzEmptySchemasAsObjects(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"v":true},"default":true}`))
	f.Add([]byte(`{"anyOf":[true,false],"items":{"items":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		out, err := emptySchemasAsObjects(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%s became invalid JSON %s", data, out)
		}
		again, err := emptySchemasAsObjects(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s -> %s -> %s (%v)", data, out, again, err)
		}
	})
}

type anyArgs struct {
	V any             `json:"v"`
	R json.RawMessage `json:"r,omitempty"`
}

// TestListEmptySchemaAsObject checks that a typed tool with a property of
// any type is listed with that property's schema as {}, not true, which
// MCP clients that check types refuse along with the whole list.
func TestListEmptySchemaAsObject(t *testing.T) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{
		tool.New("any_tool", "Take anything.", func(ctx context.Context, a anyArgs) (string, error) { return "", nil }),
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(reg, nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res.Tools[0].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	for name, p := range schema.Properties {
		if !bytes.HasPrefix(p, []byte("{")) {
			t.Errorf("property %s is listed as %s, not an object: %s", name, p, data)
		}
	}
}
