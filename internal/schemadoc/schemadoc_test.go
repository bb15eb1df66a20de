package schemadoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/catalogue"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// The reference paths each form of a Document is checked against: what
// decoded the document before it was decoded once.

// refSchema decodes doc with jsonschema-go, and sets PropertyOrder at
// every level in a second pass, as internal/schemaorder did.
func refSchema(doc []byte) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, err
	}
	if err := refWalk(jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func refWalk(dec *jsontext.Decoder, s *jsonschema.Schema) error {
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
			err = refWalkMap(dec, s.Properties, func(name string) { s.PropertyOrder = append(s.PropertyOrder, name) })
		case "$defs":
			err = refWalkMap(dec, s.Defs, nil)
		case "definitions":
			err = refWalkMap(dec, s.Definitions, nil)
		case "patternProperties":
			err = refWalkMap(dec, s.PatternProperties, nil)
		case "dependentSchemas":
			err = refWalkMap(dec, s.DependentSchemas, nil)
		case "dependencies":
			err = refWalkMap(dec, s.DependencySchemas, nil)
		case "prefixItems":
			err = refWalkList(dec, s.PrefixItems)
		case "allOf":
			err = refWalkList(dec, s.AllOf)
		case "anyOf":
			err = refWalkList(dec, s.AnyOf)
		case "oneOf":
			err = refWalkList(dec, s.OneOf)
		case "items":
			if dec.PeekKind() == '[' {
				err = refWalkList(dec, s.ItemsArray)
			} else {
				err = refWalk(dec, s.Items)
			}
		default:
			sub := map[string]*jsonschema.Schema{
				"additionalItems": s.AdditionalItems, "contains": s.Contains, "unevaluatedItems": s.UnevaluatedItems,
				"additionalProperties": s.AdditionalProperties, "propertyNames": s.PropertyNames,
				"unevaluatedProperties": s.UnevaluatedProperties, "not": s.Not, "if": s.If, "then": s.Then,
				"else": s.Else, "contentSchema": s.ContentSchema,
			}[key]
			err = refWalk(dec, sub)
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

func refWalkMap(dec *jsontext.Decoder, m map[string]*jsonschema.Schema, seen func(string)) error {
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
		if seen != nil {
			seen(tok.String())
		}
		if err := refWalk(dec, m[tok.String()]); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

func refWalkList(dec *jsontext.Decoder, list []*jsonschema.Schema) error {
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
		if err := refWalk(dec, s); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// plain reports whether doc is JSON in which no object names a member
// twice, nor names a keyword in other letter cases than its own: for
// such documents jsonschema-go's decoding is what a validator reads,
// member for member, and Schema must be it exactly.
func plain(doc []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(doc), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return err.Error() == "EOF"
		}
		if tok.Kind() != '"' {
			continue
		}
		name := tok.String()
		if _, ok := keywords[name]; !ok && foldedKeyword(name) != nil {
			return false
		}
	}
}

// check decodes doc and compares every form with its reference.
func check(t *testing.T, doc []byte) {
	t.Helper()
	d, err := Decode(doc, 10000)
	ref, refErr := validator.UnmarshalJSON(bytes.NewReader(doc))
	if (err == nil) != (refErr == nil) {
		t.Fatalf("Decode(%q) = %v; encoding/json: %v", doc, err, refErr)
	}
	if err != nil {
		return
	}
	if !bytes.Equal(d.Bytes(), doc) {
		t.Errorf("Decode(%q).Bytes() = %q", doc, d.Bytes())
	}
	if got := d.Value(); !reflect.DeepEqual(got, ref) {
		t.Errorf("Decode(%q).Value() = %#v, want %#v", doc, got, ref)
	}
	var v any
	if json.Unmarshal(doc, &v) == nil && !d.Equal(v) {
		t.Errorf("Decode(%q).Equal(%#v) = false, want true", doc, v)
	}
	if !plain(doc) {
		return
	}
	got, err := d.Schema()
	want, wantErr := refSchema(doc)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("Decode(%q).Schema() = %v; jsonschema-go: %v", doc, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("Decode(%q).Schema() = %s, want %s", doc, gj, wj)
	}
}

var decodeCases = []string{
	`{}`, `true`, `false`, `null`, ` {"type":"object"} `, "\n[1, 2.5, -0, 1e400]\t",
	`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"object","properties":{"y":{"type":"integer"},"b":{"type":"integer"}}}}}`,
	`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"z":{"type":"null"},"a":{"type":"null"}}}}},"$defs":{"d":{"type":"object","properties":{"q":{"type":"null"},"c":{"type":"null"}}}}}`,
	`{"type":"object","properties":{"n":{"type":"object","additionalProperties":{"properties":{"x":{"type":"null"},"w":{"type":"null"}}}},"a":{"type":"null"}},"anyOf":[{"properties":{"m":{"type":"null"},"e":{"type":"null"}}},true]}`,
	`{"default": { "a" : [ 1 , 2 ] } ,"const":null,"enum":[null,1,"x",{"b":2}],"examples":[]}`,
	`{"items":null}`, `{"items":[true,null,{"type":"string"}]}`, `{"items":false}`, `{"not":null,"if":true}`,
	`{"type":["string",null]}`, `{"type":null}`, `{"type":5}`, `{"required":["a",null]}`, `{"required":"a"}`,
	`{"minLength":1.0}`, `{"minLength":1.5}`, `{"minLength":1e3}`, `{"minLength":3000000000}`, `{"minLength":"1"}`, `{"minLength":null}`,
	`{"minimum":-1.5e3,"maximum":null,"multipleOf":"x"}`, `{"minimum":1e400}`, `{"x-big":1e400}`,
	`{"dependencies":{"a":["b",null],"c":{"properties":{"z":{},"y":{}}},"d":null,"e":true}}`, `{"dependencies":null}`,
	`{"dependentRequired":{"a":["b"],"c":null},"$vocabulary":{"u":true,"v":null}}`, `{"$vocabulary":{"u":1}}`,
	`{"properties":{"a":null,"b":true,"c":false}}`, `{"properties":[]}`, `{"properties":null}`,
	`{"allOf":[{"title":"t"},null],"oneOf":null,"prefixItems":{}}`,
	`{"title":"a","title":"b"}`, `{"properties":{"a":{"type":"string"},"b":{},"a":{"type":"integer"}}}`,
	`{"Title":"x","TYPE":"string","x-ext":{"k":[1,true]}}`, `{"ſchema":"x"}`,
	`{"description":"\u00e9\ud83d\ude00"}`, "{\"description\":\"\xff\xfe\"}", `{"description":"\ud800"}`, "{\"\xffa\":1}",
	`"a string"`, `5`, `[]`, `[{"type":"string"}]`,
	`{"type":"object"} {}`, `{"type":"object"} x`, `{"type":`, `{"a" 1}`, `{,}`, `[1,]`, ``, ` `,
}

func TestDecode(t *testing.T) {
	for _, doc := range decodeCases {
		check(t, []byte(doc))
	}
}

// TestCatalogue checks every schema of the real servers' tools.
func TestCatalogue(t *testing.T) {
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range servers {
		for _, raw := range s.Tools {
			var tl struct{ InputSchema, OutputSchema json.RawMessage }
			if err := json.Unmarshal(raw, &tl); err != nil {
				t.Fatal(err)
			}
			for _, doc := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
				if len(doc) > 0 {
					check(t, doc)
					n++
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d schemas of the catalogue, want at least 100", n)
	}
}

// TestSuite checks every schema of the JSON-Schema-Test-Suite as
// jsonschema-go vendors it.
func TestSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "jsonschema", "testdata", "draft*", "*.json"))
	if len(files) == 0 {
		t.Skip("no test suite in jsonschema-go's module")
	}
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct{ Schema json.RawMessage }
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, g := range groups {
			check(t, g.Schema)
			n++
		}
	}
	t.Logf("checked %d schemas of %d files", n, len(files))
}

