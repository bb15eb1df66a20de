package schemadoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema returns the document as jsonschema-go's Schema.UnmarshalJSON
// decodes it, with the PropertyOrder of each schema set to the order in
// which the document lists its properties. It builds each schema once,
// where jsonschema-go decodes each one again for every schema it is
// nested in. Where an object names a keyword twice, or names it again in
// other letter cases (which encoding/json matches too), the last value
// counts. Each call returns a schema of its own.
func (d *Document) Schema() (*jsonschema.Schema, error) {
	s, err := schemaOf(&d.root)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ErrKeywordValue is matched by the error of Schema for a document with
// a value jsonschema-go does not take where the document has it.
var ErrKeywordValue = errors.New("schemadoc: a value jsonschema-go does not take")

// An Error reports a value that jsonschema-go does not take where the
// document has it.
type Error struct {
	Pointer string // JSON Pointer to the value in the document
	Message string // what is wrong with it
	Err     error  // ErrKeywordValue
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v: at %q: %s", e.Err, e.Pointer, e.Message)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error at the value itself; at moves it down a level.
func errorf(format string, args ...any) error {
	return &Error{Message: fmt.Sprintf(format, args...), Err: ErrKeywordValue}
}

// at returns err, an *Error of a value under the member or element tok,
// with tok prepended to its pointer.
func at(tok string, err error) error {
	if e, ok := err.(*Error); ok {
		e.Pointer = "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok) + e.Pointer
	}
	return err
}

// kindName names the kind of a JSON value, for messages.
func kindName(n *node) string {
	switch n.kind {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	}
	return "an array"
}

// schemaOf decodes n as Schema.UnmarshalJSON does: true is the empty
// schema; false, and null, the schema {"not": {}}; an object, its
// keywords.
func schemaOf(n *node) (*jsonschema.Schema, error) {
	switch n.kind {
	case 't':
		return &jsonschema.Schema{}, nil
	case 'f', 'n':
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, nil
	case '{':
	default:
		return nil, errorf("%s, want a schema", kindName(n))
	}
	s := new(jsonschema.Schema)
	for i := range n.members {
		m := &n.members[i]
		k, exact := keywords[m.name]
		if !exact {
			k = foldedKeyword(m.name)
			// encoding/json matches the keyword in other letter cases,
			// and jsonschema-go keeps it among the unknown keywords too.
			v, err := anyOf(&m.value)
			if err != nil {
				return nil, at(m.name, err)
			}
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[m.name] = v
		}
		if k != nil {
			if err := k(s, &m.value); err != nil {
				return nil, at(m.name, err)
			}
		}
	}
	return s, nil
}

// fieldSchema decodes n where a field holds a schema: null leaves it
// nil.
func fieldSchema(n *node) (*jsonschema.Schema, error) {
	if n.kind == 'n' {
		return nil, nil
	}
	return schemaOf(n)
}

// A keyword decodes the value of one keyword into its field of s.
type keyword func(s *jsonschema.Schema, n *node) error

// foldedKeyword returns the keyword that name is in other letter cases,
// as encoding/json matches a struct field, or nil.
func foldedKeyword(name string) keyword {
	for _, k := range keywordNames {
		if strings.EqualFold(name, k) {
			return keywords[k]
		}
	}
	return nil
}

// keywords are the keywords jsonschema-go decodes into the fields of a
// Schema, by name (set by init: they refer to schemaOf, which refers to
// them); everything else is in Extra. keywordNames are their names.
var (
	keywords     map[string]keyword
	keywordNames []string
)

func init() {
	keywords = map[string]keyword{
		"$id":                   stringField(func(s *jsonschema.Schema) *string { return &s.ID }),
		"$schema":               stringField(func(s *jsonschema.Schema) *string { return &s.Schema }),
		"$ref":                  stringField(func(s *jsonschema.Schema) *string { return &s.Ref }),
		"$comment":              stringField(func(s *jsonschema.Schema) *string { return &s.Comment }),
		"$defs":                 schemaMap(func(s *jsonschema.Schema) *map[string]*jsonschema.Schema { return &s.Defs }),
		"definitions":           schemaMap(func(s *jsonschema.Schema) *map[string]*jsonschema.Schema { return &s.Definitions }),
		"$anchor":               stringField(func(s *jsonschema.Schema) *string { return &s.Anchor }),
		"$dynamicAnchor":        stringField(func(s *jsonschema.Schema) *string { return &s.DynamicAnchor }),
		"$dynamicRef":           stringField(func(s *jsonschema.Schema) *string { return &s.DynamicRef }),
		"$vocabulary":           vocabulary,
		"title":                 stringField(func(s *jsonschema.Schema) *string { return &s.Title }),
		"description":           stringField(func(s *jsonschema.Schema) *string { return &s.Description }),
		"default":               func(s *jsonschema.Schema, n *node) error { s.Default = json.RawMessage(clone(n.raw)); return nil },
		"deprecated":            boolField(func(s *jsonschema.Schema) *bool { return &s.Deprecated }),
		"readOnly":              boolField(func(s *jsonschema.Schema) *bool { return &s.ReadOnly }),
		"writeOnly":             boolField(func(s *jsonschema.Schema) *bool { return &s.WriteOnly }),
		"examples":              anyList(func(s *jsonschema.Schema) *[]any { return &s.Examples }),
		"type":                  typeKeyword,
		"enum":                  anyList(func(s *jsonschema.Schema) *[]any { return &s.Enum }),
		"const":                 constKeyword,
		"multipleOf":            floatField(func(s *jsonschema.Schema) **float64 { return &s.MultipleOf }),
		"minimum":               floatField(func(s *jsonschema.Schema) **float64 { return &s.Minimum }),
		"maximum":               floatField(func(s *jsonschema.Schema) **float64 { return &s.Maximum }),
		"exclusiveMinimum":      floatField(func(s *jsonschema.Schema) **float64 { return &s.ExclusiveMinimum }),
		"exclusiveMaximum":      floatField(func(s *jsonschema.Schema) **float64 { return &s.ExclusiveMaximum }),
		"minLength":             intField(func(s *jsonschema.Schema) **int { return &s.MinLength }),
		"maxLength":             intField(func(s *jsonschema.Schema) **int { return &s.MaxLength }),
		"pattern":               stringField(func(s *jsonschema.Schema) *string { return &s.Pattern }),
		"prefixItems":           schemaList(func(s *jsonschema.Schema) *[]*jsonschema.Schema { return &s.PrefixItems }),
		"items":                 itemsKeyword,
		"minItems":              intField(func(s *jsonschema.Schema) **int { return &s.MinItems }),
		"maxItems":              intField(func(s *jsonschema.Schema) **int { return &s.MaxItems }),
		"additionalItems":       schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.AdditionalItems }),
		"uniqueItems":           boolField(func(s *jsonschema.Schema) *bool { return &s.UniqueItems }),
		"contains":              schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.Contains }),
		"minContains":           intField(func(s *jsonschema.Schema) **int { return &s.MinContains }),
		"maxContains":           intField(func(s *jsonschema.Schema) **int { return &s.MaxContains }),
		"unevaluatedItems":      schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.UnevaluatedItems }),
		"minProperties":         intField(func(s *jsonschema.Schema) **int { return &s.MinProperties }),
		"maxProperties":         intField(func(s *jsonschema.Schema) **int { return &s.MaxProperties }),
		"required":              stringList(func(s *jsonschema.Schema) *[]string { return &s.Required }),
		"dependentRequired":     dependentRequired,
		"properties":            properties,
		"patternProperties":     schemaMap(func(s *jsonschema.Schema) *map[string]*jsonschema.Schema { return &s.PatternProperties }),
		"additionalProperties":  schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.AdditionalProperties }),
		"propertyNames":         schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.PropertyNames }),
		"unevaluatedProperties": schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.UnevaluatedProperties }),
		"allOf":                 schemaList(func(s *jsonschema.Schema) *[]*jsonschema.Schema { return &s.AllOf }),
		"anyOf":                 schemaList(func(s *jsonschema.Schema) *[]*jsonschema.Schema { return &s.AnyOf }),
		"oneOf":                 schemaList(func(s *jsonschema.Schema) *[]*jsonschema.Schema { return &s.OneOf }),
		"not":                   schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.Not }),
		"if":                    schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.If }),
		"then":                  schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.Then }),
		"else":                  schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.Else }),
		"dependentSchemas":      schemaMap(func(s *jsonschema.Schema) *map[string]*jsonschema.Schema { return &s.DependentSchemas }),
		"dependencies":          dependencies,
		"contentEncoding":       stringField(func(s *jsonschema.Schema) *string { return &s.ContentEncoding }),
		"contentMediaType":      stringField(func(s *jsonschema.Schema) *string { return &s.ContentMediaType }),
		"contentSchema":         schemaField(func(s *jsonschema.Schema) **jsonschema.Schema { return &s.ContentSchema }),
		"format":                stringField(func(s *jsonschema.Schema) *string { return &s.Format }),
	}
	for name := range keywords {
		keywordNames = append(keywordNames, name)
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// The fields decode as encoding/json decodes them: null leaves a string or
// a boolean as it is and sets a pointer, slice or map to nil; a value of
// another kind than the field's is an error.

func stringField(f func(*jsonschema.Schema) *string) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case '"':
			*f(s) = n.text
		case 'n':
		default:
			return errorf("%s, want a string", kindName(n))
		}
		return nil
	}
}

