package dialect_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
)

// dialectList refers to a recursive type that is not the root, through a
// pointer: {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/dialectItem"}]}.
type dialectList struct {
	Head *dialectItem `json:"head,omitempty" jsonschema:"the first item"`
}

type dialectItem struct {
	Value string       `json:"value"`
	Next  *dialectItem `json:"next,omitempty" jsonschema:"the following item"`
}

// dialectKitchen has a field of every kind hands supports.
type dialectKitchen struct {
	Flag     bool              `json:"flag"`
	Small    int8              `json:"small"`
	Ratio    float64           `json:"ratio" tool:"minimum=0,exclusiveMaximum=1,multipleOf=0.25"`
	Name     string            `json:"name" jsonschema:"a name" tool:"title=Name,deprecated,examples=a|b,pattern=^[a-z]+$"`
	Bytes    []byte            `json:"bytes"`
	Tags     []string          `json:"tags" tool:"minItems=2,maxItems=5,uniqueItems"`
	Pair     [2]int            `json:"pair"`
	Counts   map[string]int    `json:"counts,omitempty" tool:"maxProperties=3"`
	Pick     *string           `json:"pick,omitempty" tool:"enum=x|y"`
	Level    string            `json:"level" tool:"nullable,enum=k"`
	Fixed    string            `json:"fixed" tool:"const=v"`
	When     time.Time         `json:"when"`
	Anything any               `json:"anything" jsonschema:"anything at all"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Address  dialectAddress    `json:"address"`
	Extra    map[string]string `json:"extra,omitempty"`
}

func schemaJSON(t testing.TB, s string) *jsonschema.Schema {
	t.Helper()
	var out jsonschema.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("schema %s: %v", s, err)
	}
	return &out
}

func compact(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("invalid JSON %s: %v", s, err)
	}
	return b.String()
}

// sameJSON reports whether two JSON texts hold the same value; the order
// of keys is left to the golden tests.
func sameJSON(t testing.TB, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("invalid JSON %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// sameSet reports whether a and b hold the same strings, in any order;
// the order of problems is left to the golden tests.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// problemKeys summarizes problems as "severity path keyword".
func problemKeys(problems []dialect.Problem) []string {
	keys := []string{}
	for _, p := range problems {
		keys = append(keys, p.Severity.String()+" "+p.Path+" "+p.Keyword)
	}
	return keys
}

func withLimits(d *dialect.Dialect, set func(*dialect.Dialect)) *dialect.Dialect {
	c := *d
	set(&c)
	return &c
}

// TestConvert checks each rule of each dialect on a small schema: the
// output, and the problems reported.
func TestConvert(t *testing.T) {
	const object = `"type":"object"`
	for _, tt := range []struct {
		name     string
		dialect  *dialect.Dialect
		schema   *jsonschema.Schema
		want     string   // the converted schema, "null" for none
		problems []string // "severity path keyword"
	}{
		// MCP and Anthropic take 2020-12 as it is.
		{
			name:    "mcp keeps everything",
			dialect: dialect.MCP(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string","minLength":1,"not":{"const":"x"}}},"patternProperties":{"^x":true}}`),
			want:    `{"type":"object","properties":{"a":{"type":"string","minLength":1,"not":{"const":"x"}}},"patternProperties":{"^x":true}}`,
		},
		{
			name:     "mcp root not an object",
			dialect:  dialect.MCP(),
			schema:   schemaJSON(t, `{"type":"array","items":{"type":"string"}}`),
			want:     `{"type":"array","items":{"type":"string"}}`,
			problems: []string{"error  type"},
		},
		{
			name:     "anthropic rejects root anyOf",
			dialect:  dialect.Anthropic(),
			schema:   schemaJSON(t, `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`),
			want:     `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			problems: []string{"error  anyOf"},
		},
		{
			name:     "anthropic rejects root oneOf and allOf",
			dialect:  dialect.Anthropic(),
			schema:   schemaJSON(t, `{"type":"object","oneOf":[{"required":["a"]}],"allOf":[{"required":["a"]}]}`),
			want:     `{"type":"object","oneOf":[{"required":["a"]}],"allOf":[{"required":["a"]}]}`,
			problems: []string{"error  oneOf", "error  allOf"},
		},
		{
			name:    "anthropic keeps nested composition",
			dialect: dialect.Anthropic(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`),
			want:    `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		},

		// OpenAI strict mode.
		{
			name:    "openai optional field becomes required and nullable",
			dialect: dialect.OpenAIStrict(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"string","enum":["x","y"]}},"required":["a"],"additionalProperties":false}`),
			want:    `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{"type":["string","null"],"enum":["x","y",null]}},"required":["a","b","c"],"additionalProperties":false}`,
		},
		{
			name:    "openai optional field that accepts null stays as it is",
			dialect: dialect.OpenAIStrict(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"type":["string","null"]}}}`),
			want:    `{"type":"object","properties":{"a":{"type":["string","null"]}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name:    "openai optional $ref becomes anyOf with null",
			dialect: dialect.OpenAIStrict(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/X"}},"$defs":{"X":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}}}`),
			want:    `{"type":"object","properties":{"a":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/X"}]}},"$defs":{"X":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name:    "openai $ref with a description is wrapped in anyOf",
			dialect: dialect.OpenAIStrict(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/X","description":"an x"}},"required":["a"],"$defs":{"X":{"type":"string"}}}`),
			want:    `{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/$defs/X"}],"description":"an x"}},"required":["a"],"$defs":{"X":{"type":"string"}},"additionalProperties":false}`,
		},
		{
			name:    "openai keeps recursion through $ref",
			dialect: dialect.OpenAIStrict(),
			schema:  mustSchema[dialectList](t),
			want:    `{"type":"object","properties":{"head":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/dialectItem"}],"description":"the first item"}},"$defs":{"dialectItem":{"type":"object","properties":{"value":{"type":"string"},"next":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/dialectItem"}],"description":"the following item"}},"required":["value","next"],"additionalProperties":false}},"required":["head"],"additionalProperties":false}`,
		},
		{
			name:     "openai cannot express a map",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["a","m"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			problems: []string{"error /properties/m additionalProperties"},
		},
		{
			name:     "openai cannot express any value",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string"},"x":{"description":"anything"},"y":true},"required":["a","x","y"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			problems: []string{"error /properties/x type", "error /properties/y type"},
		},
		{
			name:     "openai rejects root anyOf",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","anyOf":[{"type":"object","properties":{"a":{"type":"string"}}}]}`),
			want:     `{"type":"object","additionalProperties":false}`,
			problems: []string{"error  anyOf"},
		},
		{
			name:     "openai rejects allOf, not, if and patternProperties",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string","allOf":[{"minLength":1}],"not":{"const":"x"},"if":{"const":"y"},"then":{"maxLength":3}}},"patternProperties":{"^x":{"type":"string"}},"required":["a"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			problems: []string{"error /properties/a allOf", "error /properties/a not", "error /properties/a if", "error /properties/a then", "error  patternProperties"},
		},
		{
			name:     "openai writes oneOf as anyOf",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}],"description":"a or b"}},"required":["a"]}`),
			want:     `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}],"description":"a or b (exactly one of the alternatives)"}},"required":["a"],"additionalProperties":false}`,
			problems: []string{"folded /properties/a oneOf"},
		},
		{
			name:     "openai keeps listed formats and folds the others",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"d":{"type":"string","format":"date"},"u":{"type":"string","format":"uri-reference"}},"required":["d","u"]}`),
			want:     `{"type":"object","properties":{"d":{"type":"string","format":"date"},"u":{"type":"string","description":"format: uri-reference"}},"required":["d","u"],"additionalProperties":false}`,
			problems: []string{"folded /properties/u format"},
		},
		{
			name:     "openai folds lengths, uniqueness, default and examples",
			dialect:  dialect.OpenAIStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"s":{"type":"string","description":"login name","minLength":3,"maxLength":20,"pattern":"^[a-z]+$"},"l":{"type":"array","items":{"type":"integer"},"minItems":1,"uniqueItems":true,"default":[1],"examples":[[1,2]]}},"required":["s","l"]}`),
			want:     `{"type":"object","properties":{"s":{"type":"string","description":"login name (3–20 characters)","pattern":"^[a-z]+$"},"l":{"type":"array","items":{"type":"integer"},"description":"unique items; default: [1]; examples: [1,2]","minItems":1}},"required":["l","s"],"additionalProperties":false}`,
			problems: []string{"folded /properties/s minLength", "folded /properties/s maxLength", "folded /properties/l uniqueItems", "folded /properties/l default", "folded /properties/l examples"},
		},
		{
			name:     "openai limits properties",
			dialect:  withLimits(dialect.OpenAIStrict(), func(d *dialect.Dialect) { d.MaxProperties = 2 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"required":["a","b","c"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"required":["a","b","c"],"additionalProperties":false}`,
			problems: []string{"error  properties"},
		},
		{
			name:     "openai limits nesting depth",
			dialect:  withLimits(dialect.OpenAIStrict(), func(d *dialect.Dialect) { d.MaxDepth = 2 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"string"}},"required":["c"]}},"required":["b"]}},"required":["a"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"string"}},"required":["c"],"additionalProperties":false}},"required":["b"],"additionalProperties":false}},"required":["a"],"additionalProperties":false}`,
			problems: []string{"error /properties/a/properties/b properties"},
		},
		{
			name:     "openai counts nesting through $ref",
			dialect:  withLimits(dialect.OpenAIStrict(), func(d *dialect.Dialect) { d.MaxDepth = 2 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"],"$defs":{"A":{"type":"object","properties":{"b":{"type":"object","properties":{},"required":[]}},"required":["b"]}}}`),
			want:     `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"],"$defs":{"A":{"type":"object","properties":{"b":{"type":"object","properties":{},"additionalProperties":false}},"required":["b"],"additionalProperties":false}},"additionalProperties":false}`,
			problems: []string{"error /$defs/A/properties/b properties"},
		},
		{
			name:     "openai limits enum values and their length",
			dialect:  withLimits(dialect.OpenAIStrict(), func(d *dialect.Dialect) { d.MaxEnumValues = 3; d.MaxEnumStringLength = 5; d.LargeEnum = 2 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string","enum":["aa","bb","cc"]},"b":{"type":"integer","enum":[1]}},"required":["a","b"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"string","enum":["aa","bb","cc"]},"b":{"type":"integer","enum":[1]}},"required":["a","b"],"additionalProperties":false}`,
			problems: []string{"error /properties/a enum", "error  enum"},
		},
		{
			name:     "openai limits the total string length",
			dialect:  withLimits(dialect.OpenAIStrict(), func(d *dialect.Dialect) { d.MaxStringLength = 5 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"abc":{"const":"def"}},"required":["abc"]}`),
			want:     `{"type":"object","properties":{"abc":{"const":"def"}},"required":["abc"],"additionalProperties":false}`,
			problems: []string{"error  properties"},
		},

		{
			name:    "openai tool without arguments",
			dialect: dialect.OpenAIStrict(),
			schema:  mustSchema[struct{}](t),
			want:    `{"type":"object","properties":{},"additionalProperties":false}`,
		},

		// Anthropic strict tool use.
		{
			name:     "anthropic strict keeps minItems 0 and 1 only",
			dialect:  dialect.AnthropicStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":5},"b":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["a","b"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"description":"3–5 items","minItems":1},"b":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["a","b"],"additionalProperties":false}`,
			problems: []string{"folded /properties/a minItems", "folded /properties/a maxItems"},
		},
		{
			name:     "anthropic strict folds numeric and string constraints",
			dialect:  dialect.AnthropicStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"n":{"type":"number","minimum":1,"multipleOf":0.5,"default":2},"s":{"type":"string","format":"email","maxLength":9,"pattern":"^\\w+$"}},"required":["n","s"]}`),
			want:     `{"type":"object","properties":{"n":{"type":"number","description":"at least 1; multiple of 0.5","default":2},"s":{"type":"string","description":"at most 9 characters","format":"email","pattern":"^\\w+$"}},"required":["n","s"],"additionalProperties":false}`,
			problems: []string{"folded /properties/n minimum", "folded /properties/n multipleOf", "folded /properties/s maxLength"},
		},
		{
			name:     "anthropic strict folds a pattern with a word boundary",
			dialect:  dialect.AnthropicStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"s":{"type":"string","pattern":"\\bgo\\b"}},"required":["s"]}`),
			want:     `{"type":"object","properties":{"s":{"type":"string","description":"pattern \\bgo\\b"}},"required":["s"],"additionalProperties":false}`,
			problems: []string{"folded /properties/s pattern"},
		},
		{
			name:     "anthropic strict keeps optional properties and writes oneOf as anyOf",
			dialect:  dialect.AnthropicStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"b":{"oneOf":[{"type":"string"},{"type":"null"}]}}}`),
			want:     `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}],"description":"exactly one of the alternatives"},"b":{"anyOf":[{"type":"string"},{"type":"null"}]}},"additionalProperties":false}`,
			problems: []string{"folded /properties/a oneOf"},
		},
		{
			name:     "anthropic strict rejects recursion and leaves the reference out",
			dialect:  dialect.AnthropicStrict(),
			schema:   mustSchema[dialectList](t),
			want:     `{"type":"object","properties":{"head":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/dialectItem"}],"description":"the first item"}},"$defs":{"dialectItem":{"type":"object","properties":{"value":{"type":"string"}},"required":["value"],"additionalProperties":false}},"additionalProperties":false}`,
			problems: []string{"error /$defs/dialectItem/properties/next/anyOf/1 $ref"},
		},
		{
			name:     "anthropic strict limits optional and union properties",
			dialect:  withLimits(dialect.AnthropicStrict(), func(d *dialect.Dialect) { d.MaxOptionalProperties = 1; d.MaxUnionProperties = 1 }),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`),
			want:     `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"additionalProperties":false}`,
			problems: []string{"error  required", "error  anyOf"},
		},

		{
			name:     "anthropic strict strips the keywords beside a $ref",
			dialect:  dialect.AnthropicStrict(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"an a"}},"required":["a"],"$defs":{"A":{"type":"string"}}}`),
			want:     `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"],"$defs":{"A":{"type":"string"}},"additionalProperties":false}`,
			problems: []string{"warning /properties/a description"},
		},

		// Gemini parameters.
		{
			name:    "gemini writes type lists as nullable",
			dialect: dialect.Gemini(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"type":["string","null"],"maxLength":3},"b":{"type":"boolean"}},"required":["b"],"additionalProperties":false}`),
			want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true,"maxLength":3},"b":{"type":"BOOLEAN"}},"required":["b"],"propertyOrdering":["a","b"]}`,
		},
		{
			name:     "gemini folds numeric enums",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"n":{"type":["integer","null"],"enum":[1,2,null]},"s":{"type":"string","const":"x"}},"required":["n","s"]}`),
			want:     `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true,"description":"one of 1, 2"},"s":{"type":"STRING","enum":["x"]}},"required":["n","s"],"propertyOrdering":["n","s"]}`,
			problems: []string{"folded /properties/n enum"},
		},
		{
			name:    "gemini writes a $ref out inline",
			dialect: dialect.Gemini(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/A"}],"description":"an a"}},"$defs":{"A":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}}}`),
			want:    `{"type":"OBJECT","properties":{"a":{"type":"OBJECT","nullable":true,"properties":{"v":{"type":"STRING"}},"required":["v"],"description":"an a"}}}`,
		},
		{
			name:     "gemini cuts recursion at RecursionDepth",
			dialect:  withLimits(dialect.Gemini(), func(d *dialect.Dialect) { d.RecursionDepth = 0 }),
			schema:   mustSchema[dialectList](t),
			want:     `{"type":"OBJECT","properties":{"head":{"type":"OBJECT","nullable":true,"properties":{"value":{"type":"STRING"}},"required":["value"],"description":"the first item"}}}`,
			problems: []string{"error /$defs/dialectItem/properties/next/anyOf/1 $ref"},
		},
		{
			name:     "gemini rejects recursion even when it writes it out",
			dialect:  withLimits(dialect.Gemini(), func(d *dialect.Dialect) { d.RecursionDepth = 1 }),
			schema:   mustSchema[dialectList](t),
			want:     `{"type":"OBJECT","properties":{"head":{"type":"OBJECT","nullable":true,"properties":{"value":{"type":"STRING"},"next":{"type":"OBJECT","nullable":true,"properties":{"value":{"type":"STRING"}},"required":["value"],"description":"the following item"}},"required":["value"],"propertyOrdering":["value","next"],"description":"the first item"}}}`,
			problems: []string{"error /$defs/dialectItem/properties/next/anyOf/1 $ref"},
		},
		{
			name:    "gemini omits parameters without properties",
			dialect: dialect.Gemini(),
			schema:  schemaJSON(t, `{"type":"object","properties":{},"additionalProperties":false}`),
			want:    `null`,
		},
		{
			name:     "gemini cannot express a map or an empty object",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"e":{"type":"object","properties":{}},"k":{"type":"string"}}}`),
			want:     `{"type":"OBJECT","properties":{"k":{"type":"STRING"}}}`,
			problems: []string{"error /properties/m additionalProperties", "error /properties/e properties"},
		},
		{
			name:     "gemini folds exclusive bounds and multipleOf",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"r":{"type":"number","description":"a ratio","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25}},"required":["r"]}`),
			want:     `{"type":"OBJECT","properties":{"r":{"type":"NUMBER","description":"a ratio (greater than 0; less than 1; multiple of 0.25)"}},"required":["r"]}`,
			problems: []string{"folded /properties/r exclusiveMinimum", "folded /properties/r exclusiveMaximum", "folded /properties/r multipleOf"},
		},
		{
			name:     "gemini rejects property names it cannot take",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"user-id":{"type":"string"}},"required":["user-id"]}`),
			want:     `{"type":"OBJECT","properties":{"user-id":{"type":"STRING"}},"required":["user-id"]}`,
			problems: []string{"error /properties/user-id properties"},
		},
		{
			name:     "gemini writes oneOf as anyOf and rejects allOf",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]},"b":{"type":"string","allOf":[{"minLength":1}]}}}`),
			want:     `{"type":"OBJECT","properties":{"a":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}],"description":"exactly one of the alternatives"},"b":{"type":"STRING"}},"propertyOrdering":["a","b"]}`,
			problems: []string{"folded /properties/a oneOf", "error /properties/b allOf"},
		},
		{
			name:     "gemini rejects a root anyOf",
			dialect:  dialect.Gemini(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}]}`),
			want:     `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`,
			problems: []string{"error  anyOf"},
		},

		// Gemini parametersJsonSchema.
		{
			name:    "gemini json schema splits an enum holding null",
			dialect: dialect.GeminiJSONSchema(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"a":{"type":["string","null"],"enum":["x","y",null],"description":"an a"}}}`),
			want:    `{"type":"object","properties":{"a":{"anyOf":[{"type":"string","enum":["x","y"]},{"type":"null"}],"description":"an a"}}}`,
		},
		{
			name:    "gemini json schema keeps maps and wraps a $ref with siblings",
			dialect: dialect.GeminiJSONSchema(),
			schema:  schemaJSON(t, `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"r":{"$ref":"#/$defs/R","description":"an r"}},"$defs":{"R":{"type":"string"}}}`),
			want:    `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"r":{"anyOf":[{"$ref":"#/$defs/R"}],"description":"an r"}},"$defs":{"R":{"type":"string"}},"propertyOrdering":["m","r"]}`,
		},
		{
			name:     "gemini json schema rejects recursion through required properties",
			dialect:  dialect.GeminiJSONSchema(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}},"name":{"type":"string"}},"required":["kids","name"]}`),
			want:     `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
			problems: []string{"error /properties/kids/items $ref"},
		},
		{
			name:    "gemini json schema accepts recursion through optional properties",
			dialect: dialect.GeminiJSONSchema(),
			schema:  mustSchema[dialectList](t),
			want:    `{"type":"object","properties":{"head":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/dialectItem"}],"description":"the first item"}},"$defs":{"dialectItem":{"type":"object","properties":{"value":{"type":"string"},"next":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/dialectItem"}],"description":"the following item"}},"required":["value"],"propertyOrdering":["value","next"],"additionalProperties":false}},"additionalProperties":false}`,
		},
		{
			name:     "gemini json schema folds const and enum of booleans",
			dialect:  dialect.GeminiJSONSchema(),
			schema:   schemaJSON(t, `{"type":"object","properties":{"a":{"type":"boolean","const":true},"b":{"type":"string","const":"x"}},"required":["a","b"]}`),
			want:     `{"type":"object","properties":{"a":{"type":"boolean","description":"must be true"},"b":{"type":"string","enum":["x"]}},"required":["a","b"],"propertyOrdering":["a","b"]}`,
			problems: []string{"folded /properties/a const"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := tt.dialect.ConvertJSON(tt.schema)
			gotText := "null"
			if got != nil {
				gotText = string(got)
			}
			if !sameJSON(t, gotText, tt.want) {
				t.Errorf("%s: ConvertJSON =\n%s\nwant\n%s", tt.dialect.Name, gotText, compact(t, tt.want))
			}
			want := tt.problems
			if want == nil {
				want = []string{}
			}
			if got := problemKeys(problems); !sameSet(got, want) {
				t.Errorf("%s: problems = %q, want %q\n%s", tt.dialect.Name, got, want, problems)
			}
			for _, p := range problems {
				if p.Dialect != tt.dialect.Name || p.Message == "" || p.Tool != "" {
					t.Errorf("problem %#v: want Dialect %q, a Message and no Tool", p, tt.dialect.Name)
				}
			}
		})
	}
	_ = object
}

