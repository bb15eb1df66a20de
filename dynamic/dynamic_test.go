package dynamic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

const orderSchema = `{
	"type": "object",
	"properties": {
		"order": {"type": "string", "pattern": "^[0-9]{8}$", "description": "the order number"},
		"items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}, "required": ["sku"]}},
		"contact": {"type": "string", "format": "email"},
		"mode": {"oneOf": [{"const": "fast"}, {"const": "cheap"}]}
	},
	"required": ["order"],
	"additionalProperties": false,
	"if": {"properties": {"mode": {"const": "fast"}}, "required": ["mode"]},
	"then": {"required": ["contact"]}
}`

func echo(ctx context.Context, args json.RawMessage) (any, error) { return args, nil }

func TestNewValidatesAtTheBoundary(t *testing.T) {
	lookup, err := dynamic.New("lookup_order", "Look up an order.", json.RawMessage(orderSchema), echo)
	if err != nil {
		t.Fatal(err)
	}
	if d := lookup.Spec().InputSchema.Properties["order"].Description; d != "the order number" {
		t.Errorf("spec description = %q", d)
	}
	for _, tt := range []struct {
		args  string
		paths []string // "path keyword" of each issue; nil when valid
	}{
		{args: `{"order":"12345678"}`},
		{args: `{"order":"12345678","mode":"fast","contact":"a@b.co","items":[{"sku":"x","qty":2}]}`},
		{args: `{"order":"123"}`, paths: []string{"/order pattern"}},
		{args: `{}`, paths: []string{" required"}},
		{args: `{"order":"12345678","extra":1}`, paths: []string{" additionalProperties"}},
		{args: `{"order":"12345678","items":[{"qty":0}],"contact":"nope"}`, paths: []string{"/contact format", "/items/0 required", "/items/0/qty minimum"}},
		{args: `{"order":"12345678","mode":"fast"}`, paths: []string{" required"}},
		{args: `{"order":"12345678","mode":"slow"}`, paths: []string{"/mode const", "/mode const"}},
		{args: `{"order":`, paths: []string{"/order syntax"}},
	} {
		res := tool.Run(t.Context(), lookup, tool.Call{ID: "1", Name: "lookup_order", Args: json.RawMessage(tt.args)})
		if tt.paths == nil {
			if res.IsError || res.Content != tt.args {
				t.Errorf("Run(%s) = %+v, want the arguments echoed", tt.args, res)
			}
			continue
		}
		verr, ok := errors.AsType[*tool.ValidationError](res.Err)
		if !ok {
			t.Errorf("Run(%s) = %+v, want a *tool.ValidationError", tt.args, res)
			continue
		}
		var got []string
		for _, is := range verr.Issues {
			got = append(got, is.Path+" "+is.Keyword)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.paths) {
			t.Errorf("Run(%s) issues = %q, want %q", tt.args, got, tt.paths)
		}
		if !strings.Contains(res.Content, "Fix these and call lookup_order again") {
			t.Errorf("Content = %q", res.Content)
		}
	}
}

func TestNewRejectsBadSchemas(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		want         error
	}{
		{"not JSON", `{"type":`, dynamic.ErrSchemaSyntax},
		{"not an object schema", `{"type":"array"}`, dynamic.ErrNotObject},
		{"invalid schema", `{"type":"object","properties":{"a":{"minLength":-1}}}`, dynamic.ErrSchemaInvalid},
		{"remote reference", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, dynamic.ErrSchemaInvalid},
		{"file reference", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, dynamic.ErrSchemaInvalid},
	} {
		_, err := dynamic.New("t", "A tool.", json.RawMessage(tt.schema), echo)
		if _, ok := errors.AsType[*tool.DefinitionError](err); !ok || !errors.Is(err, tt.want) {
			t.Errorf("%s: New = %v, want a *tool.DefinitionError matching %v", tt.name, err, tt.want)
		}
		if tt.want != dynamic.ErrNotObject {
			if _, err := dynamic.NewValidator(json.RawMessage(tt.schema)); !errors.Is(err, tt.want) {
				t.Errorf("%s: NewValidator = %v, want %v", tt.name, err, tt.want)
			}
		}
	}
}

