package schema

import (
	"encoding/json"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// An emitter writes the draft 2020-12 schema of a node graph. Recursive
// struct types are written once under $defs and referenced; a recursive root
// is referenced as "#".
type emitter struct {
	root    *node
	names   map[*node]string
	taken   map[string]bool
	defs    map[string]*jsonschema.Schema
	pending []*node
}

// emit returns the schema of the graph rooted at root.
func emit(root *node) *jsonschema.Schema {
	e := &emitter{root: root, names: map[*node]string{}, taken: map[string]bool{}, defs: map[string]*jsonschema.Schema{}}
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

// ref returns the reference to a recursive struct, queuing its definition.
func (e *emitter) ref(n *node) *jsonschema.Schema {
	if n == e.root {
		return &jsonschema.Schema{Ref: "#"}
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
	return &jsonschema.Schema{Ref: "#/$defs/" + name}
}

// schema returns a new schema for node n.
func (e *emitter) schema(n *node) *jsonschema.Schema {
	var s *jsonschema.Schema
	switch n.kind {
	case kindPointer:
		return nullable(e.schema(n.elem))
	case kindStruct:
		if n.inDefs {
			return e.ref(n)
		}
		return e.structSchema(n)
	case kindBool:
		s = &jsonschema.Schema{Type: "boolean"}
	case kindInt, kindUint:
		s = &jsonschema.Schema{Type: "integer"}
	case kindFloat:
		s = &jsonschema.Schema{Type: "number"}
	case kindString, kindText:
		s = &jsonschema.Schema{Type: "string"}
	case kindTime:
		s = &jsonschema.Schema{Type: "string"}
	case kindBytes:
		s = &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}
	case kindSlice, kindArray:
		s = &jsonschema.Schema{Type: "array", Items: e.schema(n.elem)}
		if n.kind == kindArray {
			s.MinItems, s.MaxItems = ptr(n.length), ptr(n.length)
		}
	case kindMap:
		s = &jsonschema.Schema{Type: "object", AdditionalProperties: e.schema(n.elem)}
	case kindAny, kindRaw:
		return &jsonschema.Schema{}
	case kindCustom:
		if n.custom != nil {
			return n.custom.CloneSchemas()
		}
		return &jsonschema.Schema{}
	}
	keywords(s, n)
	if n.nullable {
		s = nullable(s)
	}
	return s
}

// keywords copies a node's constraints into its schema.
func keywords(s *jsonschema.Schema, n *node) {
	if n.minLength >= 0 {
		s.MinLength = ptr(n.minLength)
	}
	if n.maxLength >= 0 {
		s.MaxLength = ptr(n.maxLength)
	}
	if n.pattern != nil {
		s.Pattern = n.pattern.String()
	}
	s.Format = n.format
	s.Minimum, s.Maximum = n.minimum, n.maximum
	s.ExclusiveMinimum, s.ExclusiveMaximum = n.exclusiveMinimum, n.exclusiveMaximum
	if n.multipleOf != nil {
		f, _ := n.multipleOf.Float64()
		s.MultipleOf = &f
	}
	if n.minItems >= 0 {
		s.MinItems = ptr(n.minItems)
	}
	if n.maxItems >= 0 {
		s.MaxItems = ptr(n.maxItems)
	}
	s.UniqueItems = n.uniqueItems
	if n.minProps >= 0 {
		s.MinProperties = ptr(n.minProps)
	}
	if n.maxProps >= 0 {
		s.MaxProperties = ptr(n.maxProps)
	}
	if n.isConst {
		c := n.enum[0]
		s.Const = &c
	} else if n.enum != nil {
		s.Enum = append([]any(nil), n.enum...)
	}
}

// nullable returns s widened to accept null.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	switch {
	case s.Ref != "" || s.AnyOf != nil:
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, s}}
	case s.Type != "":
		s.Types = []string{s.Type, "null"}
		s.Type = ""
	case s.Types != nil:
		for _, t := range s.Types {
			if t == "null" {
				return s
			}
		}
		s.Types = append(s.Types, "null")
	default:
		return s // no type: null is already accepted
	}
	if s.Const != nil {
		s.Enum = []any{*s.Const, nil}
		s.Const = nil
	} else if s.Enum != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}

// structSchema writes an object schema with one property per field.
func (e *emitter) structSchema(n *node) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           make(map[string]*jsonschema.Schema, len(n.fields)),
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	for _, f := range n.fields {
		p := e.schema(f.node)
		if f.nullable {
			p = nullable(p)
		}
		p.Description = f.description
		p.Title = f.title
		p.Deprecated = f.deprecated
		p.Default = f.dflt
		for _, ex := range f.examples {
			var v any
			_ = json.Unmarshal(ex, &v)
			p.Examples = append(p.Examples, v)
		}
		s.Properties[f.name] = p
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}