// TestFoldText checks the wording of folded constraints.
func TestFoldText(t *testing.T) {
	for _, tt := range []struct {
		keywords string // JSON keywords of a property, for Gemini parametersJsonSchema
		want     string // the description written
	}{
		{`"minLength":3,"maxLength":20,"pattern":"^[a-z]+$","description":"login name"`, "login name (3–20 characters; pattern ^[a-z]+$)"},
		{`"minLength":1`, "at least 1 character"},
		{`"maxLength":2`, "at most 2 characters"},
		{`"minLength":4,"maxLength":4`, "exactly 4 characters"},
		{`"exclusiveMinimum":0`, "greater than 0"},
		{`"multipleOf":0.5,"exclusiveMaximum":10`, "less than 10; multiple of 0.5"},
		{`"uniqueItems":true,"minProperties":1,"maxProperties":1`, "unique items; exactly 1 property"},
		{`"contentEncoding":"base64","contentMediaType":"image/png"`, "base64-encoded; media type: image/png"},
		{`"default":"a","examples":["b","c"],"deprecated":true`, `default: "a"; examples: "b", "c"; deprecated`},
		{`"dependentRequired":{"a":["b","c"]}`, "with a also b, c"},
		{`"enum":[true]`, "one of true"},
		{`"default":"` + strings.Repeat("x", 100) + `"`, `default: "` + strings.Repeat("x", 78) + "…"},
	} {
		t.Run(tt.keywords, func(t *testing.T) {
			s := schemaJSON(t, `{"type":"object","properties":{"p":{`+tt.keywords+`}},"required":["p"]}`)
			m, _ := dialect.GeminiJSONSchema().Convert(s)
			p := m["properties"].(map[string]any)["p"].(map[string]any)
			if got := p["description"]; got != tt.want {
				t.Errorf("description = %q, want %q", got, tt.want)
			}
		})
	}
	// The brief's own example, for OpenAI: at least 1; multiple of 0.5;
	// unique items; format: email.
	s := schemaJSON(t, `{"type":"object","properties":{"p":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1}},"required":["p"]}`)
	m, _ := dialect.AnthropicStrict().Convert(s)
	if got, want := m["properties"].(map[string]any)["p"].(map[string]any)["description"], "unique items"; got != want {
		t.Errorf("AnthropicStrict description = %q, want %q", got, want)
	}
}

