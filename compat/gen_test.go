package compat_test

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// This file generates random schemas, changes them a little, and samples
// values from them, for the property and fuzz tests.

// names are the property names every generated object draws from, so that
// an undeclared property of one version may be declared by the other.
var names = []string{"a", "b", "c", "x1", "x2"}

var strs = []string{"", "a", "ab", "abc", "abcd", "abcdefgh", "A1", "x", "123", "a@b.co", "2024-01-02", "é", "zz"}

var patternPool = []string{"^a", "^[a-z]+$", "^[0-9]+$", "b", "^.{0,2}$"}

// schemaGen makes random draft 2020-12 schemas as JSON values.
type schemaGen struct {
	r      *rand.Rand
	budget int // schemas left to make, so that a schema stays small
}

func (g *schemaGen) pick(n int) int { return g.r.IntN(n) }

func (g *schemaGen) chance(p float64) bool { return g.r.Float64() < p }

// root returns an object schema whose property "v" is a random schema,
// with one definition, possibly recursive, under $defs.
func (g *schemaGen) root() map[string]any {
	g.budget = 24
	def := g.schema(2)
	if g.chance(0.3) {
		def = map[string]any{"type": "object", "properties": map[string]any{"v": g.schema(1), "next": map[string]any{"$ref": "#/$defs/d"}}}
		if g.chance(0.5) {
			def["additionalProperties"] = false
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"v": g.schema(3)},
		"required":             []any{"v"},
		"additionalProperties": false,
		"$defs":                map[string]any{"d": def},
	}
}

func (g *schemaGen) schema(depth int) map[string]any {
	g.budget--
	if depth <= 0 || g.budget <= 0 {
		return g.scalar()
	}
	switch g.pick(12) {
	case 0, 1:
		return g.object(depth)
	case 2:
		return g.array(depth)
	case 3:
		return map[string]any{"anyOf": []any{g.schema(depth - 1), g.schema(depth - 1)}}
	case 4:
		return map[string]any{"oneOf": []any{g.schema(depth - 1), g.schema(depth - 1)}}
	case 5:
		return map[string]any{"allOf": []any{g.schema(depth - 1), g.schema(depth - 1)}}
	case 6:
		return map[string]any{"$ref": "#/$defs/d"}
	case 7:
		s := g.scalar()
		if t, ok := s["type"].(string); ok && t != "null" {
			s["type"] = []any{t, "null"}
		}
		return s
	case 8:
		return map[string]any{"not": g.scalar()}
	default:
		return g.scalar()
	}
}

func (g *schemaGen) scalar() map[string]any {
	switch g.pick(6) {
	case 0:
		s := map[string]any{"type": "string"}
		if g.chance(0.4) {
			s["minLength"] = g.pick(3)
		}
		if g.chance(0.4) {
			s["maxLength"] = 1 + g.pick(5)
		}
		if g.chance(0.2) {
			s["pattern"] = patternPool[g.pick(len(patternPool))]
		}
		if g.chance(0.2) {
			s["enum"] = []any{strs[g.pick(len(strs))], strs[g.pick(len(strs))]}
		}
		return s
	case 1, 2:
		t := "integer"
		if g.chance(0.5) {
			t = "number"
		}
		s := map[string]any{"type": t}
		if g.chance(0.4) {
			s["minimum"] = float64(g.pick(5) - 2)
		}
		if g.chance(0.3) {
			s["exclusiveMaximum"] = float64(g.pick(8))
		}
		if g.chance(0.3) {
			s["maximum"] = float64(g.pick(8)) + []float64{0, 0.5}[g.pick(2)]
		}
		if g.chance(0.2) {
			s["multipleOf"] = []float64{0.5, 1, 2, 3}[g.pick(4)]
		}
		if g.chance(0.2) {
			s["enum"] = []any{float64(g.pick(4)), float64(g.pick(4))}
		}
		return s
	case 3:
		return map[string]any{"type": "boolean"}
	case 4:
		if g.chance(0.5) {
			return map[string]any{"const": strs[g.pick(4)]}
		}
		return map[string]any{"type": "null"}
	default:
		return map[string]any{}
	}
}