func TestDynamicToolInARegistry(t *testing.T) {
	enabled := true
	dyn, err := dynamic.New("lookup_order", "Look up an order.", json.RawMessage(orderSchema), echo,
		tool.WithEnabled(func(context.Context) bool { return enabled }))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "orders", Tools: []tool.Interface{dyn}})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	reg.Use(tool.BeforeCall(func(ctx context.Context, c *tool.Call) error {
		seen = append(seen, c.Name)
		return nil
	}))
	res := tool.Run(t.Context(), reg, tool.Call{Name: "lookup_order", Args: json.RawMessage(`{"order":"12345678"}`)})
	if res.IsError || len(seen) != 1 {
		t.Errorf("Run = %+v (middleware saw %v)", res, seen)
	}
	enabled = false
	if len(reg.Specs(t.Context())) != 0 {
		t.Error("a disabled dynamic tool is listed")
	}
	res = tool.Run(t.Context(), reg, tool.Call{Name: "lookup_order", Args: json.RawMessage(`{"order":"12345678"}`)})
	if _, ok := errors.AsType[*tool.DisabledToolError](res.Err); !ok {
		t.Errorf("Run while disabled = %+v", res)
	}
}

// TestValidator checks that a Validator holds any document to a schema that
// need not describe an object, reporting each failure at its path.
func TestValidator(t *testing.T) {
	v, err := dynamic.NewValidator(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(json.RawMessage(`{"n":2}`)); err != nil {
		t.Errorf("Validate(valid) = %v", err)
	}
	serr, ok := errors.AsType[*schema.Error](v.Validate(json.RawMessage(`{"n":0}`)))
	if !ok || len(serr.Issues) != 1 || serr.Issues[0].Path != "/n" || serr.Issues[0].Keyword != "minimum" {
		t.Errorf("Validate(invalid) = %v, want one minimum issue at /n", serr)
	}
	list, err := dynamic.NewValidator(json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	if err != nil {
		t.Fatalf("NewValidator(array schema) = %v", err)
	}
	if err := list.Validate(json.RawMessage(`["a",1]`)); err == nil {
		t.Error("Validate of a number among strings = nil")
	}
	if _, err := dynamic.NewValidator(json.RawMessage(`{"$ref":"https://example.com/s.json"}`)); err == nil {
		t.Error("NewValidator of a schema referring to another document = nil error")
	}
}

// TestExamples checks that a dynamic tool's examples are held to its
// schema, with the complete validator: one that breaks the if/then rule is
// a definition error that names it.
func TestExamples(t *testing.T) {
	good := []json.RawMessage{
		json.RawMessage(`{"order":"12345678"}`),
		json.RawMessage(`{"order": "87654321", "mode": "fast", "contact": "a@b.co"}`),
	}
	lookup, err := dynamic.New("lookup_order", "Look up an order.", json.RawMessage(orderSchema), echo, tool.WithExamplesJSON(good...))
	if err != nil {
		t.Fatal(err)
	}
	got := lookup.Spec().Examples
	if len(got) != 2 || string(got[0]) != `{"order":"12345678"}` || string(got[1]) != `{"order":"87654321","mode":"fast","contact":"a@b.co"}` {
		t.Errorf("Spec().Examples = %q, want the two examples, compact", got)
	}

	_, err = dynamic.New("lookup_order", "Look up an order.", json.RawMessage(orderSchema), echo,
		tool.WithExamplesJSON(append(good, json.RawMessage(`{"order":"12345678","mode":"fast"}`))...))
	eerr, ok := errors.AsType[*tool.ExampleError](err)
	if _, isDef := errors.AsType[*tool.DefinitionError](err); !ok || !isDef {
		t.Fatalf("New with an example that breaks the schema's if/then = %v, want a *tool.DefinitionError holding a *tool.ExampleError", err)
	}
	if eerr.Index != 2 || len(eerr.Issues) != 1 || eerr.Issues[0].Keyword != "required" {
		t.Errorf("the example error names example %d with issues %v, want example 2 with one issue of required", eerr.Index, eerr.Issues)
	}
}
