package mcpserver

import (
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Keywords whose value is a schema, an object of schemas, or an array of
// schemas (JSON Schema 2020-12, with draft 7's additionalItems and
// definitions).
var (
	schemaKeywords = map[string]bool{
		"items": true, "additionalProperties": true, "not": true, "if": true, "then": true,
		"else": true, "contains": true, "propertyNames": true, "unevaluatedItems": true,
		"unevaluatedProperties": true, "additionalItems": true, "contentSchema": true,
	}
	schemaMapKeywords = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true,
	}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
)

// emptySchemasAsObjects rewrites each subschema written as true in an
// encoded schema as {}, which means the same: jsonschema-go encodes an
// empty schema (a property of type any, say) as true, and MCP types every
// value of inputSchema.properties as an object, so a client that checks
// the types (the official TypeScript SDK's) refuses the whole tools/list
// result for one such property. Everything else is copied as it is,
// values of non-schema keywords (default, const, enum, examples) included.
// A schema with no true in it is returned unchanged.
func emptySchemasAsObjects(data []byte) ([]byte, error) {
	if !bytes.Contains(data, []byte("true")) {
		return data, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	if err := copySchema(dec, enc); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("mcpserver: a schema's encoding has data after it")
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// copySchema copies one schema from dec to enc, a true schema as {}.
func copySchema(dec *jsontext.Decoder, enc *jsontext.Encoder) error {
	switch dec.PeekKind() {
	case 't':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return enc.WriteValue(jsontext.Value("{}"))
	case '{':
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return enc.WriteValue(v)
	}
	if err := copyToken(dec, enc); err != nil { // {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := tok.String()
		if err := enc.WriteToken(tok); err != nil {
			return err
		}
		switch {
		case schemaKeywords[key]:
			err = copySchema(dec, enc)
		case schemaMapKeywords[key] && dec.PeekKind() == '{':
			err = copyEach(dec, enc, '}', true)
		case schemaListKeywords[key] && dec.PeekKind() == '[':
			err = copyEach(dec, enc, ']', false)
		default:
			var v jsontext.Value
			if v, err = dec.ReadValue(); err == nil {
				err = enc.WriteValue(v)
			}
		}
		if err != nil {
			return err
		}
	}
	return copyToken(dec, enc) // }
}

// copyEach copies an object of schemas (keyed) or an array of them.
func copyEach(dec *jsontext.Decoder, enc *jsontext.Encoder, end jsontext.Kind, keyed bool) error {
	if err := copyToken(dec, enc); err != nil {
		return err
	}
	for dec.PeekKind() != end {
		if keyed {
			if err := copyToken(dec, enc); err != nil {
				return err
			}
		}
		if err := copySchema(dec, enc); err != nil {
			return err
		}
	}
	return copyToken(dec, enc)
}

func copyToken(dec *jsontext.Decoder, enc *jsontext.Encoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	return enc.WriteToken(tok)
}
