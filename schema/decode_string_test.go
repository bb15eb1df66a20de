package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// keptStrings is a type whose decoding keeps strings of every kind: fields,
// items, map keys and map values.
type keptStrings struct {
	Name   string            `json:"name,omitempty"`
	Tags   []string          `json:"tags,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Nested []keptStrings     `json:"nested,omitempty"`
}

// longKeptDoc is a document whose kept strings, with and without escapes,
// run past maxStringChunk, so that some lie across the end of a window and
// some are longer than one.
func longKeptDoc() string {
	var b strings.Builder
	b.WriteString(`{"name":"` + strings.Repeat("n", maxStringChunk+3) + `","tags":[`)
	for i := range 600 {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%7 == 0 {
			b.WriteString(`"esc\u00e9\"` + strings.Repeat("e", i%40) + `"`)
		} else {
			b.WriteString(`"tag-` + strings.Repeat("t", i%50) + `"`)
		}
	}
	b.WriteString(`],"labels":{"k\n":"v","long":"` + strings.Repeat("l", 2*maxStringChunk) + `"}}`)
	return b.String()
}

// keptDocs are documents FuzzKeptStrings starts from; each is valid.
var keptDocs = []string{
	`{"name":"a","tags":["x","y\u0000z"],"labels":{"k":"v","\u00e9":"\ud83d\ude00"}}`,
	`{"name":"","tags":[],"labels":{},"nested":[{"name":"inner","tags":["q\"r"]}]}`,
	`{"name":"\\\/\b\f\n\r\t","labels":{"a":"b","c":"d"}}`,
	longKeptDoc(),
}

// checkKept decodes data and, when the decoder accepts it, checks that it
// decodes what encoding/json decodes, and that the value it returned does
// not change when other documents are decoded afterwards. It reports
// whether the decoder accepted data.
func checkKept(t *testing.T, v *Validator, data []byte) bool {
	t.Helper()
	got, _, err := DecodeValue[keptStrings](v, data)
	if err != nil {
		return false
	}
	var want keptStrings
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("DecodeValue accepts %.200q, which encoding/json rejects: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeValue(%.200q) = %+.200v, encoding/json decodes %+.200v", data, got, want)
	}
	other := []byte(`{"name":"zzzzzzzzzzzzzzzzzzzz","tags":["zzzzzzzzzzzzzzzz","zz\nzzzzz"],"labels":{"zzzz":"zzzzzzzzzzzz"}}`)
	for range 3 {
		if _, _, err := DecodeValue[keptStrings](v, other); err != nil {
			t.Fatal(err)
		}
		if _, _, err := DecodeValue[keptStrings](v, data); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the value DecodeValue(%.200q) returned changed when other documents were decoded: now %+.200v", data, got)
	}
	return true
}

// TestKeptStrings runs checkKept on the documents the fuzzer starts from,
// which must be accepted.
func TestKeptStrings(t *testing.T) {
	v := mustFor[keptStrings](t)
	for _, doc := range keptDocs {
		if !checkKept(t, v, []byte(doc)) {
			_, _, err := DecodeValue[keptStrings](v, []byte(doc))
			t.Errorf("DecodeValue(%.200q) = %v, want it accepted", doc, err)
		}
	}
}

// FuzzKeptStrings checks the strings the decoder keeps (see checkKept) on
// arbitrary bytes.
func FuzzKeptStrings(f *testing.F) {
	for _, doc := range keptDocs {
		f.Add([]byte(doc))
	}
	v := mustFor[keptStrings](f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkKept(t, v, data)
	})
}
