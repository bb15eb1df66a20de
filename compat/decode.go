package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// jsonschema-go's Schema.UnmarshalJSON decodes each nested schema from the
// bytes of its whole subtree, more than once, so that reading a schema
// costs its size times its depth (2 MB nested 97 deep took a minute).
// decodeSchema reads the same model in one pass: it splits the document
// into its values once, hands jsonschema-go each schema object without
// its subschemas (so every byte is decoded a fixed number of times), and
// puts the subschemas, decoded the same way, in their fields.
//
// The result is the one jsonschema-go gives, with two differences, both
// for documents that are not plain JSON Schema: a name given twice in an
// object is an error (jsonschema-go merges some and keeps the last of
// others), and a key that differs from a keyword holding subschemas only
// in case ("Properties") stays an unknown keyword in Extra, as validators
// read it, where encoding/json would also have decoded it as the keyword
// (the comparison reports a schema holding such a key as Unknown anyway;
// see caseVariant).

// A jsonValue is one value of a document: its bytes, its kind (its first
// byte: '{', '[', '"', 't', 'f', 'n', or a number's), and an object's
// names and values or an array's elements.
type jsonValue struct {
	raw   []byte
	names [][]byte // names as written, quotes included
	keys  []string // names decoded
	elems []*jsonValue
}

func (v *jsonValue) kind() byte { return v.raw[0] }

// A valueReader splits a document that is valid JSON into its values.
type valueReader struct {
	data []byte
	i    int
}

func (r *valueReader) space() {
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		default:
			return
		}
	}
}

