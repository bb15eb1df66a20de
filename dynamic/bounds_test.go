package dynamic

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var boundsCases = []struct {
	name string
	doc  string
	err  error
}{
	{"flat", `{"type":"object"}`, nil},
	{"at the depth bound", strings.Repeat("[", MaxSchemaDepth) + strings.Repeat("]", MaxSchemaDepth), nil},
	{"past the depth bound", strings.Repeat("[", MaxSchemaDepth+1) + strings.Repeat("]", MaxSchemaDepth+1), ErrSchemaTooDeep},
	{"brackets in strings", `{"a":"` + strings.Repeat("{[", 100) + `\"{"}`, nil},
	{"too large", `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, ErrSchemaTooLarge},
}

func TestCheckBounds(t *testing.T) {
	for _, tt := range boundsCases {
		err := checkBounds([]byte(tt.doc))
		if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("checkBounds(%s) = %v, want %v", tt.name, err, tt.err)
		}
		if tt.err != nil {
			if _, ok := errors.AsType[*BoundsError](err); !ok {
				t.Errorf("checkBounds(%s) = %T, want a *BoundsError", tt.name, err)
			}
		}
	}
}

// FuzzCheckBounds checks checkBounds against jsontext's own count of the
// depth of a valid document.
func FuzzCheckBounds(f *testing.F) {
	for _, tt := range boundsCases {
		if len(tt.doc) < 1<<16 {
			f.Add(tt.doc)
		}
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !jsontext.Value(doc).IsValid() {
			checkBounds([]byte(doc)) // must not panic
			return
		}
		deepest := 0
		dec := jsontext.NewDecoder(strings.NewReader(doc))
		for {
			if _, err := dec.ReadToken(); err != nil {
				break
			}
			deepest = max(deepest, dec.StackDepth())
		}
		tooDeep := errors.Is(checkBounds([]byte(doc)), ErrSchemaTooDeep)
		if tooDeep != (deepest > MaxSchemaDepth) {
			t.Errorf("checkBounds(%q) too deep: %v; jsontext counts %d levels, bound %d", doc, tooDeep, deepest, MaxSchemaDepth)
		}
	})
}
