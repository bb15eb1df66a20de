package dynamic

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hands-go/hands/internal/jsondepth"
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
	{"not JSON, then too deep", `{"a":x` + strings.Repeat("[", MaxSchemaDepth+1), ErrSchemaTooDeep},
	{"too deep, then not JSON", strings.Repeat("[", MaxSchemaDepth+1) + `x`, ErrSchemaTooDeep},
	{"not JSON", `{"a":x}`, ErrSchemaSyntax},
	{"text after the document", `{"type":"object"} {}`, ErrSchemaSyntax},
}

// TestParseBounds checks the bounds Parse holds a document to, and that
// a document too deep is that, whatever else is wrong with it.
func TestParseBounds(t *testing.T) {
	for _, tt := range boundsCases {
		_, err := Parse([]byte(tt.doc))
		if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("Parse(%s) = %v, want %v", tt.name, err, tt.err)
		}
		if errors.Is(tt.err, ErrSchemaTooDeep) || errors.Is(tt.err, ErrSchemaTooLarge) {
			if _, ok := errors.AsType[*BoundsError](err); !ok {
				t.Errorf("Parse(%s) = %T, want a *BoundsError", tt.name, err)
			}
		}
	}
}

// FuzzParseBounds checks that Parse finds a document too deep exactly
// when a count of its brackets outside strings, before it is read as JSON
// (jsondepth), does, valid JSON or not; and, for valid JSON, when
// jsontext's own count of its depth does.
func FuzzParseBounds(f *testing.F) {
	for _, tt := range boundsCases {
		if len(tt.doc) < 1<<16 {
			f.Add(tt.doc)
		}
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > MaxSchemaBytes {
			return
		}
		tooDeep := errors.Is(func() error { _, err := Parse([]byte(doc)); return err }(), ErrSchemaTooDeep)
		if want := jsondepth.Deepest([]byte(doc), MaxSchemaDepth) > MaxSchemaDepth; tooDeep != want {
			t.Errorf("Parse(%q) too deep: %v; jsondepth: %v", doc, tooDeep, want)
		}
		if !jsontext.Value(doc).IsValid() {
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
		if tooDeep != (deepest > MaxSchemaDepth) {
			t.Errorf("Parse(%q) too deep: %v; jsontext counts %d levels, bound %d", doc, tooDeep, deepest, MaxSchemaDepth)
		}
	})
}

// TestValidatorHoldsLittle checks what a validator keeps of a schema of
// MaxSchemaBytes: the document as parsed and compiled, not the tree it
// was read into, which takes several times the memory (a hundred bytes an
// element of an array, where the value takes about forty). A server that
// proxies another server's tools keeps a validator for each of them.
func TestValidatorHoldsLittle(t *testing.T) {
	doc := json.RawMessage(`{"type":"object","properties":{"a":{"enum":[` + strings.Repeat("0,", MaxSchemaBytes/2-40) + `0]}}}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := NewValidator(doc)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if limit := int64(40 * len(doc)); held > limit {
		t.Errorf("a validator of a schema of %d bytes holds %d bytes, over %d", len(doc), held, limit)
	}
	runtime.KeepAlive(v)
}
