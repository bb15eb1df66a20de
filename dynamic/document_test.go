package dynamic_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/tool"
)

// TestTypedObject checks which documents TypedObject types as objects
// and how: "type":"object" at the front of the root, the rest byte for
// byte as written, white space included; a root that has a "type", whose
// kind another keyword decides, or that is not an object is left as it
// is. The typed document reads as its bytes do, in every form.
func TestTypedObject(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}`},
		{`{ "properties": {"n": {"type": "integer"}}, "required": ["n"] }`, `{"type":"object", "properties": {"n": {"type": "integer"}}, "required": ["n"] }`},
		{"{\n\t\"additionalProperties\": false\n}", "{\"type\":\"object\",\n\t\"additionalProperties\": false\n}"},
		{`{}`, `{"type":"object"}`},
		{"{ \n}", "{\"type\":\"object\" \n}"},
		{" \n{}\n", " \n{\"type\":\"object\"}\n"},
		{`{"then":{"type":"string"}}`, `{"type":"object","then":{"type":"string"}}`}, // then without if is no constraint
		// Left as they are.
		{`{"type":"object"}`, `{"type":"object"}`},
		{`{"type":"string"}`, `{"type":"string"}`},
		{`{"properties":{},"type":["object","null"]}`, `{"properties":{},"type":["object","null"]}`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}}`, `{"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}}`},
		{`{"$dynamicRef":"#a"}`, `{"$dynamicRef":"#a"}`},
		{`{"$recursiveRef":"#"}`, `{"$recursiveRef":"#"}`},
		{`{"allOf":[{"type":"object"}]}`, `{"allOf":[{"type":"object"}]}`},
		{`{"anyOf":[{"required":["a"]}]}`, `{"anyOf":[{"required":["a"]}]}`},
		{`{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"}]}`},
		{`{"not":{"type":"object"}}`, `{"not":{"type":"object"}}`},
		{`{"if":true,"then":{"type":"string"}}`, `{"if":true,"then":{"type":"string"}}`},
		{`{"enum":[{}]}`, `{"enum":[{}]}`},
		{`{"const":"a"}`, `{"const":"a"}`},
		{`true`, `true`},
		{`null`, `null`},
		{`[]`, `[]`},
	} {
		d, err := dynamic.Parse(json.RawMessage(tt.doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.doc, err)
		}
		typed := d.TypedObject()
		if got := string(typed.Bytes()); got != tt.want {
			t.Errorf("Parse(%s).TypedObject() = %s, want %s", tt.doc, got, tt.want)
		}
		// The typed document says what its bytes say.
		again, err := dynamic.Parse(typed.Bytes())
		if err != nil {
			t.Fatalf("Parse(%s): %v", typed.Bytes(), err)
		}
		var v any
		if err := json.Unmarshal(typed.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if !typed.Equal(v) {
			t.Errorf("Parse(%s).TypedObject().Equal(%v) = false, want true", tt.doc, v)
		}
		got, gotErr := typed.Schema()
		want, wantErr := again.Schema()
		if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("Parse(%s).TypedObject().Schema() = %+v, %v; parsed from its bytes: %+v, %v", tt.doc, got, gotErr, want, wantErr)
		}
	}
}

// TestNewFromDocument checks that a tool defined from a parsed document
// is the tool New defines from its bytes, its spec and its validation,
// and that Parse's errors are New's.
func TestNewFromDocument(t *testing.T) {
	d, err := dynamic.Parse(json.RawMessage(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	fromDoc, err := dynamic.NewFromDocument("lookup_order", "Look up an order.", d, echo)
	if err != nil {
		t.Fatal(err)
	}
	fromBytes, err := dynamic.New("lookup_order", "Look up an order.", json.RawMessage(orderSchema), echo)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fromDoc.Spec(), fromBytes.Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("NewFromDocument's spec = %+v, want New's %+v", got, want)
	}
	gotJSON, _ := json.Marshal(fromDoc.Spec().InputSchema)
	if want := `{"type":"object","properties":{"order":{"type":"string","description":"the order number","pattern":"^[0-9]{8}$"},"items":`; !strings.HasPrefix(string(gotJSON), want) {
		t.Errorf("the spec's input schema = %s, want the order of the document's properties", gotJSON)
	}
	for _, args := range []string{`{"order":"12345678"}`, `{"order":"1"}`, `{`} {
		a := tool.Run(context.Background(), fromDoc, tool.Call{ID: "1", Name: "lookup_order", Args: json.RawMessage(args)})
		b := tool.Run(context.Background(), fromBytes, tool.Call{ID: "1", Name: "lookup_order", Args: json.RawMessage(args)})
		if a.IsError != b.IsError || a.Content != b.Content {
			t.Errorf("Run(%s) = %+v from the document, %+v from the bytes", args, a, b)
		}
	}
	for _, tt := range []struct {
		doc string
		err error
	}{
		{`{"type":`, dynamic.ErrSchemaSyntax},
		{`{"type":"object","properties":{"a":{"type":"string"}}`, dynamic.ErrSchemaSyntax},
		{`{"type":"string"}`, dynamic.ErrNotObject},
		{`{"type":"object","minLength":3000000000}`, dynamic.ErrSchemaInvalid},
	} {
		_, newErr := dynamic.New("t", "A tool.", json.RawMessage(tt.doc), echo)
		if !errors.Is(newErr, tt.err) {
			t.Errorf("New(%s) = %v, want %v", tt.doc, newErr, tt.err)
		}
		d, err := dynamic.Parse(json.RawMessage(tt.doc))
		if err == nil {
			_, err = dynamic.NewFromDocument("t", "A tool.", d, echo)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse and NewFromDocument(%s) = %v, want %v", tt.doc, err, tt.err)
		}
	}
}
