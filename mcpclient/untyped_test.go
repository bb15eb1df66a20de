package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawToolServer serves, over an in-memory transport, an MCP server whose
// tools/list result is the tools given, as written: the SDK's server
// refuses an input schema without "type": "object", as some servers send
// them. It answers a call with the text "ok" and counts the calls in
// called.
func rawToolServer(t *testing.T, tools string) (ct mcp.Transport, called *atomic.Int64) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	called = new(atomic.Int64)
	go func() {
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.ID.IsValid() {
				continue
			}
			var result string
			switch req.Method {
			case "initialize":
				result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`
			case "tools/list":
				result = `{"tools":` + tools + `}`
			case "tools/call":
				called.Add(1)
				result = `{"content":[{"type":"text","text":"ok"}]}`
			default:
				result = `{}`
			}
			if conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(result)}) != nil {
				return
			}
		}
	}()
	return ct, called
}

// TestUntypedRootServed lists tools whose input schemas have no "type" at
// the root, as GitLab's MCP server sends nine: one whose root says nothing
// of its kind is served, its schema listed with "type":"object" added at
// the front and otherwise as sent, and its calls validated against that
// schema; one whose root is a string's, or whose kind another keyword
// decides ($ref, a combinator, enum), or that is not an object at all, is
// still refused.
func TestUntypedRootServed(t *testing.T) {
	ct, called := rawToolServer(t, `[
		{"name":"gitlab","description":"As GitLab sends it.","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}},
		{"name":"members","description":"Members alone.","inputSchema":{"properties":{"n":{"type":"integer"}},"required":["n"]}},
		{"name":"empty","description":"Empty.","inputSchema":{}},
		{"name":"string","description":"A string's.","inputSchema":{"type":"string"}},
		{"name":"ref","description":"A reference.","inputSchema":{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}},
		{"name":"anyof","description":"A combinator.","inputSchema":{"anyOf":[{"type":"string"},{"type":"integer"}]}},
		{"name":"enum","description":"Values.","inputSchema":{"enum":["a","b"]}},
		{"name":"true","description":"Anything.","inputSchema":true}
	]`)
	c, err := mcpclient.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	want := map[string]string{
		"gitlab":  `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}`,
		"members": `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"empty":   `{"type":"object"}`,
	}
	served := map[string]tool.Interface{}
	for _, tl := range c.Tools() {
		served[tl.Name()] = tl
	}
	for name, doc := range want {
		tl, ok := served[name]
		if !ok {
			t.Errorf("tool %s is not served; refused: %v", name, c.Refused())
			continue
		}
		spec, input, _ := tl.(tool.SchemaDocumenter).SpecDocuments()
		if string(input) != doc {
			t.Errorf("tool %s: input schema listed as\n%s\nwant\n%s", name, input, doc)
		}
		if spec.InputSchema == nil || spec.InputSchema.Type != "object" {
			t.Errorf("tool %s: spec's input schema %+v, want type object", name, spec.InputSchema)
		}
	}
	if len(served) != len(want) {
		t.Errorf("served %v, want only %v", slices.Sorted(func(yield func(string) bool) {
			for n := range served {
				if !yield(n) {
					return
				}
			}
		}), want)
	}
	var refused []string
	for _, err := range c.Refused() {
		re, ok := errors.AsType[*mcpclient.RefusedError](err)
		if !ok || !errors.Is(err, dynamic.ErrNotObject) {
			t.Errorf("refused with %v, want a *RefusedError matching dynamic.ErrNotObject", err)
			continue
		}
		refused = append(refused, re.Tool)
	}
	if slices.Sort(refused); !slices.Equal(refused, []string{"anyof", "enum", "ref", "string", "true"}) {
		t.Errorf("refused %v, want anyof, enum, ref, string and true", refused)
	}

	ctx := t.Context()
	if tl := served["members"]; tl != nil {
		res := tool.Run(ctx, tl, tool.Call{ID: "c1", Name: "members", Args: json.RawMessage(`{"n":"x"}`)})
		if !errors.Is(res.Err, tool.ErrInvalidArguments) {
			t.Errorf(`members({"n":"x"}) = %+v, want a validation error`, res)
		}
		if n := called.Load(); n != 0 {
			t.Errorf("the server saw %d calls of arguments the schema refuses, want none", n)
		}
		if res := tool.Run(ctx, tl, tool.Call{ID: "c2", Name: "members", Args: json.RawMessage(`{"n":1}`)}); res.Err != nil || res.Content != "ok" {
			t.Errorf(`members({"n":1}) = %+v, want "ok"`, res)
		}
	}
	if tl := served["gitlab"]; tl != nil {
		if res := tool.Run(ctx, tl, tool.Call{ID: "c3", Name: "gitlab", Args: json.RawMessage(`{"project":"p"}`)}); res.Err != nil || res.Content != "ok" {
			t.Errorf(`gitlab({"project":"p"}) = %+v, want "ok"`, res)
		}
	}
}