func (g *schemaGen) object(depth int) map[string]any {
	props := map[string]any{}
	var req []any
	for _, n := range names {
		if g.chance(0.4) {
			props[n] = g.schema(depth - 1)
			if g.chance(0.4) {
				req = append(req, n)
			}
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if req != nil {
		s["required"] = req
	}
	switch g.pick(4) {
	case 0:
		s["additionalProperties"] = false
	case 1:
		s["additionalProperties"] = g.scalar()
	}
	if g.chance(0.1) {
		s["patternProperties"] = map[string]any{"^x": g.scalar()}
	}
	if g.chance(0.1) {
		s["maxProperties"] = 1 + g.pick(3)
	}
	if g.chance(0.1) {
		s["dependentRequired"] = map[string]any{"a": []any{"b"}}
	}
	return s
}

func (g *schemaGen) array(depth int) map[string]any {
	s := map[string]any{"type": "array"}
	if g.chance(0.3) {
		s["prefixItems"] = []any{g.schema(depth - 1)}
		if g.chance(0.5) {
			s["items"] = false
		}
	}
	if _, ok := s["items"]; !ok && g.chance(0.8) {
		s["items"] = g.schema(depth - 1)
	}
	if g.chance(0.3) {
		s["minItems"] = g.pick(2)
	}
	if g.chance(0.3) {
		s["maxItems"] = 1 + g.pick(3)
	}
	if g.chance(0.1) {
		s["uniqueItems"] = true
	}
	return s
}

// clone copies a JSON value deeply.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = clone(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = clone(e)
		}
		return s
	}
	return v
}

// subschemas returns every schema object inside s, s included, in a fixed
// order.
func subschemas(s map[string]any, out []map[string]any) []map[string]any {
	out = append(out, s)
	for _, k := range slices.Sorted(maps.Keys(s)) {
		switch k {
		case "properties", "$defs", "patternProperties":
			m, _ := s[k].(map[string]any)
			for _, n := range slices.Sorted(maps.Keys(m)) {
				if sub, ok := m[n].(map[string]any); ok {
					out = subschemas(sub, out)
				}
			}
		case "anyOf", "oneOf", "allOf", "prefixItems":
			list, _ := s[k].([]any)
			for _, e := range list {
				if sub, ok := e.(map[string]any); ok {
					out = subschemas(sub, out)
				}
			}
		case "items", "additionalProperties", "not":
			if sub, ok := s[k].(map[string]any); ok {
				out = subschemas(sub, out)
			}
		}
	}
	return out
}

// mutate returns a copy of root with a few random edits, each one a change
// a tool's author might make: some compatible, some not.
func (g *schemaGen) mutate(root map[string]any) map[string]any {
	out := clone(root).(map[string]any)
	edits := 1 + g.pick(3)
	for range edits {
		nodes := subschemas(out, nil)
		s := nodes[g.pick(len(nodes))]
		if s["$defs"] != nil && len(nodes) > 1 { // keep the wrapper an object with "v"
			s = nodes[1+g.pick(len(nodes)-1)]
		}
		g.edit(s)
	}
	return out
}

func (g *schemaGen) edit(s map[string]any) {
	num := func(k string, delta float64) {
		if f, ok := s[k].(float64); ok {
			s[k] = f + delta
		} else if i, ok := s[k].(int); ok {
			s[k] = max(0, i+int(delta))
		} else {
			s[k] = delta + 1
		}
	}
	switch g.pick(16) {
	case 0:
		switch s["type"] {
		case "integer":
			s["type"] = "number"
		case "number":
			s["type"] = "integer"
		case nil:
			s["type"] = "string"
		default:
			if list, ok := s["type"].([]any); ok {
				s["type"] = list[0]
			} else if s["type"] != "null" {
				s["type"] = []any{s["type"], "null"}
			}
		}
	case 1:
		delete(s, []string{"minLength", "maxLength", "minimum", "maximum", "exclusiveMaximum", "pattern", "enum", "multipleOf", "minItems", "maxItems", "uniqueItems", "maxProperties", "const", "dependentRequired"}[g.pick(14)])
	case 2:
		num([]string{"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"}[g.pick(6)], float64(g.pick(3)-1))
	case 3:
		if req, ok := s["required"].([]any); ok && len(req) > 0 {
			s["required"] = req[1:]
		} else if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
			s["required"] = []any{slices.Sorted(maps.Keys(props))[0]}
		}
	case 4:
		if props, ok := s["properties"].(map[string]any); ok {
			props[names[g.pick(len(names))]] = g.scalar()
		}
	case 5:
		if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
			delete(props, slices.Sorted(maps.Keys(props))[g.pick(len(props))])
		}
	case 6:
		if _, ok := s["additionalProperties"]; ok {
			delete(s, "additionalProperties")
		} else if s["type"] == "object" {
			s["additionalProperties"] = false
		}
	case 7:
		if e, ok := s["enum"].([]any); ok {
			if g.chance(0.5) && len(e) > 1 {
				s["enum"] = e[1:]
			} else {
				s["enum"] = append(e, strs[g.pick(len(strs))])
			}
		}
	case 8:
		inner := clone(s)
		clear(s)
		s["anyOf"] = []any{inner, map[string]any{"type": "null"}}
	case 9:
		if list, ok := s["anyOf"].([]any); ok && len(list) > 1 {
			s["anyOf"] = list[1:]
		} else if list, ok := s["oneOf"].([]any); ok && len(list) > 1 {
			s["oneOf"] = list[:1]
		}
	case 10:
		clear(s) // anything goes
	case 11:
		repl := g.schema(1)
		clear(s)
		maps.Copy(s, repl)
	case 12:
		s["pattern"] = patternPool[g.pick(len(patternPool))]
	case 13:
		if _, ok := s["items"]; ok {
			s["items"] = g.scalar()
		}
	case 14:
		if list, ok := s["oneOf"].([]any); ok {
			s["anyOf"] = list
			delete(s, "oneOf")
		}
	case 15:
		if s["type"] == "string" {
			s["format"] = "date"
		}
	}
}