// TestCheckName checks each dialect's rule for tool names.
func TestCheckName(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tt := range []struct {
		dialect *dialect.Dialect
		name    string
		valid   bool
	}{
		{dialect.MCP(), "admin.tools.list", true},
		{dialect.MCP(), long(128), true},
		{dialect.MCP(), long(129), false},
		{dialect.MCP(), "get user", false},
		{dialect.OpenAIStrict(), "get-user_2", true},
		{dialect.OpenAIStrict(), long(64), true},
		{dialect.OpenAIStrict(), long(65), false},
		{dialect.OpenAIStrict(), "a.b", false},
		{dialect.OpenAIStrict(), "", false},
		{dialect.Anthropic(), long(128), true},
		{dialect.Anthropic(), long(129), false},
		{dialect.Anthropic(), "a:b", false},
		{withLimits(dialect.Anthropic(), func(d *dialect.Dialect) { d.ToolNames.MaxLength = 64 }), long(65), false},
		{dialect.AnthropicStrict(), "créer", false},
		{dialect.Gemini(), "ns:get.user-2", true},
		{dialect.Gemini(), "_private", true},
		{dialect.Gemini(), "2fa", false},
		{dialect.Gemini(), "-x", false},
		{dialect.Gemini(), long(128), true},
		{dialect.Gemini(), long(129), false},
		{dialect.GeminiJSONSchema(), "a/b", false},
		{&dialect.Dialect{Name: "zero"}, "a.b", true},
	} {
		t.Run(tt.dialect.Name+"/"+tt.name, func(t *testing.T) {
			err := tt.dialect.CheckName(tt.name)
			if tt.valid {
				if err != nil {
					t.Fatalf("%s.CheckName(%q) = %v, want nil", tt.dialect.Name, tt.name, err)
				}
				return
			}
			p, ok := errors.AsType[dialect.Problem](err)
			if !ok {
				t.Fatalf("%s.CheckName(%q) = %v, want a Problem", tt.dialect.Name, tt.name, err)
			}
			if p.Keyword != "name" || p.Severity != dialect.SeverityError || p.Tool != tt.name || p.Dialect != tt.dialect.Name {
				t.Errorf("%s.CheckName(%q) = %#v, want keyword name, an error, the tool and the dialect", tt.dialect.Name, tt.name, p)
			}
		})
	}
}

