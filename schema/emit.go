package schema

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// An emitter writes the draft 2020-12 schema of a node graph. Recursive
// struct types are written once under $defs and referenced; a recursive root
// is referenced as "#".
//
// The schemas of one graph, and the integers their bounds point to, are
// allocated in a few blocks rather than one by one: a Schema is a large
// struct, and a type's schema tree lives and dies as a whole (Validator.Schema
// hands out copies).
type emitter struct {
	root    *node
	names   map[*node]string // recursive structs, by their $defs name
	taken   map[string]bool
	defs    map[string]*jsonschema.Schema
	pending []*node

	schemas []jsonschema.Schema // free space in the current block
	ints    []int
	floats  []float64
}

// emit returns a new schema of the graph rooted at root. The first block
// holds size schemas: one per node that is not a pointer, and two more per
// struct (an object's additionalProperties is {"not": {}}), which is what
// most graphs need.
func emit(root *node, size int) *jsonschema.Schema {
	e := &emitter{root: root, schemas: make([]jsonschema.Schema, 0, size)}
	s := e.structSchema(root)
	for len(e.pending) > 0 {
		n := e.pending[0]
		e.pending = e.pending[1:]
		e.defs[e.names[n]] = e.structSchema(n)
	}
	if len(e.defs) > 0 {
		s.Defs = e.defs
	}
	return s
}

// new returns a zero schema from the current block.
func (e *emitter) new() *jsonschema.Schema { return nextIn(&e.schemas, 4) }

// typed returns a new schema of JSON type t.
func (e *emitter) typed(t string) *jsonschema.Schema {
	s := e.new()
	s.Type = t
	return s
}

// int returns a pointer to v from the current block of integers.
func (e *emitter) int(v int) *int {
	p := nextIn(&e.ints, 8)
	*p = v
	return p
}

// float returns a new pointer to *v, or nil for nil: the tree shares no
// memory with the plan, so a caller may change it.
func (e *emitter) float(v *float64) *float64 {
	if v == nil {
		return nil
	}
	p := nextIn(&e.floats, 8)
	*p = *v
	return p
}

// nextIn returns a pointer to a new zero element at the end of *block. A
// full block is left to its elements and replaced by a new one of size
// elements, so elements never move: the values of one schema tree, or of
// one plan, are allocated together rather than one by one.
func nextIn[T any](block *[]T, size int) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, size)
	}
	*block = (*block)[:len(*block)+1]
	return &(*block)[len(*block)-1]
}

// falseSchema returns a new schema that accepts nothing, {"not": {}}. It is
// not shared: a schema tree must be a tree for jsonschema-go to resolve it.
func (e *emitter) falseSchema() *jsonschema.Schema {
	s := e.new()
	s.Not = e.new()
	return s
}

// ref returns the reference to a recursive struct, queuing its definition.
func (e *emitter) ref(n *node) *jsonschema.Schema {
	r := e.new()
	if n == e.root {
		r.Ref = "#"
		return r
	}
	if e.names == nil {
		e.names, e.taken, e.defs = map[*node]string{}, map[string]bool{}, map[string]*jsonschema.Schema{}
	}
	name, ok := e.names[n]
	if !ok {
		base := n.typ.Name()
		if base == "" {
			base = "Object"
		}
		name = base
		for i := 2; e.taken[name]; i++ {
			name = base + strconv.Itoa(i)
		}
		e.taken[name] = true
		e.names[n] = name
		e.pending = append(e.pending, n)
	}
	r.Ref = "#/$defs/" + name
	return r
}

// schema returns a new schema for node n.
func (e *emitter) schema(n *node) *jsonschema.Schema {
	var s *jsonschema.Schema
	switch n.kind {
	case kindPointer:
		return e.nullable(e.schema(n.elem))
	case kindStruct:
		if n.inDefs {
			return e.ref(n)
		}
		return e.structSchema(n)
	case kindBool:
		s = e.typed("boolean")
	case kindInt, kindUint:
		s = e.typed("integer")
		if n.typ == durationType {
			s.Description = durationOutputNote // an output: see compiler.typeNode
		}
	case kindFloat:
		s = e.typed("number")
	case kindString, kindText, kindTime:
		s = e.typed("string")
	case kindDuration:
		s = e.typed("string")
		s.Description = durationNote
	case kindBytes:
		s = e.typed("string")
		s.ContentEncoding = "base64"
	case kindSlice, kindArray:
		s = e.typed("array")
		s.Items = e.schema(n.elem)
		if n.kind == kindArray {
			s.MinItems, s.MaxItems = e.int(n.length), e.int(n.length)
		}
	case kindMap:
		s = e.typed("object")
		s.AdditionalProperties = e.schema(n.elem)
	case kindAny, kindRaw:
		return e.new()
	case kindCustom:
		if n.custom != nil {
			s = n.custom.schema.CloneSchemas()
		} else {
			s = e.new()
			if n.opaque {
				s.Comment = opaquePrefix + n.typ.String() + opaqueSuffix
			}
		}
		if n.nullable {
			s = e.nullable(s)
		}
		return s
	}
	e.keywords(s, n)
	if n.nullable {
		s = e.nullable(s)
	}
	return s
}

