package mcpclient

import (
	"encoding/json"
	"testing"
)

// TestTypedObject checks which input schemas typedObject types as objects
// and how: "type":"object" at the front of the root, the rest byte for
// byte as written, white space included; a root that has a "type", whose
// kind another keyword decides, or that is not an object is left as it is.
func TestTypedObject(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}`},
		{`{ "properties": {"n": {"type": "integer"}}, "required": ["n"] }`, `{"type":"object", "properties": {"n": {"type": "integer"}}, "required": ["n"] }`},
		{"{\n\t\"additionalProperties\": false\n}", "{\"type\":\"object\",\n\t\"additionalProperties\": false\n}"},
		{`{}`, `{"type":"object"}`},
		{"{ \n}", "{\"type\":\"object\" \n}"},
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
		{`{`, `{`},
	} {
		if got := string(typedObject(json.RawMessage(tt.doc))); got != tt.want {
			t.Errorf("typedObject(%s) = %s, want %s", tt.doc, got, tt.want)
		}
	}
}