func FuzzDecode(f *testing.F) {
	for _, doc := range decodeCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { check(t, doc) })
}

func TestDecodeTooDeep(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		deep bool
	}{
		{strings.Repeat("[", 4) + strings.Repeat("]", 4), false},
		{strings.Repeat("[", 5) + strings.Repeat("]", 5), true},
		{`{"a":{"b":[{}]}}`, false},
		{`{"a":{"b":[{"c":{}}]}}`, true},
		{`{"a":"[[[[[[[[[[{{{{{{"}`, false},
		{strings.Repeat("[", 5) + "x", true}, // too deep before it stops being JSON
	} {
		_, err := Decode([]byte(tt.doc), 4)
		if got := errors.Is(err, ErrTooDeep); got != tt.deep {
			t.Errorf("Decode(%s, 4) = %v; too deep: %v, want %v", tt.doc, err, got, tt.deep)
		}
	}
}

func TestMemberOrders(t *testing.T) {
	d, err := Decode([]byte(`{"properties":{"z":{},"a":{"properties":{"y":1,"b":2,"y":3}}},"allOf":[{"m":1,"properties":{"c":2,"d":3}}],`+
		`"$defs":{"e/~":{"properties":{"k":1}},"empty":{"properties":{}},"list":{"properties":[1]}}}`), 64)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"/properties":              {"z", "a"},
		"/properties/a/properties": {"y", "b"},
		"/allOf/0/properties":      {"c", "d"},
		"/$defs/e~1~0/properties":  {"k"},
	}
	if got := d.MemberOrders("properties"); !reflect.DeepEqual(got, want) {
		t.Errorf("MemberOrders(properties) = %q, want %q", got, want)
	}
}

func TestSchemaError(t *testing.T) {
	for _, tt := range []struct{ doc, pointer string }{
		{`{"properties":{"a":{"minLength":"x"}}}`, "/properties/a/minLength"},
		{`{"allOf":[true,{"items":[{"type":5}]}]}`, "/allOf/1/items/0/type"},
		{`{"$defs":{"a/b~":{"x-n":1e400}}}`, "/$defs/a~1b~0/x-n"},
		{`"schema"`, ""},
	} {
		d, err := Decode([]byte(tt.doc), 64)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Schema()
		serr, ok := errors.AsType[*Error](err)
		if !ok || !errors.Is(err, ErrKeywordValue) || serr.Pointer != tt.pointer {
			t.Errorf("Decode(%s).Schema() = %v, want an *Error at %q matching ErrKeywordValue", tt.doc, err, tt.pointer)
		}
	}
}