// TestLint checks that Lint reports the name's problem, then the schema's,
// each with the tool's name.
func TestLint(t *testing.T) {
	s := schemaJSON(t, `{"type":"object","properties":{"s":{"type":"string","minLength":1},"m":{"type":"object","additionalProperties":true}},"required":["s"]}`)
	got := dialect.OpenAIStrict().Lint("bad.name", s)
	want := []string{"error  name", "folded /properties/s minLength", "error /properties/m additionalProperties"}
	if keys := problemKeys(got); !sameSet(keys, want) || keys[0] != want[0] {
		t.Fatalf("Lint = %q, want %q", keys, want)
	}
	for _, p := range got {
		if p.Tool != "bad.name" {
			t.Errorf("problem %v has Tool %q, want bad.name", p, p.Tool)
		}
	}
	if text := got[1].String(); text != "error [openai-strict] tool bad.name at /properties/m: OpenAI strict mode cannot express a map (additionalProperties true); the map is left out; to fix, make the field a slice of key-value structs, or use a dialect that takes maps (mcp, anthropic, gemini-json-schema)" {
		t.Errorf("String() = %q", text)
	}
	if len(dialect.Gemini().Lint("ok_name", mustSchema[dialectUser](t))) == 0 {
		t.Error("Lint(dialectUser) under Gemini = no problems, want its folds")
	}
}