// sampler draws values near a schema: mostly values it accepts, some it
// does not, and some of another shape entirely.
type sampler struct {
	r    *rand.Rand
	root *jsonschema.Schema
}

func (s *sampler) any(depth int) any {
	switch s.r.IntN(8) {
	case 0:
		return nil
	case 1:
		return s.r.IntN(2) == 0
	case 2:
		return float64(s.r.IntN(9) - 3)
	case 3:
		return 0.5 + float64(s.r.IntN(4))
	case 4:
		return strs[s.r.IntN(len(strs))]
	case 5:
		if depth > 0 {
			return []any{s.any(depth - 1)}
		}
		return []any{}
	case 6:
		if depth > 0 {
			return map[string]any{names[s.r.IntN(len(names))]: s.any(depth - 1)}
		}
		return map[string]any{}
	}
	return "b"
}

func (s *sampler) value(sc *jsonschema.Schema, depth int) any {
	if sc == nil || depth > 8 || s.r.IntN(12) == 0 {
		return s.any(2)
	}
	if sc.Ref != "" {
		if sc.Ref == "#" {
			return s.value(s.root, depth+1)
		}
		if name, ok := strings.CutPrefix(sc.Ref, "#/$defs/"); ok {
			return s.value(s.root.Defs[name], depth+1)
		}
	}
	if sc.Const != nil && s.r.IntN(4) != 0 {
		return *sc.Const
	}
	if len(sc.Enum) > 0 && s.r.IntN(4) != 0 {
		return sc.Enum[s.r.IntN(len(sc.Enum))]
	}
	for _, list := range [][]*jsonschema.Schema{sc.AnyOf, sc.OneOf, sc.AllOf} {
		if len(list) > 0 && s.r.IntN(3) != 0 {
			return s.value(list[s.r.IntN(len(list))], depth+1)
		}
	}
	types := sc.Types
	if sc.Type != "" {
		types = []string{sc.Type}
	}
	t := ""
	if len(types) > 0 {
		t = types[s.r.IntN(len(types))]
	} else {
		t = []string{"null", "boolean", "integer", "number", "string", "array", "object"}[s.r.IntN(7)]
	}
	switch t {
	case "null":
		return nil
	case "boolean":
		return s.r.IntN(2) == 0
	case "integer", "number":
		var cands []float64
		for _, p := range []*float64{sc.Minimum, sc.Maximum, sc.ExclusiveMinimum, sc.ExclusiveMaximum} {
			if p != nil {
				cands = append(cands, *p, *p-1, *p+1, *p+0.5)
			}
		}
		if sc.MultipleOf != nil {
			cands = append(cands, *sc.MultipleOf*float64(s.r.IntN(5)))
		}
		cands = append(cands, 0, 1, -1, 2, 3, 7, 0.5, 2.5)
		v := cands[s.r.IntN(len(cands))]
		if t == "integer" && s.r.IntN(4) != 0 {
			v = float64(int(v))
		}
		return v
	case "string":
		if sc.MinLength != nil || sc.MaxLength != nil {
			if s.r.IntN(2) == 0 {
				n := 0
				if sc.MinLength != nil {
					n = *sc.MinLength
				}
				if sc.MaxLength != nil && s.r.IntN(2) == 0 {
					n = *sc.MaxLength
				}
				return strings.Repeat("a", max(0, n+s.r.IntN(3)-1))
			}
		}
		return strs[s.r.IntN(len(strs))]
	case "array":
		n := s.r.IntN(4)
		if sc.MinItems != nil && s.r.IntN(2) == 0 {
			n = *sc.MinItems
		}
		out := make([]any, 0, n)
		for i := range n {
			item := sc.Items
			if i < len(sc.PrefixItems) {
				item = sc.PrefixItems[i]
			}
			out = append(out, s.value(item, depth+1))
		}
		return out
	case "object":
		out := map[string]any{}
		for _, n := range slices.Sorted(maps.Keys(sc.Properties)) {
			if slices.Contains(sc.Required, n) || s.r.IntN(2) == 0 {
				out[n] = s.value(sc.Properties[n], depth+1)
			}
		}
		if s.r.IntN(4) == 0 {
			out[names[s.r.IntN(len(names))]] = s.value(sc.AdditionalProperties, depth+1)
		}
		return out
	}
	return s.any(1)
}

// parseValue reads a generated JSON value as a schema.
func parseValue(v any) (*jsonschema.Schema, []byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, nil, err
	}
	return &s, data, nil
}
