package schema

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

type hostileArgs struct {
	Name  string  `json:"name,omitempty"`
	Count int64   `json:"count,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
	Any   any     `json:"any,omitempty"`
	Tree  *hostileTree
}

type hostileTree struct {
	Kids []*hostileTree `json:"kids,omitempty"`
}

func TestHostileInputs(t *testing.T) {
	v := mustFor[hostileArgs](t)
	deep := strings.Repeat(`{"kids":[`, 10_000) + strings.Repeat(`]}`, 10_000)
	deepAny := `{"any":` + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + `}`
	for _, tt := range []struct {
		name    string
		doc     []byte
		keyword string
		path    string
	}{
		{"10,000-deep recursive type", []byte(`{"Tree":` + deep + `}`), "limit", "*"},
		{"10,000-deep any", []byte(deepAny), "limit", "*"},
		{"10 MB string", []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`), "limit", ""},
		{"invalid UTF-8", []byte("{\"name\":\"\xff\xfe\"}"), "syntax", "/name"},
		{"lone high surrogate", []byte(`{"name":"\ud800"}`), "syntax", "/name"},
		{"lone low surrogate", []byte(`{"name":"\udc00x"}`), "syntax", "/name"},
		{"duplicate key", []byte(`{"name":"a","name":"b"}`), "syntax", "/name"},
		{"duplicate key, escaped", []byte(`{"name":"a","n\u0061me":"b"}`), "syntax", "/name"},
		{"1e400 into a float", []byte(`{"ratio":1e400}`), "range", "/ratio"},
		{"1e400 into an int", []byte(`{"count":1e400}`), "range", "/count"},
		{"2^63 into an int64", []byte(`{"count":9223372036854775808}`), "range", "/count"},
		{"NaN", []byte(`{"ratio":NaN}`), "syntax", "/ratio"},
		{"Infinity", []byte(`{"ratio":Infinity}`), "syntax", "/ratio"},
		{"BOM", []byte("\xef\xbb\xbf{}"), "syntax", ""},
		{"trailing bytes", []byte(`{} x`), "syntax", ""},
		{"two values", []byte(`{}{}`), "syntax", ""},
		{"top-level array", []byte(`[]`), "type", ""},
		{"top-level string", []byte(`"{}"`), "type", ""},
		{"top-level null", []byte(`null`), "type", ""},
		{"top-level number", []byte(`1`), "type", ""},
		{"empty body", []byte(``), "syntax", ""},
		{"whitespace body", []byte(" \n\t"), "syntax", ""},
		{"truncated", []byte(`{"name":"a`), "syntax", "/name"},
		{"comment", []byte(`{/* hi */}`), "syntax", ""},
		{"single quotes", []byte(`{'name':'a'}`), "syntax", ""},
		{"trailing comma", []byte(`{"name":"a",}`), "syntax", ""},
		{"leading zero", []byte(`{"count":01}`), "syntax", ""},
		{"control character in string", []byte("{\"name\":\"a\x01\"}"), "syntax", "/name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got hostileArgs
			err := v.Decode(tt.doc, &got)
			serr, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Decode = %v, want a *Error", err)
			}
			if len(serr.Issues) != 1 {
				t.Fatalf("Decode = %v, want exactly one issue", err)
			}
			is := serr.Issues[0]
			if is.Keyword != tt.keyword || (tt.path != "*" && is.Path != tt.path) {
				t.Errorf("issue = %.200v, want keyword %q at %q", is, tt.keyword, tt.path)
			}
			if text := is.String(); len(text) > 300 {
				t.Errorf("the issue's text is %d bytes long: %.80q…", len(text), text)
			}
		})
	}

	// -0 is zero, for integers and floats.
	var got hostileArgs
	if err := v.Decode([]byte(`{"count":-0,"ratio":-0}`), &got); err != nil || got.Count != 0 || got.Ratio != 0 {
		t.Errorf("Decode(-0) = %+v, %v", got, err)
	}
}

// TestHostileMemoryIsBounded checks that rejecting a document past the size
// limit costs no memory in proportion to it, and that a deep one costs no
// more than its depth limit allows.
func TestHostileMemoryIsBounded(t *testing.T) {
	v := mustFor[hostileArgs](t)
	big := []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`)
	deep := []byte(`{"Tree":` + strings.Repeat(`{"kids":[`, 10_000) + strings.Repeat(`]}`, 10_000) + `}`)
	for _, tt := range []struct {
		name  string
		doc   []byte
		limit uint64
	}{
		{"10 MB string", big, 64 << 10},
		{"10,000 levels", deep, 1 << 20},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 10 {
			if v.Validate(tt.doc) == nil {
				t.Fatalf("%s: accepted", tt.name)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > tt.limit {
			t.Errorf("%s: rejecting it allocated %d bytes a time, want at most %d", tt.name, per, tt.limit)
		}
	}
}

func TestSizeLimitIsConfigurable(t *testing.T) {
	doc := []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`)
	v, err := For[hostileArgs](&Options{Limits: Limits{MaxBytes: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var got hostileArgs
	if err := v.Decode(doc, &got); err != nil || len(got.Name) != 10<<20 {
		t.Errorf("with no size limit, Decode = %v (name %d bytes)", err, len(got.Name))
	}
	small, _ := For[hostileArgs](&Options{Limits: Limits{MaxBytes: 16, MaxDepth: 2}})
	if err := small.Validate(bytes.Repeat([]byte(" "), 17)); err == nil {
		t.Error("MaxBytes 16 accepted 17 bytes")
	}
	if err := small.Validate([]byte(`{"any":[[1]]}`)); err == nil {
		t.Error("MaxDepth 2 accepted 3 levels")
	}
	if err := small.Validate([]byte(`{"any":[1]}`)); err != nil {
		t.Errorf("MaxDepth 2 rejected 2 levels: %v", err)
	}
}