// TestLintTools checks the limits of a whole request.
func TestLintTools(t *testing.T) {
	optional := schemaJSON(t, `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"string"}}}`)
	var tools []dialect.ToolSchema
	for i := range 13 {
		tools = append(tools, dialect.ToolSchema{Name: fmt.Sprintf("tool_%d", i), Schema: optional})
	}
	got := problemKeys(dialect.AnthropicStrict().LintTools(tools...))
	want := []string{"error  tools", "error  tools"} // 26 optional properties > 24, 13 unions ≤ 16
	if !slices.Equal(got, want[:1]) {
		// 13 tools × 2 optional = 26 > 24; 13 unions ≤ 16.
		t.Fatalf("LintTools(13 tools) = %q, want %q", got, want[:1])
	}
	d := withLimits(dialect.AnthropicStrict(), func(d *dialect.Dialect) { d.MaxTools = 12; d.MaxUnionProperties = 12 })
	if got := problemKeys(d.LintTools(tools...)); len(got) != 3 {
		t.Errorf("LintTools(13 tools) with MaxTools 12 and MaxUnionProperties 12 = %q, want three request problems", got)
	}
	if got := dialect.MCP().LintTools(tools...); len(got) != 0 {
		t.Errorf("MCP.LintTools = %v, want none", got)
	}
}

