package schemaorder

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
)

// Unmarshal decodes the schema document doc into s and sets the
// PropertyOrder of s and of each of its subschemas to the order in which
// doc lists their properties. It reads doc twice, at a cost linear in its
// size.
func Unmarshal(doc []byte, s *jsonschema.Schema) error {
	if err := json.Unmarshal(doc, s); err != nil {
		return err
	}
	return walk(jsontext.NewDecoder(bytes.NewReader(doc)), s)
}

// walk reads the next value of dec, the document of s, and sets the
// PropertyOrder of s and of its subschemas. A value that is not an object
// (a boolean schema) or a nil s is skipped.
func walk(dec *jsontext.Decoder, s *jsonschema.Schema) error {
	if s == nil || dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch key := tok.String(); key {
		case "properties":
			s.PropertyOrder = s.PropertyOrder[:0]
			err = walkMap(dec, s.Properties, func(name string) { s.PropertyOrder = append(s.PropertyOrder, name) })
		case "$defs":
			err = walkMap(dec, s.Defs, nil)
		case "definitions":
			err = walkMap(dec, s.Definitions, nil)
		case "patternProperties":
			err = walkMap(dec, s.PatternProperties, nil)
		case "dependentSchemas":
			err = walkMap(dec, s.DependentSchemas, nil)
		case "prefixItems":
			err = walkList(dec, s.PrefixItems)
		case "allOf":
			err = walkList(dec, s.AllOf)
		case "anyOf":
			err = walkList(dec, s.AnyOf)
		case "oneOf":
			err = walkList(dec, s.OneOf)
		case "items":
			if dec.PeekKind() == '[' {
				err = walkList(dec, s.ItemsArray)
			} else {
				err = walk(dec, s.Items)
			}
		default:
			if sub := single(s, key); sub != nil {
				err = walk(dec, sub)
			} else {
				err = dec.SkipValue()
			}
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// single returns the subschema of s under the keyword key that holds one
// schema, or nil.
func single(s *jsonschema.Schema, key string) *jsonschema.Schema {
	switch key {
	case "additionalItems":
		return s.AdditionalItems
	case "contains":
		return s.Contains
	case "unevaluatedItems":
		return s.UnevaluatedItems
	case "additionalProperties":
		return s.AdditionalProperties
	case "propertyNames":
		return s.PropertyNames
	case "unevaluatedProperties":
		return s.UnevaluatedProperties
	case "not":
		return s.Not
	case "if":
		return s.If
	case "then":
		return s.Then
	case "else":
		return s.Else
	case "contentSchema":
		return s.ContentSchema
	}
	return nil
}

// walkMap reads an object of schemas by name, calling seen (when not nil)
// with each name in order.
func walkMap(dec *jsontext.Decoder, m map[string]*jsonschema.Schema, seen func(string)) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		name := tok.String()
		if seen != nil {
			seen(name)
		}
		if err := walk(dec, m[name]); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// walkList reads an array of schemas.
func walkList(dec *jsontext.Decoder, list []*jsonschema.Schema) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		var s *jsonschema.Schema
		if i < len(list) {
			s = list[i]
		}
		if err := walk(dec, s); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}