func boolField(f func(*jsonschema.Schema) *bool) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case 't', 'f':
			*f(s) = n.kind == 't'
		case 'n':
		default:
			return errorf("%s, want a boolean", kindName(n))
		}
		return nil
	}
}

func floatField(f func(*jsonschema.Schema) **float64) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case '0':
			v, err := strconv.ParseFloat(n.text, 64)
			if err != nil {
				return errorf("the number %s is out of range", n.text)
			}
			*f(s) = &v
		case 'n':
			*f(s) = nil
		default:
			return errorf("%s, want a number", kindName(n))
		}
		return nil
	}
}

// intField decodes as jsonschema-go decodes its integer keywords: a
// number with a decimal point must be a whole number, one without must be
// an integer as written (not 1e3), and either must fit in 32 bits.
func intField(f func(*jsonschema.Schema) **int) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		if n.kind == 'n' {
			*f(s) = nil
			return nil
		}
		if n.kind != '0' {
			return errorf("%s, want an integer", kindName(n))
		}
		var i int64
		if strings.Contains(n.text, ".") {
			v, err := strconv.ParseFloat(n.text, 64)
			if err != nil {
				return errorf("the number %s is out of range", n.text)
			}
			i = int64(v)
			if float64(i) != v {
				return errorf("%s is not an integer", n.text)
			}
		} else {
			var err error
			if i, err = strconv.ParseInt(n.text, 10, 64); err != nil {
				return errorf("%s is not an integer as written", n.text)
			}
		}
		if i < math.MinInt32 || i > math.MaxInt32 {
			return errorf("%s is out of the range of an integer of 32 bits", n.text)
		}
		v := int(i)
		*f(s) = &v
		return nil
	}
}

