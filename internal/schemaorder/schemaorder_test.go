package schemaorder

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestUnmarshalKeepsOrderAtEveryLevel(t *testing.T) {
	tests := []string{
		`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"object","properties":{"y":{"type":"integer"},"b":{"type":"integer"}}}}}`,
		`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"z":{"type":"null"},"a":{"type":"null"}}}}},"$defs":{"d":{"type":"object","properties":{"q":{"type":"null"},"c":{"type":"null"}}}}}`,
		`{"type":"object","properties":{"n":{"type":"object","additionalProperties":{"properties":{"x":{"type":"null"},"w":{"type":"null"}}}},"a":{"type":"null"}},"anyOf":[{"properties":{"m":{"type":"null"},"e":{"type":"null"}}},true]}`,
	}
	for _, doc := range tests {
		var s jsonschema.Schema
		if err := Unmarshal([]byte(doc), &s); err != nil {
			t.Fatalf("Unmarshal(%s): %v", doc, err)
		}
		got, err := json.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != doc {
			t.Errorf("round trip:\n got %s\nwant %s", got, doc)
		}
	}
}

func TestUnmarshalRefusesWhatJSONRefuses(t *testing.T) {
	for _, doc := range []string{`{"type":`, `[]`, `{"properties":{"a":1}}`} {
		var s jsonschema.Schema
		if err := Unmarshal([]byte(doc), &s); err == nil {
			t.Errorf("Unmarshal(%s): no error", doc)
		}
	}
}