// The $comment of the schema of a type that reads and writes its own JSON
// and has no JSONSchema method is opaquePrefix, the type, opaqueSuffix.
// dialect.Dialect.Lint looks for it, with its own copy of the two strings;
// a test in package dialect keeps them the same.
const (
	opaquePrefix = "hands: "
	opaqueSuffix = " reads and writes its own JSON and has no JSONSchema method, so any JSON value is accepted here"
)

// keywords copies a node's constraints into its schema.
func (e *emitter) keywords(s *jsonschema.Schema, n *node) {
	if n.minLength >= 0 {
		s.MinLength = e.int(n.minLength)
	}
	if n.maxLength >= 0 {
		s.MaxLength = e.int(n.maxLength)
	}
	if n.pattern != nil {
		s.Pattern = n.pattern.String()
	}
	if n.format != nil {
		s.Format = n.format.name
	}
	s.Minimum, s.Maximum = e.float(n.minimum), e.float(n.maximum)
	s.ExclusiveMinimum, s.ExclusiveMaximum = e.float(n.exclusiveMinimum), e.float(n.exclusiveMaximum)
	if n.multipleOf != nil {
		f, _ := n.multipleOf.rat.Float64()
		s.MultipleOf = &f
	}
	if n.minItems >= 0 {
		s.MinItems = e.int(n.minItems)
	}
	if n.maxItems >= 0 {
		s.MaxItems = e.int(n.maxItems)
	}
	s.UniqueItems = n.uniqueItems
	if n.minProps >= 0 {
		s.MinProperties = e.int(n.minProps)
	}
	if n.maxProps >= 0 {
		s.MaxProperties = e.int(n.maxProps)
	}
	switch {
	case n.enum == nil:
	case n.enum.isConst:
		c := n.enum.values[0]
		s.Const = &c
	default:
		s.Enum = append([]any(nil), n.enum.values...)
	}
}

// nullable returns s widened to accept null.
func (e *emitter) nullable(s *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case s.Ref != "" || s.AnyOf != nil:
		w := e.new()
		w.AnyOf = []*jsonschema.Schema{e.typed("null"), s}
		return w
	case s.Type != "":
		s.Types = []string{s.Type, "null"}
		s.Type = ""
	case s.Types != nil:
		for _, t := range s.Types {
			if t == "null" {
				return s
			}
		}
		s.Types = append(slices.Clip(s.Types), "null") // s may share the slice with a custom schema
	default:
		return s // no type: null is already accepted
	}
	if s.Const != nil {
		s.Enum = []any{*s.Const, nil}
		s.Const = nil
	} else if s.Enum != nil {
		s.Enum = append(slices.Clip(s.Enum), nil)
	}
	return s
}

// structSchema writes an object schema with one property per field.
func (e *emitter) structSchema(n *node) *jsonschema.Schema {
	s := e.typed("object")
	s.Properties = make(map[string]*jsonschema.Schema, len(n.fields))
	s.AdditionalProperties = e.falseSchema()
	if len(n.fields) > 0 {
		s.PropertyOrder = make([]string, 0, len(n.fields))
	}
	required := 0
	for _, f := range n.fields {
		if f.required {
			required++
		}
	}
	if required > 0 {
		s.Required = make([]string, 0, required)
	}
	for _, f := range n.fields {
		p := e.schema(f.node)
		if f.nullable {
			p = e.nullable(p)
		}
		// A type that says its own schema may describe itself; the field's
		// words come first, then the type's.
		p.Description = joinDescriptions(f.description, p.Description)
		if f.title != "" {
			p.Title = f.title
		}
		p.Deprecated = p.Deprecated || f.deprecated
		if f.deprecation != "" {
			p.Description = joinDescriptions(p.Description, "Deprecated: "+f.deprecation)
		}
		p.Default = nil // only a tag's default is applied, so only it is shown
		if f.dflt != nil {
			p.Default = append(json.RawMessage(nil), f.dflt...)
		}
		for _, ex := range f.examples {
			var v any
			_ = json.Unmarshal(ex, &v)
			p.Examples = append(slices.Clip(p.Examples), v)
		}
		s.Properties[f.name] = p
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}

// joinDescriptions returns the description of a property whose field says
// field and whose type says own: each alone when the other is empty, and
// otherwise both, the field's first, on lines of their own.
func joinDescriptions(field, own string) string {
	switch {
	case own == "" || own == field:
		return field
	case field == "":
		return own
	}
	return field + "\n" + own
}
