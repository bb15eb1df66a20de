package dynamic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"

	"github.com/hands-go/hands/internal/editdist"
	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/schema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The validator's own messages ("minLength: got 0, want 2") are not
// hands': a model told what to fix by a proxied tool must read what a
// typed tool would tell it ("must be at least 2 characters, got 0"). So
// each kind of failure a typed tool can report is worded here as package
// schema words it — TestMessagesMatchTypedTools holds the two to the same
// text — and the others keep the validator's message.

// issuesOf returns the issues one failure of the validator stands for:
// one for most, one per property for required and additionalProperties.
func (c *compiled) issuesOf(e *validator.ValidationError, inst any) []schema.Issue {
	keyword := ""
	if path := e.ErrorKind.KeywordPath(); len(path) > 0 {
		keyword = path[len(path)-1]
	}
	at := pointer(e.InstanceLocation)
	one := func(msg string) []schema.Issue {
		return []schema.Issue{{Path: at, Keyword: keyword, Message: msg}}
	}
	value, _ := valueAt(inst, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return one(typeMessage(k.Want, value))
	case *kind.Const:
		return one("must be " + valueText(k.Want) + ", got " + valueText(value))
	case *kind.Enum:
		list := make([]string, 0, min(len(k.Want), maxEnumListed))
		for _, v := range k.Want[:min(len(k.Want), maxEnumListed)] {
			list = append(list, valueText(v))
		}
		more := ""
		if len(k.Want) > maxEnumListed {
			more = ", …"
		}
		return one("must be one of " + strings.Join(list, ", ") + more + "; got " + valueText(value))
	case *kind.Format:
		return one("must be " + msgtext.FormatNoun(k.Want) + ", got " + valueText(value))
	case *kind.Pattern:
		if c.patterns.cutOff(k.Want, k.Got) {
			return one(fmt.Sprintf("took too long to match against the pattern %s (over %v), so it is refused; send a shorter or simpler value", k.Want, PatternTimeout))
		}
		return one("must match the pattern " + k.Want + ", got " + quote(k.Got))
	case *kind.MinLength:
		return one(fmt.Sprintf("must be at least %d %s, got %d", k.Want, msgtext.Plural(k.Want, "character"), k.Got))
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d %s, got %d", k.Want, msgtext.Plural(k.Want, "character"), k.Got))
	case *kind.MinItems:
		return one(fmt.Sprintf("must have at least %d %s, got %d", k.Want, msgtext.Plural(k.Want, "item"), k.Got))
	case *kind.MaxItems:
		return one(fmt.Sprintf("must have at most %d %s, got %d", k.Want, msgtext.Plural(k.Want, "item"), k.Got))
	case *kind.MinProperties:
		return one(fmt.Sprintf("must have at least %d %s, got %d", k.Want, msgtext.Plural(k.Want, "property"), k.Got))
	case *kind.MaxProperties:
		return one(fmt.Sprintf("must have at most %d %s, got %d", k.Want, msgtext.Plural(k.Want, "property"), k.Got))
	case *kind.Minimum:
		return one("must be at least " + ratText(k.Want) + ", got " + valueText(value))
	case *kind.Maximum:
		return one("must be at most " + ratText(k.Want) + ", got " + valueText(value))
	case *kind.ExclusiveMinimum:
		return one("must be greater than " + ratText(k.Want) + ", got " + valueText(value))
	case *kind.ExclusiveMaximum:
		return one("must be less than " + ratText(k.Want) + ", got " + valueText(value))
	case *kind.MultipleOf:
		return one("must be a multiple of " + ratText(k.Want) + ", got " + valueText(value))
	case *kind.UniqueItems:
		return one(fmt.Sprintf("items %d and %d are equal; every item must be unique", k.Duplicates[0], k.Duplicates[1]))
	case *kind.Required:
		props := c.propertiesAt(e.SchemaURL)
		issues := make([]schema.Issue, 0, len(k.Missing))
		for _, name := range k.Missing {
			issues = append(issues, schema.Issue{Path: at, Keyword: keyword,
				Message: "missing required property " + strconv.Quote(name) + " (" + c.describe(props.schemas[name]) + ")"})
		}
		return issues
	case *kind.AdditionalProperties:
		props := c.propertiesAt(e.SchemaURL)
		issues := make([]schema.Issue, 0, len(k.Properties))
		for _, name := range k.Properties {
			issues = append(issues, schema.Issue{Path: at, Keyword: keyword, Message: unknownMessage(name, props.names)})
		}
		return issues
	}
	return one(shorten(e.ErrorKind.LocalizedString(c.printer)))
}

// maxEnumListed is how many allowed values a message lists, as package
// schema lists them.
const maxEnumListed = 20

// maxNamesListed is how many property names a message about an unknown
// one lists.
const maxNamesListed = 12

func quote(s string) string { return msgtext.Quote(s, msgtext.MaxValue) }