func (r *valueReader) value() (*jsonValue, error) {
	r.space()
	start := r.i
	v := &jsonValue{}
	switch r.data[r.i] {
	case '{':
		r.i++
		var seen map[string]bool
		for {
			r.space()
			if r.data[r.i] == '}' {
				r.i++
				break
			}
			if r.data[r.i] == ',' {
				r.i++
				r.space()
			}
			ns := r.i
			r.str()
			name := r.data[ns:r.i]
			key, err := unquote(name)
			if err != nil {
				return nil, err
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			if seen[key] {
				return nil, fmt.Errorf("the name %q appears twice in one object", key)
			}
			seen[key] = true
			r.space()
			r.i++ // ':'
			e, err := r.value()
			if err != nil {
				return nil, err
			}
			v.names, v.keys, v.elems = append(v.names, name), append(v.keys, key), append(v.elems, e)
			r.space()
		}
	case '[':
		r.i++
		for {
			r.space()
			if r.data[r.i] == ']' {
				r.i++
				break
			}
			if r.data[r.i] == ',' {
				r.i++
			}
			e, err := r.value()
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
			r.space()
		}
	case '"':
		r.str()
	default: // a number or a literal
		for r.i < len(r.data) && !strings.ContainsRune(" \t\r\n,]}", rune(r.data[r.i])) {
			r.i++
		}
	}
	v.raw = r.data[start:r.i]
	return v, nil
}

// str skips the string at r.i.
func (r *valueReader) str() {
	r.i++
	for r.i < len(r.data) {
		switch r.data[r.i] {
		case '\\':
			r.i += 2
			continue
		case '"':
			r.i++
			return
		}
		r.i++
	}
}

func unquote(name []byte) (string, error) {
	if bytes.IndexByte(name, '\\') < 0 {
		return string(name[1 : len(name)-1]), nil
	}
	var s string
	err := json.Unmarshal(name, &s)
	return s, err
}

// How a keyword holds subschemas.
const (
	oneSchema = iota + 1
	schemaMap
	schemaList
	itemsForm        // items: a schema or a list
	dependenciesForm // dependencies: a map of schemas or lists of names
)

// subschemaKeywords are the keywords that hold subschemas.
var subschemaKeywords = map[string]int{
	"additionalItems": oneSchema, "additionalProperties": oneSchema, "propertyNames": oneSchema, "contains": oneSchema,
	"unevaluatedItems": oneSchema, "unevaluatedProperties": oneSchema, "not": oneSchema, "if": oneSchema, "then": oneSchema,
	"else": oneSchema, "contentSchema": oneSchema,
	"$defs": schemaMap, "definitions": schemaMap, "properties": schemaMap, "patternProperties": schemaMap, "dependentSchemas": schemaMap,
	"prefixItems": schemaList, "allOf": schemaList, "anyOf": schemaList, "oneOf": schemaList,
	"items": itemsForm, "dependencies": dependenciesForm,
}

// decodeSchema reads a schema from data, which must be valid JSON, in time
// and memory in proportion to its size. A null is a nil schema.
func decodeSchema(data []byte) (*jsonschema.Schema, error) {
	r := &valueReader{data: data}
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	if v.kind() == 'n' {
		return nil, nil
	}
	return schemaOf(v)
}

// isSchema reports whether v can be read as a schema here: an object or a
// boolean (null is left to the caller).
func isSchema(v *jsonValue) bool {
	k := v.kind()
	return k == '{' || k == 't' || k == 'f'
}

// allSchemaOrNull reports whether each of vs is a schema or null.
func allSchemaOrNull(vs []*jsonValue) bool {
	for _, v := range vs {
		if !isSchema(v) && v.kind() != 'n' {
			return false
		}
	}
	return true
}

// schemaOf decodes one schema value: jsonschema-go reads the object
// without its subschemas, which are decoded here and set after.
func schemaOf(v *jsonValue) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{}
	if v.kind() != '{' {
		return s, s.UnmarshalJSON(v.raw) // true, false, or an error
	}
	var shallow bytes.Buffer
	shallow.WriteByte('{')
	type sub struct {
		key string
		v   *jsonValue
	}
	var subs []sub
	var extra map[string]any
	for i, key := range v.keys {
		e := v.elems[i]
		form, ok := subschemaKeywords[key]
		switch {
		case ok && e.kind() == 'n' && form != itemsForm && form != dependenciesForm:
			continue // a null leaves the field empty
		case ok && wellFormed(form, e):
			subs = append(subs, sub{key, e})
			continue
		case !ok && foldsToSubschemaKeyword(key):
			// Another case of a keyword: an unknown keyword, as validators
			// read it.
			var x any
			if err := json.Unmarshal(e.raw, &x); err != nil {
				return nil, err
			}
			if extra == nil {
				extra = map[string]any{}
			}
			extra[key] = x
			continue
		}
		if shallow.Len() > 1 {
			shallow.WriteByte(',')
		}
		shallow.Write(v.names[i])
		shallow.WriteByte(':')
		shallow.Write(e.raw)
	}
	shallow.WriteByte('}')
	if err := s.UnmarshalJSON(shallow.Bytes()); err != nil {
		return nil, err
	}
	for k, x := range extra {
		if s.Extra == nil {
			s.Extra = map[string]any{}
		}
		s.Extra[k] = x
	}
	for _, sb := range subs {
		if err := setSubschemas(s, sb.key, sb.v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// foldsToSubschemaKeyword reports whether key is a keyword holding
// subschemas in another case, which encoding/json would match.
func foldsToSubschemaKeyword(key string) bool {
	for kw := range subschemaKeywords {
		if strings.EqualFold(key, kw) {
			return true
		}
	}
	return false
}

// wellFormed reports whether v has the shape the keyword's form takes;
// any other value is left to jsonschema-go, which refuses it.
func wellFormed(form int, v *jsonValue) bool {
	switch form {
	case oneSchema:
		return isSchema(v)
	case schemaMap:
		return v.kind() == '{' && allSchemaOrNull(v.elems)
	case schemaList:
		return v.kind() == '[' && allSchemaOrNull(v.elems)
	case itemsForm:
		return isSchema(v) || v.kind() == 'n' || v.kind() == '[' && allSchemaOrNull(v.elems)
	case dependenciesForm:
		if v.kind() != '{' {
			return false
		}
		for _, e := range v.elems {
			if !isSchema(e) && e.kind() != 'n' && e.kind() != '[' {
				return false
			}
		}
		return true
	}
	return false
}

// schemaOrNil decodes a schema, or nil for null.
func schemaOrNil(v *jsonValue) (*jsonschema.Schema, error) {
	if v.kind() == 'n' {
		return nil, nil
	}
	return schemaOf(v)
}

func schemasOf(vs []*jsonValue) ([]*jsonschema.Schema, error) {
	list := make([]*jsonschema.Schema, len(vs))
	for i, e := range vs {
		var err error
		if list[i], err = schemaOrNil(e); err != nil {
			return nil, err
		}
	}
	return list, nil
}

func schemaMapOf(v *jsonValue) (map[string]*jsonschema.Schema, error) {
	m := make(map[string]*jsonschema.Schema, len(v.keys))
	for i, k := range v.keys {
		s, err := schemaOrNil(v.elems[i])
		if err != nil {
			return nil, err
		}
		m[k] = s
	}
	return m, nil
}

// setSubschemas decodes the value of a keyword holding subschemas into s.
func setSubschemas(s *jsonschema.Schema, key string, v *jsonValue) error {
	var err error
	one := func(p **jsonschema.Schema) { *p, err = schemaOf(v) }
	many := func(p *map[string]*jsonschema.Schema) { *p, err = schemaMapOf(v) }
	list := func(p *[]*jsonschema.Schema) { *p, err = schemasOf(v.elems) }
	switch key {
	case "additionalItems":
		one(&s.AdditionalItems)
	case "additionalProperties":
		one(&s.AdditionalProperties)
	case "propertyNames":
		one(&s.PropertyNames)
	case "contains":
		one(&s.Contains)
	case "unevaluatedItems":
		one(&s.UnevaluatedItems)
	case "unevaluatedProperties":
		one(&s.UnevaluatedProperties)
	case "not":
		one(&s.Not)
	case "if":
		one(&s.If)
	case "then":
		one(&s.Then)
	case "else":
		one(&s.Else)
	case "contentSchema":
		one(&s.ContentSchema)
	case "$defs":
		many(&s.Defs)
	case "definitions":
		many(&s.Definitions)
	case "properties":
		many(&s.Properties)
	case "patternProperties":
		many(&s.PatternProperties)
	case "dependentSchemas":
		many(&s.DependentSchemas)
	case "prefixItems":
		list(&s.PrefixItems)
	case "allOf":
		list(&s.AllOf)
	case "anyOf":
		list(&s.AnyOf)
	case "oneOf":
		list(&s.OneOf)
	case "items":
		switch v.kind() {
		case '[':
			list(&s.ItemsArray)
		default: // null too, which jsonschema-go reads as false
			one(&s.Items)
		}
	case "dependencies":
		for i, k := range v.keys {
			e := v.elems[i]
			switch e.kind() {
			case '[':
				var names []string
				if err := json.Unmarshal(e.raw, &names); err != nil {
					return err
				}
				if s.DependencyStrings == nil {
					s.DependencyStrings = map[string][]string{}
				}
				s.DependencyStrings[k] = names
			default: // null too, which jsonschema-go reads as false
				d, err := schemaOf(e)
				if err != nil {
					return err
				}
				if s.DependencySchemas == nil {
					s.DependencySchemas = map[string]*jsonschema.Schema{}
				}
				s.DependencySchemas[k] = d
			}
		}
	}
	return err
}