// TestDialectNamed checks the registry of predefined dialects.
func TestDialectNamed(t *testing.T) {
	var names []string
	for _, d := range dialect.Dialects() {
		names = append(names, d.Name)
		got, ok := dialect.Named(d.Name)
		if !ok || !reflect.DeepEqual(got, d) || got == d {
			t.Errorf("DialectNamed(%q) = %v, %v; want a copy of the predefined dialect", d.Name, got, ok)
		}
	}
	if want := []string{"mcp", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema"}; !slices.Equal(names, want) {
		t.Errorf("Dialects() = %q, want %q", names, want)
	}
	if _, ok := dialect.Named("openai"); ok {
		t.Error(`DialectNamed("openai") found a dialect`)
	}
}

// TestConvertDoesNotMutate checks that Convert leaves its input as it was.
func TestConvertDoesNotMutate(t *testing.T) {
	inputs := map[string]func() *jsonschema.Schema{
		"user":    func() *jsonschema.Schema { return mustSchema[dialectUser](t) },
		"tree":    func() *jsonschema.Schema { return mustSchema[dialectTree](t) },
		"list":    func() *jsonschema.Schema { return mustSchema[dialectList](t) },
		"kitchen": func() *jsonschema.Schema { return mustSchema[dialectKitchen](t) },
		"composed": func() *jsonschema.Schema {
			return schemaJSON(t, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string","const":"x"},{"$ref":"#/$defs/B","description":"b"}]},"c":{"type":["integer","null"],"enum":[1,null]}},"$defs":{"B":{"type":"object","properties":{"b":{"type":"boolean"}}}}}`)
		},
	}
	for name, input := range inputs {
		for _, d := range dialect.Dialects() {
			t.Run(name+"/"+d.Name, func(t *testing.T) {
				s := input()
				before, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				d.Convert(s)
				d.ConvertJSON(s)
				d.Lint("t", s)
				after, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(before, after) {
					t.Errorf("Convert changed its input:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	}
}

// TestConvertedKeywords checks, on a type with a field of every kind, that
// no dialect's output holds a keyword the dialect does not accept.
func TestConvertedKeywords(t *testing.T) {
	allowed := map[string][]string{
		"openai-strict":      {"type", "properties", "required", "additionalProperties", "items", "anyOf", "$ref", "$defs", "enum", "const", "title", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"},
		"anthropic-strict":   {"type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf", "$ref", "$defs", "enum", "const", "default", "title", "description", "pattern", "format", "minItems"},
		"gemini":             {"type", "nullable", "properties", "required", "propertyOrdering", "items", "anyOf", "enum", "format", "title", "description", "minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "minProperties", "maxProperties"},
		"gemini-json-schema": {"$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties", "additionalProperties", "required", "propertyOrdering"},
	}
	s := mustSchema[dialectKitchen](t)
	for name, keywords := range allowed {
		d, _ := dialect.Named(name)
		t.Run(name, func(t *testing.T) {
			m, _ := d.Convert(s)
			var walk func(v any, path string, inProperties bool)
			walk = func(v any, path string, inMap bool) {
				switch v := v.(type) {
				case map[string]any:
					for k, e := range v {
						if !inMap && !slices.Contains(keywords, k) {
							t.Errorf("%s: keyword %s at %s", name, k, path)
						}
						walk(e, path+"/"+k, !inMap && (k == "properties" || k == "$defs"))
					}
				case []any:
					for _, e := range v {
						walk(e, path, false)
					}
				}
			}
			walk(m, "", false)
			if d == dialect.Gemini() {
				data, _ := json.Marshal(m)
				if bytes.Contains(data, []byte(`"type":[`)) {
					t.Errorf("gemini output has a list of types: %s", data)
				}
			}
			if d.Name == "anthropic-strict" {
				data, _ := json.Marshal(m)
				if bytes.Contains(data, []byte(`"minItems":2`)) {
					t.Errorf("anthropic-strict output has minItems 2: %s", data)
				}
			}
		})
	}
}

// FuzzConvert checks that no schema makes a dialect panic or write invalid
// JSON, and that Convert never changes its input.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]}`,
		`{"type":"object","properties":{"k":{"type":"array","items":{"$ref":"#"}}}}`,
		`{"type":"object","properties":{"h":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/I"}]}},"$defs":{"I":{"type":"object","properties":{"n":{"$ref":"#/$defs/I"}}}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}},"x":true,"e":{"type":["integer","null"],"enum":[1,null]}}}`,
		`{"type":"object","$defs":{"A":{"properties":{"a":{"$ref":"#/$defs/B"},"b":{"$ref":"#/$defs/B"}}},"B":{"properties":{"a":{"$ref":"#/$defs/C"},"b":{"$ref":"#/$defs/C"}}},"C":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/A"}}}`,
		`{"type":"object","properties":{"o":{"oneOf":[{"const":true},{"$ref":"#/properties"}],"not":{},"dependentRequired":{"a":["b"]}}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(text), &s) != nil {
			return
		}
		before, err := json.Marshal(&s)
		if err != nil {
			return
		}
		for _, d := range dialect.Dialects() {
			out, problems := d.ConvertJSON(&s)
			if out != nil && !json.Valid(out) {
				t.Errorf("%s: invalid JSON %s", d.Name, out)
			}
			for _, p := range problems {
				if p.Severity != dialect.SeverityError && p.Severity != dialect.SeverityFolded && p.Severity != dialect.SeverityWarning {
					t.Errorf("%s: problem without a severity: %#v", d.Name, p)
				}
			}
		}
		if after, _ := json.Marshal(&s); !bytes.Equal(before, after) {
			t.Errorf("Convert changed its input:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// inkColor describes itself in its own schema.
type inkColor string

// JSONSchema returns the inks of a printer, described.
func (inkColor) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Title: "Ink", Description: "one of the printer's inks", Enum: []any{"cyan", "magenta"}}
}

type inkOrder struct {
	Ink   inkColor  `json:"ink" jsonschema:"the ink to refill"`
	Spare inkColor  `json:"spare"`
	Extra *inkColor `json:"extra" jsonschema:"a second ink" tool:"title=Second"`
}

// TestOwnDescriptionKept checks that a type's own description survives a
// field's: the field's comes first, then the type's on a line of its own,
// in the canonical schema and in every dialect.
func TestOwnDescriptionKept(t *testing.T) {
	s := mustSchema[inkOrder](t)
	want := map[string]string{
		"ink":   "the ink to refill\none of the printer's inks",
		"spare": "one of the printer's inks",
		"extra": "a second ink\none of the printer's inks",
	}
	for name, desc := range want {
		if got := s.Properties[name].Description; got != desc {
			t.Errorf("Schema: %s description = %q, want %q", name, got, desc)
		}
	}
	if got := s.Properties["ink"].Title; got != "Ink" {
		t.Errorf("Schema: ink title = %q, want the type's, Ink", got)
	}
	if got := s.Properties["extra"].Title; got != "Second" {
		t.Errorf("Schema: extra title = %q, want the field's, Second", got)
	}
	for _, d := range []*dialect.Dialect{dialect.OpenAIStrict(), dialect.Gemini(), dialect.AnthropicStrict(), dialect.MCP()} {
		out, _ := d.Convert(s)
		props, _ := out["properties"].(map[string]any)
		for name, desc := range want {
			prop, _ := props[name].(map[string]any)
			got, _ := prop["description"].(string)
			if !strings.HasPrefix(got, desc) {
				t.Errorf("%s: %s description = %q, want it to start with %q", d.Name, name, got, desc)
			}
		}
	}
}

// TestPredefinedDialectsCannotBeChanged checks that changing a predefined
// dialect — its table, its lists, its limits — changes only the caller's
// copy: what every other part of the program uses stays as it was.
func TestPredefinedDialectsCannotBeChanged(t *testing.T) {
	for _, d := range dialect.Dialects() {
		before, _ := dialect.Named(d.Name)
		want := fmt.Sprintf("%+v", before)
		d.MaxDepth = 99
		d.ToolNames.MaxLength = 1
		d.NotAtRoot = append(d.NotAtRoot[:0], "properties")
		if d.Keywords != nil {
			d.Keywords["minLength"] = dialect.Reject
		}
		if d.Formats != nil {
			d.Formats[0] = "changed"
		}
		for _, again := range []func() (*dialect.Dialect, bool){
			func() (*dialect.Dialect, bool) { return dialect.Named(d.Name) },
			func() (*dialect.Dialect, bool) {
				return dialect.Dialects()[slices.IndexFunc(dialect.Dialects(), func(o *dialect.Dialect) bool { return o.Name == d.Name })], true
			},
		} {
			if got, _ := again(); fmt.Sprintf("%+v", got) != want {
				t.Errorf("%s after a caller changed its copy:\n%+v\nwant\n%s", d.Name, got, want)
			}
		}
	}
	g := dialect.Gemini()
	g.Keywords["x-extension"] = dialect.Keep
	if _, ok := dialect.Gemini().Keywords["x-extension"]; ok {
		t.Error("dialect.Gemini().Keywords changed by another caller's assignment")
	}
}