// valueAt returns the value at the instance location tokens of inst.
func valueAt(inst any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch v := inst.(type) {
		case map[string]any:
			if inst, _ = v[t]; inst == nil {
				if _, ok := v[t]; !ok {
					return nil, false
				}
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			inst = v[i]
		default:
			return nil, false
		}
	}
	return inst, true
}

// valueText writes a value as a message repeats it: a string quoted, a
// number or a literal as JSON, cut to msgtext.MaxValue.
func valueText(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case json.Number:
		return msgtext.Raw([]byte(v), msgtext.MaxValue)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprint(v)
	}
	return msgtext.Raw(bytes.TrimSpace(b.Bytes()), msgtext.MaxValue)
}

// describeValue names a value's JSON type and, when short, the value.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + strconv.FormatBool(v) + ")"
	case string:
		return "a string (" + valueText(v) + ")"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number (" + valueText(v) + ")"
}

// typeMessage says which types a value must have: "must be a string or
// null, got a number (3)".
func typeMessage(want []string, value any) string {
	names := make([]string, 0, len(want))
	integer := false
	for _, t := range want {
		integer = integer || t == "integer"
		names = append(names, typeNoun(t))
	}
	msg := "must be " + strings.Join(names, " or ")
	if n, ok := value.(json.Number); ok && integer {
		return msg + ", got " + valueText(n) // a fraction, for an integer
	}
	return msg + ", got " + describeValue(value)
}

// typeNoun names a JSON type with its article.
func typeNoun(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

// ratText writes a schema's number as package schema does: the shortest
// decimal of its float64.
func ratText(r *big.Rat) string {
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// unknownMessage says that name is not a property of an object whose
// properties are names: the one it is a typo of, if one is close, else
// the list.
func unknownMessage(name string, names []string) string {
	msg := "unknown property " + quote(name)
	lower := strings.ToLower(name)
	best, bestDist := "", 4
	for _, n := range names {
		field := strings.ToLower(n)
		if len(field) <= len(lower)-bestDist || len(field) >= len(lower)+bestDist {
			continue // the distance is at least the difference in length
		}
		if d := editdist.Distance(lower, field); d < bestDist {
			best, bestDist = n, d
		}
	}
	switch {
	case best != "":
		return msg + "; did you mean " + strconv.Quote(best) + "?"
	case len(names) == 0:
		return msg + "; this object takes no properties"
	}
	quoted := make([]string, 0, min(len(names), maxNamesListed))
	for _, n := range names[:min(len(names), maxNamesListed)] {
		quoted = append(quoted, strconv.Quote(n))
	}
	msg += "; the properties are " + strings.Join(quoted, ", ")
	if len(names) > maxNamesListed {
		msg += ", …"
	}
	return msg
}

// describe names the values a property's schema takes, as package schema
// names a field's: "a string", "an integer", "one of "a", "b"", "any JSON
// value".
func (c *compiled) describe(s any) string {
	for range 8 { // local references, followed a few steps
		m, ok := s.(map[string]any)
		if !ok {
			return "any JSON value"
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		s = c.schemaAt(ref)
	}
	m, _ := s.(map[string]any)
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		list := make([]string, 0, len(enum))
		for _, v := range enum {
			list = append(list, valueText(v))
		}
		return "one of " + strings.Join(list, ", ")
	}
	switch t := m["type"].(type) {
	case string:
		return typeNoun(t)
	case []any:
		for _, t := range t {
			if t, ok := t.(string); ok && t != "null" {
				return typeNoun(t)
			}
		}
	}
	return "any JSON value"
}

// schemaAt returns the subschema of the document that the fragment of
// ref (a JSON Pointer) names, or nil.
func (c *compiled) schemaAt(ref string) any {
	_, frag, _ := strings.Cut(ref, "#")
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil
	}
	var s any = c.doc
	for _, tok := range pointerTokens(frag) {
		switch v := s.(type) {
		case map[string]any:
			s = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			s = v[i]
		default:
			return nil
		}
	}
	return s
}

// pointerTokens splits a JSON Pointer into its unescaped tokens.
func pointerTokens(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks
}

// properties are an object schema's properties: their names in the
// document's order, and their schemas.
type properties struct {
	names   []string
	schemas map[string]any
}

// propertiesAt returns the properties of the schema at schemaURL.
func (c *compiled) propertiesAt(schemaURL string) properties {
	s, _ := c.schemaAt(schemaURL).(map[string]any)
	schemas, _ := s["properties"].(map[string]any)
	_, frag, _ := strings.Cut(schemaURL, "#")
	frag, _ = url.PathUnescape(frag)
	return properties{names: c.orderOf(frag + "/properties"), schemas: schemas}
}

// orderOf returns the names of the properties object at pointer p of the
// schema document, in the document's order; they are read once, when the
// document is compiled (compiled.orders), and shared: they must not be
// changed.
func (c *compiled) orderOf(p string) []string { return c.orders[p] }