func schemaField(f func(*jsonschema.Schema) **jsonschema.Schema) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		sub, err := fieldSchema(n)
		if err != nil {
			return err
		}
		*f(s) = sub
		return nil
	}
}

// schemas decodes an array of schemas; null elements are nil.
func schemas(n *node) ([]*jsonschema.Schema, error) {
	list := make([]*jsonschema.Schema, len(n.elems))
	for i := range n.elems {
		var err error
		if list[i], err = fieldSchema(&n.elems[i]); err != nil {
			return nil, at(strconv.Itoa(i), err)
		}
	}
	return list, nil
}

func schemaList(f func(*jsonschema.Schema) *[]*jsonschema.Schema) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case '[':
			list, err := schemas(n)
			if err != nil {
				return err
			}
			*f(s) = list
		case 'n':
			*f(s) = nil
		default:
			return errorf("%s, want an array of schemas", kindName(n))
		}
		return nil
	}
}

// schemaMapOf decodes an object of schemas; null values are nil.
func schemaMapOf(n *node) (map[string]*jsonschema.Schema, error) {
	m := make(map[string]*jsonschema.Schema, len(n.members))
	for i := range n.members {
		sub, err := fieldSchema(&n.members[i].value)
		if err != nil {
			return nil, at(n.members[i].name, err)
		}
		m[n.members[i].name] = sub
	}
	return m, nil
}

func schemaMap(f func(*jsonschema.Schema) *map[string]*jsonschema.Schema) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case '{':
			m, err := schemaMapOf(n)
			if err != nil {
				return err
			}
			*f(s) = m
		case 'n':
			*f(s) = nil
		default:
			return errorf("%s, want an object of schemas", kindName(n))
		}
		return nil
	}
}

// properties decodes the properties, and sets PropertyOrder to their
// names in the document's order.
func properties(s *jsonschema.Schema, n *node) error {
	if err := schemaMap(func(s *jsonschema.Schema) *map[string]*jsonschema.Schema { return &s.Properties })(s, n); err != nil {
		return err
	}
	s.PropertyOrder = nil
	for i := range n.members {
		s.PropertyOrder = append(s.PropertyOrder, n.members[i].name)
	}
	return nil
}

// stringsOf decodes an array of strings; null elements are "".
func stringsOf(n *node) ([]string, error) {
	if n.kind != '[' {
		return nil, errorf("%s, want an array of strings", kindName(n))
	}
	list := make([]string, len(n.elems))
	for i := range n.elems {
		switch e := &n.elems[i]; e.kind {
		case '"':
			list[i] = e.text
		case 'n':
		default:
			return nil, at(strconv.Itoa(i), errorf("%s, want a string", kindName(e)))
		}
	}
	return list, nil
}

func stringList(f func(*jsonschema.Schema) *[]string) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		if n.kind == 'n' {
			*f(s) = nil
			return nil
		}
		list, err := stringsOf(n)
		if err != nil {
			return err
		}
		*f(s) = list
		return nil
	}
}

