package service

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxInlineDepth bounds how deep schemas written inline may nest before
// the conversion stops; references are converted once each, so cycles
// through them end.
const maxInlineDepth = 64

// A converter turns an operation's OpenAPI schemas into one JSON Schema
// (draft 2020-12) document: each referenced schema once, under $defs,
// whatever cycles the references make.
type converter struct {
	defs  map[string]any              // $defs of the document
	names map[*openapi3.Schema]string // the $defs name of each referenced schema
	taken map[string]bool
	queue []*openapi3.SchemaRef
	err   error
}

func newConverter() *converter {
	return &converter{defs: map[string]any{}, names: map[*openapi3.Schema]string{}, taken: map[string]bool{}}
}

// finish converts the referenced schemas still waiting, and returns the
// $defs.
func (c *converter) finish() (map[string]any, error) {
	for len(c.queue) > 0 && c.err == nil {
		r := c.queue[0]
		c.queue = c.queue[1:]
		c.defs[c.names[r.Value]] = c.schema(r.Value, 0)
	}
	return c.defs, c.err
}

var defNameRE = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ref returns the JSON Schema of a schema reference: a $ref into $defs for
// a reference, the schema itself for one written inline.
func (c *converter) ref(r *openapi3.SchemaRef, depth int) any {
	if r == nil || r.Value == nil {
		if r != nil && r.Ref != "" && c.err == nil {
			c.err = fmt.Errorf("%w: the $ref %q is not resolved", ErrDocument, r.Ref)
		}
		return true
	}
	if r.Ref == "" {
		if depth > maxInlineDepth {
			if c.err == nil {
				c.err = fmt.Errorf("%w: schemas nest more than %d levels deep", ErrDocumentBounds, maxInlineDepth)
			}
			return true
		}
		return c.schema(r.Value, depth+1)
	}
	name, ok := c.names[r.Value]
	if !ok {
		base := r.Ref[strings.LastIndex(r.Ref, "/")+1:]
		base = strings.Trim(defNameRE.ReplaceAllString(base, "_"), "_")
		if base == "" {
			base = "schema"
		}
		name = base
		for i := 2; c.taken[name]; i++ {
			name = base + "_" + strconv.Itoa(i)
		}
		c.taken[name] = true
		c.names[r.Value] = name
		c.queue = append(c.queue, r)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// schema converts one schema object. OpenAPI 3.0's nullable becomes a
// "null" type, its boolean exclusive bounds become numbers, and what JSON
// Schema does not know (discriminator, xml, example) is left out.
func (c *converter) schema(s *openapi3.Schema, depth int) any {
	if s.Always != nil {
		return *s.Always
	}
	m := map[string]any{}
	if s.Type != nil && len(*s.Type) > 0 {
		types := append([]string(nil), (*s.Type)...)
		if s.Nullable && !containsString(types, "null") {
			types = append(types, "null")
		}
		if len(types) == 1 {
			m["type"] = types[0]
		} else {
			m["type"] = types
		}
	}
	setString(m, "title", s.Title)
	setString(m, "description", s.Description)
	setString(m, "format", s.Format)
	setString(m, "pattern", s.Pattern)
	if len(s.Enum) > 0 {
		enum := s.Enum
		if s.Nullable && !containsNil(enum) {
			enum = append(append([]any(nil), enum...), nil)
		}
		m["enum"] = enum
	}
	if s.Const != nil {
		m["const"] = s.Const
	}
	if s.Default != nil {
		m["default"] = s.Default
	}
	if s.Deprecated {
		m["deprecated"] = true
	}
	if s.ReadOnly {
		m["readOnly"] = true
	}
	if s.WriteOnly {
		m["writeOnly"] = true
	}
	if s.Min != nil {
		if s.ExclusiveMin.Bool != nil && *s.ExclusiveMin.Bool {
			m["exclusiveMinimum"] = *s.Min
		} else {
			m["minimum"] = *s.Min
		}
	}
	if s.ExclusiveMin.Value != nil {
		m["exclusiveMinimum"] = *s.ExclusiveMin.Value
	}
	if s.Max != nil {
		if s.ExclusiveMax.Bool != nil && *s.ExclusiveMax.Bool {
			m["exclusiveMaximum"] = *s.Max
		} else {
			m["maximum"] = *s.Max
		}
	}
	if s.ExclusiveMax.Value != nil {
		m["exclusiveMaximum"] = *s.ExclusiveMax.Value
	}
	if s.MultipleOf != nil {
		m["multipleOf"] = *s.MultipleOf
	}
	setUint(m, "minLength", s.MinLength)
	setUintPtr(m, "maxLength", s.MaxLength)
	setUint(m, "minItems", s.MinItems)
	setUintPtr(m, "maxItems", s.MaxItems)
	setUint(m, "minProperties", s.MinProps)
	setUintPtr(m, "maxProperties", s.MaxProps)
	if s.UniqueItems {
		m["uniqueItems"] = true
	}
	if s.Items != nil {
		m["items"] = c.ref(s.Items, depth)
	}
	if len(s.PrefixItems) > 0 {
		m["prefixItems"] = c.refs(s.PrefixItems, depth)
	}
	if s.Contains != nil {
		m["contains"] = c.ref(s.Contains, depth)
	}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for name, p := range s.Properties {
			props[name] = c.ref(p, depth)
		}
		m["properties"] = props
	}
	if len(s.PatternProperties) > 0 {
		props := make(map[string]any, len(s.PatternProperties))
		for name, p := range s.PatternProperties {
			props[name] = c.ref(p, depth)
		}
		m["patternProperties"] = props
	}
	if len(s.Required) > 0 {
		m["required"] = s.Required
	}
	switch {
	case s.AdditionalProperties.Schema != nil:
		m["additionalProperties"] = c.ref(s.AdditionalProperties.Schema, depth)
	case s.AdditionalProperties.Has != nil:
		m["additionalProperties"] = *s.AdditionalProperties.Has
	}
	if s.PropertyNames != nil {
		m["propertyNames"] = c.ref(s.PropertyNames, depth)
	}
	if len(s.AllOf) > 0 {
		m["allOf"] = c.refs(s.AllOf, depth)
	}
	if len(s.AnyOf) > 0 {
		m["anyOf"] = c.refs(s.AnyOf, depth)
	}
	if len(s.OneOf) > 0 {
		m["oneOf"] = c.refs(s.OneOf, depth)
	}
	if s.Not != nil {
		m["not"] = c.ref(s.Not, depth)
	}
	if s.If != nil {
		m["if"] = c.ref(s.If, depth)
		if s.Then != nil {
			m["then"] = c.ref(s.Then, depth)
		}
		if s.Else != nil {
			m["else"] = c.ref(s.Else, depth)
		}
	}
	if len(s.DependentRequired) > 0 {
		m["dependentRequired"] = s.DependentRequired
	}
	// A nullable schema without a type (a bare $ref in allOf, say) takes
	// null too.
	if s.Nullable && m["type"] == nil && len(m) > 0 {
		return map[string]any{"anyOf": []any{m, map[string]any{"type": "null"}}}
	}
	return m
}

func (c *converter) refs(list openapi3.SchemaRefs, depth int) []any {
	out := make([]any, len(list))
	for i, r := range list {
		out[i] = c.ref(r, depth)
	}
	return out
}

func setString(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func setUint(m map[string]any, k string, v uint64) {
	if v != 0 {
		m[k] = v
	}
}

func setUintPtr(m map[string]any, k string, v *uint64) {
	if v != nil {
		m[k] = *v
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsNil(list []any) bool {
	for _, v := range list {
		if v == nil {
			return true
		}
	}
	return false
}
