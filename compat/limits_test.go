package compat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func mustParse(t testing.TB, doc string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("parse: %v", err)
	}
	return &s
}

// size counts the schemas in s and the values of their enums.
func size(s *jsonschema.Schema) int {
	n := 0
	walk(s, 0, func(s *jsonschema.Schema) { n += 1 + len(s.Enum) })
	return n
}

// build parses doc, or builds "deep N TYPE" in Go: jsonschema-go's parser
// takes time quadratic in the nesting, which ParseSnapshot bounds.
func build(t testing.TB, doc string) *jsonschema.Schema {
	var n int
	var typ string
	if _, err := fmt.Sscanf(doc, "deep %d %s", &n, &typ); err != nil {
		return mustParse(t, doc)
	}
	s := &jsonschema.Schema{Type: typ}
	for range n {
		s = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"a": s}}
	}
	return s
}

func deep(n int, leaf string) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, n) + leaf + strings.Repeat(`}}`, n)
}

func wide(n int, typ string) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":%q,"maxLength":5}`, i, typ)
	}
	b.WriteString(`},"required":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d"`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// dag returns a schema of n definitions, each an object of two properties
// that refer to the one before: written out, it would be 2^n schemas.
func dag(n int, leaf string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"$defs":{"d0":%s`, leaf)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,"d%d":{"type":"object","properties":{"l":{"$ref":"#/$defs/d%d"},"r":{"$ref":"#/$defs/d%d"}}}`, i, i-1, i-1)
	}
	fmt.Fprintf(&b, `},"$ref":"#/$defs/d%d"}`, n)
	return b.String()
}

// enums returns a string schema with n values.
func enums(n, from int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf(`"v%d"`, from+i)
	}
	return `{"enum":[` + strings.Join(vals, ",") + `]}`
}

// unions returns n nested anyOf of two branches, each wrapping the next.
func unions(n int) string {
	return strings.Repeat(`{"anyOf":[{"type":"string"},`, n) + `{"type":"integer"}` + strings.Repeat(`]}`, n)
}

// TestWorkIsBounded compares hostile pairs of schemas and checks that the
// work, counted in steps, grows at most linearly with their sizes, and that
// a comparison that would cost more stops at Options.MaxSteps with an
// Unknown change instead.
func TestWorkIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new string
		opts     *Options
		breaks   bool
		limit    bool // a KindLimit change is reported
		perNode  int  // steps allowed per schema of the two
	}{
		{name: "deep within MaxDepth", old: deep(100, `{"type":"integer"}`), new: deep(100, `{"type":"number"}`), perNode: 8},
		{name: "deep beyond MaxDepth", old: "deep 20000 integer", new: "deep 20000 number", breaks: true, limit: true, perNode: 8},
		{name: "deep narrowed", old: deep(100, `{"type":"number"}`), new: deep(100, `{"type":"integer"}`), breaks: true, perNode: 8},
		{name: "wide", old: wide(5000, "string"), new: wide(5000, "string"), perNode: 8},
		{name: "wide narrowed", old: wide(5000, "string"), new: wide(5000, "integer"), breaks: true, perNode: 8},
		{name: "shared definitions", old: dag(60, `{"type":"integer"}`), new: dag(60, `{"type":"number"}`), perNode: 16},
		{name: "shared definitions narrowed", old: dag(60, `{"type":"number"}`), new: dag(60, `{"type":"integer"}`), breaks: true, perNode: 16},
		{name: "long enums", old: enums(20000, 0), new: enums(20000, 1), breaks: true, perNode: 8},
		{name: "nested unions", old: unions(200), new: unions(200), perNode: 64},
		{name: "budget reached", old: dag(60, `{"type":"integer"}`), new: dag(60, `{"type":"number"}`), opts: &Options{MaxSteps: 100}, breaks: true, limit: true, perNode: 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old, new := build(t, tt.old), build(t, tt.new)
			n := size(old) + size(new)
			changes, steps := compareCounting(old, new, false, false, tt.opts)
			if got := Breaks(changes); got != tt.breaks {
				t.Errorf("Breaks = %v, want %v", got, tt.breaks)
			}
			limited := false
			for _, c := range changes {
				limited = limited || c.Kind == KindLimit
			}
			if limited != tt.limit {
				t.Errorf("a %s change reported: %v, want %v", KindLimit, limited, tt.limit)
			}
			max := tt.perNode*n + 100
			if tt.opts != nil && tt.opts.MaxSteps > 0 {
				max = tt.opts.MaxSteps + 100
			}
			if steps > max {
				t.Errorf("%d steps for %d schemas, want at most %d", steps, n, max)
			}
			if len(changes) > n+1 {
				t.Errorf("%d changes for %d schemas", len(changes), n)
			}
			t.Logf("%d schemas, %d steps, %d changes", n, steps, len(changes))
		})
	}
}