func dependentRequired(s *jsonschema.Schema, n *node) error {
	switch n.kind {
	case '{':
		m := make(map[string][]string, len(n.members))
		for i := range n.members {
			var list []string
			if v := &n.members[i].value; v.kind != 'n' {
				var err error
				if list, err = stringsOf(v); err != nil {
					return at(n.members[i].name, err)
				}
			}
			m[n.members[i].name] = list
		}
		s.DependentRequired = m
	case 'n':
		s.DependentRequired = nil
	default:
		return errorf("%s, want an object of arrays of strings", kindName(n))
	}
	return nil
}

func vocabulary(s *jsonschema.Schema, n *node) error {
	switch n.kind {
	case '{':
		m := make(map[string]bool, len(n.members))
		for i := range n.members {
			switch v := &n.members[i].value; v.kind {
			case 't', 'f':
				m[n.members[i].name] = v.kind == 't'
			case 'n':
				m[n.members[i].name] = false
			default:
				return at(n.members[i].name, errorf("%s, want a boolean", kindName(v)))
			}
		}
		s.Vocabulary = m
	case 'n':
		s.Vocabulary = nil
	default:
		return errorf("%s, want an object of booleans", kindName(n))
	}
	return nil
}

func anyList(f func(*jsonschema.Schema) *[]any) keyword {
	return func(s *jsonschema.Schema, n *node) error {
		switch n.kind {
		case '[':
			v, err := anyOf(n)
			if err != nil {
				return err
			}
			*f(s) = v.([]any)
		case 'n':
			*f(s) = nil
		default:
			return errorf("%s, want an array", kindName(n))
		}
		return nil
	}
}

// typeKeyword decodes "type" as jsonschema-go does: a string into Type,
// an array of strings into Types.
func typeKeyword(s *jsonschema.Schema, n *node) error {
	switch n.kind {
	case '"':
		s.Type = n.text
	case '[':
		list, err := stringsOf(n)
		if err != nil {
			return err
		}
		s.Types = list
	default:
		return errorf("%s, want a string or an array of strings", kindName(n))
	}
	return nil
}

// itemsKeyword decodes "items" as jsonschema-go does: an array into
// ItemsArray, anything else as a whole schema into Items (null too, which
// jsonschema-go reads as false).
func itemsKeyword(s *jsonschema.Schema, n *node) error {
	if n.kind == '[' {
		list, err := schemas(n)
		if err != nil {
			return err
		}
		s.ItemsArray = list
		return nil
	}
	sub, err := schemaOf(n)
	if err != nil {
		return err
	}
	s.Items = sub
	return nil
}

// constKeyword decodes "const": null is a pointer to nil.
func constKeyword(s *jsonschema.Schema, n *node) error {
	v, err := anyOf(n)
	if err != nil {
		return err
	}
	s.Const = &v
	return nil
}

// dependencies decodes draft 7's "dependencies" as jsonschema-go does: an
// array of strings into DependencyStrings, anything else as a whole schema
// into DependencySchemas.
func dependencies(s *jsonschema.Schema, n *node) error {
	switch n.kind {
	case '{':
	case 'n':
		return nil
	default:
		return errorf("%s, want an object", kindName(n))
	}
	for i := range n.members {
		name, v := n.members[i].name, &n.members[i].value
		if v.kind == '[' {
			list, err := stringsOf(v)
			if err != nil {
				return at(name, err)
			}
			if s.DependencyStrings == nil {
				s.DependencyStrings = map[string][]string{}
			}
			s.DependencyStrings[name] = list
			continue
		}
		sub, err := schemaOf(v)
		if err != nil {
			return at(name, err)
		}
		if s.DependencySchemas == nil {
			s.DependencySchemas = map[string]*jsonschema.Schema{}
		}
		s.DependencySchemas[name] = sub
	}
	return nil
}

// anyOf returns n as encoding/json decodes it into an any, numbers as
// float64.
func anyOf(n *node) (any, error) {
	switch n.kind {
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '"':
		return n.text, nil
	case '0':
		f, err := strconv.ParseFloat(n.text, 64)
		if err != nil {
			return nil, errorf("the number %s is out of range", n.text)
		}
		return f, nil
	case '{':
		m := make(map[string]any, len(n.members))
		for i := range n.members {
			v, err := anyOf(&n.members[i].value)
			if err != nil {
				return nil, at(n.members[i].name, err)
			}
			m[n.members[i].name] = v
		}
		return m, nil
	case '[':
		list := make([]any, len(n.elems))
		for i := range n.elems {
			v, err := anyOf(&n.elems[i])
			if err != nil {
				return nil, at(strconv.Itoa(i), err)
			}
			list[i] = v
		}
		return list, nil
	}
	return nil, nil
}
