package tooltest

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxOldCalls is how many calls oldCalls tries to make.
const maxOldCalls = 16

// oldCalls returns up to maxOldCalls argument objects valid under s, the
// input schema of an earlier version of a tool as a snapshot holds it:
// values built from its structure (its enum and const values, examples
// and defaults, bounds, the branches of its unions, with and without the
// optional properties), each kept only if s's validator accepts it. It
// returns none when s cannot be resolved (a reference to another
// document) or no value built fits (a pattern, say).
func oldCalls(s *jsonschema.Schema) []json.RawMessage {
	if s == nil {
		return nil
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	var out []json.RawMessage
	for variant := range maxOldCalls {
		g := &callMaker{root: s, variant: variant}
		v := g.value(s, 0)
		data, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var decoded any
		if json.Unmarshal(data, &decoded) != nil || resolved.Validate(decoded) != nil {
			continue
		}
		if !slices.ContainsFunc(out, func(d json.RawMessage) bool { return string(d) == string(data) }) {
			out = append(out, data)
		}
	}
	return out
}

// A callMaker builds one value of a schema; variant chooses among enum
// values, union branches and optional properties.
type callMaker struct {
	root    *jsonschema.Schema
	variant int
	values  int // values built so far, bounded by maxCallValues
}

// maxCallValues bounds the values one call holds, so that a wide or
// recursive schema costs at most that much per call.
const maxCallValues = 4096

// pick returns the variant's choice among n.
func (g *callMaker) pick(n int) int { return g.variant % n }

// deref follows a local $ref into $defs or definitions.
func (g *callMaker) deref(s *jsonschema.Schema) *jsonschema.Schema {
	for range 8 {
		if s == nil || s.Ref == "" {
			return s
		}
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		defs := g.root.Defs
		if !ok {
			name, ok = strings.CutPrefix(s.Ref, "#/definitions/")
			defs = g.root.Definitions
		}
		if !ok || defs[name] == nil {
			return s
		}
		s = defs[name]
	}
	return s
}

// merged returns s with the schemas of its allOf and the chosen branch of
// its anyOf or oneOf merged in, one level deep: their properties,
// required names, type and bounds.
func (g *callMaker) merged(s *jsonschema.Schema) *jsonschema.Schema {
	s = g.deref(s)
	parts := []*jsonschema.Schema{}
	parts = append(parts, s.AllOf...)
	for _, union := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(union) > 0 {
			parts = append(parts, union[g.pick(len(union))])
		}
	}
	if len(parts) == 0 {
		return s
	}
	m := *s
	m.AllOf, m.AnyOf, m.OneOf = nil, nil, nil
	m.Properties = map[string]*jsonschema.Schema{}
	for name, p := range s.Properties {
		m.Properties[name] = p
	}
	for _, p := range parts {
		p = g.deref(p)
		if p == nil {
			continue
		}
		for name, ps := range p.Properties {
			if _, ok := m.Properties[name]; !ok {
				m.Properties[name] = ps
			}
		}
		m.Required = append(slices.Clip(m.Required), p.Required...)
		if m.Type == "" && m.Types == nil {
			m.Type, m.Types = p.Type, p.Types
		}
		if m.Enum == nil && m.Const == nil {
			m.Enum, m.Const = p.Enum, p.Const
		}
		for _, f := range [][2]**float64{{&m.Minimum, &p.Minimum}, {&m.Maximum, &p.Maximum}, {&m.ExclusiveMinimum, &p.ExclusiveMinimum}, {&m.ExclusiveMaximum, &p.ExclusiveMaximum}, {&m.MultipleOf, &p.MultipleOf}} {
			if *f[0] == nil {
				*f[0] = *f[1]
			}
		}
		for _, f := range [][2]**int{{&m.MinLength, &p.MinLength}, {&m.MaxLength, &p.MaxLength}, {&m.MinItems, &p.MinItems}, {&m.MaxItems, &p.MaxItems}} {
			if *f[0] == nil {
				*f[0] = *f[1]
			}
		}
		if m.Items == nil {
			m.Items = p.Items
		}
		if m.Format == "" {
			m.Format = p.Format
		}
	}
	return &m
}

func (g *callMaker) value(s *jsonschema.Schema, depth int) any {
	if g.values++; s == nil || depth > 8 || g.values > maxCallValues {
		return "x"
	}
	s = g.merged(s)
	switch {
	case s.Const != nil:
		return *s.Const
	case len(s.Enum) > 0:
		return s.Enum[g.pick(len(s.Enum))]
	case len(s.Examples) > 0 && g.variant%3 == 2:
		return s.Examples[g.pick(len(s.Examples))]
	case s.Default != nil && g.variant%4 == 3:
		var v any
		if json.Unmarshal(s.Default, &v) == nil {
			return v
		}
	}
	switch g.typeOf(s) {
	case "null":
		return nil
	case "boolean":
		return g.variant%2 == 0
	case "object":
		obj := map[string]any{}
		optional := g.variant%2 == 1
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if optional || slices.Contains(s.Required, name) {
				obj[name] = g.value(s.Properties[name], depth+1)
			}
		}
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				obj[name] = "x"
			}
		}
		return obj
	case "array":
		n := 0
		if s.MinItems != nil {
			n = *s.MinItems
		}
		if g.variant%2 == 1 && (s.MaxItems == nil || *s.MaxItems > n) {
			n++
		}
		n = min(n, 8)
		arr := make([]any, 0, n)
		for i := range n {
			item := s.Items
			if i < len(s.PrefixItems) {
				item = s.PrefixItems[i]
			}
			arr = append(arr, g.value(item, depth+1))
		}
		return arr
	case "integer", "number":
		return g.number(s)
	}
	return g.text(s)
}

// typeOf returns the type of value to build for s.
func (g *callMaker) typeOf(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case len(s.Types) > 0:
		return s.Types[g.pick(len(s.Types))]
	case s.Properties != nil || s.Required != nil:
		return "object"
	case s.Items != nil || s.PrefixItems != nil || s.MinItems != nil:
		return "array"
	case s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil:
		return "number"
	}
	return "string"
}

func (g *callMaker) number(s *jsonschema.Schema) any {
	lo, hi := math.Inf(-1), math.Inf(1)
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if s.ExclusiveMinimum != nil {
		lo = math.Max(lo, math.Floor(*s.ExclusiveMinimum)+1)
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	if s.ExclusiveMaximum != nil {
		hi = math.Min(hi, math.Ceil(*s.ExclusiveMaximum)-1)
	}
	v := float64(g.variant % 3)
	switch {
	case g.variant%2 == 1 && !math.IsInf(hi, 1):
		v = math.Floor(hi)
	case !math.IsInf(lo, -1):
		v = math.Ceil(lo)
	case !math.IsInf(hi, 1):
		v = math.Floor(hi)
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
	}
	return v
}

// text returns a string for s: by its format, else as long as its
// minLength asks.
func (g *callMaker) text(s *jsonschema.Schema) string {
	switch s.Format {
	case "date-time":
		return "2024-01-02T03:04:05Z"
	case "date":
		return "2024-01-02"
	case "time":
		return "03:04:05Z"
	case "email":
		return "a@example.com"
	case "uri", "url":
		return "https://example.com/a"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	n := 1 + g.variant%3
	if s.MinLength != nil {
		n = max(n, *s.MinLength)
	}
	if s.MaxLength != nil {
		n = min(n, *s.MaxLength)
	}
	return strings.Repeat("a", min(max(n, 0), 64))
}
