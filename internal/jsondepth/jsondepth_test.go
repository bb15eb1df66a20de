package jsondepth

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestDeepest(t *testing.T) {
	for _, tt := range []struct {
		doc   string
		limit int
		want  int
	}{
		{doc: `1`, limit: 5, want: 0},
		{doc: `{"a":[1,{"b":2}]}`, limit: 5, want: 3},
		{doc: `{"a":"[[[{{{"}`, limit: 5, want: 1},
		{doc: `{"a":"\"[[["}`, limit: 5, want: 1},
		{doc: `[[],[[]]]`, limit: 5, want: 3},
		{doc: strings.Repeat("[", 100), limit: 10, want: 11},
	} {
		if got := Deepest([]byte(tt.doc), tt.limit); got != tt.want {
			t.Errorf("Deepest(%.40s, %d) = %d, want %d", tt.doc, tt.limit, got, tt.want)
		}
	}
}

// FuzzDeepest checks Deepest against jsontext's own count of nesting on
// every valid document.
func FuzzDeepest(f *testing.F) {
	for _, s := range []string{`1`, `{"a":[1,{"b":2}]}`, `{"a":"[[[{{{"}`, `[[],[[]]]`, `"\\\""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := jsontext.NewDecoder(strings.NewReader(string(data)))
		deepest := 0
		for {
			if _, err := dec.ReadToken(); err != nil {
				break
			}
			deepest = max(deepest, dec.StackDepth())
		}
		if _, err := jsontext.AppendFormat(nil, data); err != nil {
			return // not JSON: only the count of valid documents is compared
		}
		if got := Deepest(data, 1<<20); got != deepest {
			t.Errorf("Deepest(%q) = %d, jsontext says %d", data, got, deepest)
		}
	})
}
