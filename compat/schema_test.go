package compat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/compat"
)

func parse(t testing.TB, doc string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	return &s
}

// want is one change a comparison must report.
type want struct {
	pointer string
	effect  compat.Effect
}

var inputCases = []struct {
	name     string
	old, new string
	breaks   bool
	want     []want // among the changes reported
	opts     *compat.Options
}{
	{name: "same", old: `{"type":"object","properties":{"a":{"type":"string"}}}`, new: `{"type":"object","properties":{"a":{"type":"string"}}}`},
	{name: "integer to number", old: `{"type":"integer"}`, new: `{"type":"number"}`, want: []want{{"/type", compat.Compatible}}},
	{name: "number to integer", old: `{"type":"number"}`, new: `{"type":"integer"}`, breaks: true, want: []want{{"/type", compat.Breaking}}},
	{name: "nullable added", old: `{"type":"string"}`, new: `{"type":["string","null"]}`},
	{name: "nullable removed", old: `{"type":["string","null"]}`, new: `{"type":"string"}`, breaks: true, want: []want{{"/type", compat.Breaking}}},
	{name: "nullable as anyOf", old: `{"type":["string","null"]}`, new: `{"anyOf":[{"type":"string"},{"type":"null"}]}`},
	{name: "anyOf branch removed", old: `{"anyOf":[{"type":"string"},{"type":"null"}]}`, new: `{"anyOf":[{"type":"string"}]}`, breaks: true, want: []want{{"", compat.Breaking}}},

	// Parts left unchanged beside a change hold, whatever their keyword.
	{name: "then without if", old: `{"type":"object","maxProperties":3,"then":{"required":["a"]}}`, new: `{"type":"object","then":{"required":["a"]}}`},
	{name: "unchanged not", old: `{"type":"object","properties":{"a":{"not":{"pattern":"^x"}},"b":{"maximum":3}}}`, new: `{"type":"object","properties":{"a":{"not":{"pattern":"^x"}},"b":{"maximum":5}}}`},
	{name: "unchanged unevaluatedProperties", old: `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}},"unevaluatedProperties":false},"b":{"maximum":3}}}`,
		new: `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}},"unevaluatedProperties":false},"b":{"maximum":5}}}`},
	{name: "unchanged reference to another document", old: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json","minLength":1},"b":{"maximum":3}}}`,
		new: `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"},"b":{"maximum":5}}}`},
	{name: "reference to another document changed", old: `{"$ref":"https://example.com/a.json"}`, new: `{"$ref":"https://example.com/b.json"}`, breaks: true, want: []want{{"/$ref", compat.Unknown}}},
	{name: "reference to an embedded resource followed", old: `{"$id":"https://example.com/root.json","$ref":"int.json","$defs":{"i":{"$id":"int.json","maximum":10}}}`,
		new: `{"$id":"https://example.com/root.json","$ref":"int.json","$defs":{"i":{"$id":"int.json","maximum":20}}}`},
	{name: "reference to an embedded resource narrowed", old: `{"$id":"https://example.com/root.json","$ref":"int.json","$defs":{"i":{"$id":"int.json","maximum":10}}}`,
		new: `{"$id":"https://example.com/root.json","$ref":"int.json","$defs":{"i":{"$id":"int.json","maximum":5}}}`, breaks: true, want: []want{{"/maximum", compat.Breaking}}},
	{name: "percent-encoded pointer followed", old: `{"$ref":"#/$defs/a%25b","$defs":{"a%b":{"maximum":10}}}`, new: `{"$ref":"#/$defs/a%25b","$defs":{"a%b":{"maximum":20}}}`},
	{name: "unchanged maxContains", old: `{"type":"array","contains":{"type":"string"},"maxContains":2,"maxItems":5}`, new: `{"type":"array","contains":{"type":"string"},"maxContains":2}`},
	{name: "maxContains raised", old: `{"type":"array","contains":{"type":"string"},"maxContains":2}`, new: `{"type":"array","contains":{"type":"string"},"maxContains":3}`},
	{name: "maxContains lowered", old: `{"type":"array","contains":{"type":"string"},"maxContains":2}`, new: `{"type":"array","contains":{"type":"string"},"maxContains":1}`, breaks: true},

	// A map's values are declared: DeclaredOnly compares them.
	{name: "map values narrowed, declared only", old: `{"type":"object","additionalProperties":{"type":"number"}}`, new: `{"type":"object","additionalProperties":{"type":"integer"}}`,
		opts: &compat.Options{DeclaredOnly: true}, breaks: true, want: []want{{"/additionalProperties/type", compat.Breaking}}},
	{name: "map values by pattern narrowed, declared only", old: `{"type":"object","patternProperties":{"^x":{"type":"number"}}}`, new: `{"type":"object","patternProperties":{"^x":{"type":"integer"}}}`,
		opts: &compat.Options{DeclaredOnly: true}, breaks: true},
	{name: "map values widened, declared only", old: `{"type":"object","additionalProperties":{"type":"integer"}}`, new: `{"type":"object","additionalProperties":{"type":"number"}}`,
		opts: &compat.Options{DeclaredOnly: true}},

	// Verdicts decided where no value of the old schema is refused.
	{name: "integer range to its enum", old: `{"type":"integer","minimum":1,"maximum":3}`, new: `{"enum":[1,2,3]}`},
	{name: "integer range to a shorter enum", old: `{"type":"integer","minimum":1,"maximum":3}`, new: `{"enum":[1,2]}`, breaks: true, want: []want{{"", compat.Breaking}}},
	{name: "multiple of 1 to integer", old: `{"type":"number","multipleOf":1}`, new: `{"type":"integer"}`},
	{name: "multiple of 0.5 to integer", old: `{"type":"number","multipleOf":0.5}`, new: `{"type":"integer"}`, breaks: true, want: []want{{"/type", compat.Breaking}}},
	{name: "not string to every other type", old: `{"not":{"type":"string"}}`, new: `{"type":["null","boolean","object","array","number"]}`},
	{name: "propertyNames that takes every name", old: `{"type":"object"}`, new: `{"type":"object","propertyNames":{"type":"string"}}`},
	{name: "propertyNames added", old: `{"type":"object"}`, new: `{"type":"object","propertyNames":{"maxLength":3}}`, breaks: true, want: []want{{"/propertyNames/maxLength", compat.Breaking}}},
	{name: "empty object closed", old: `{"type":"object","maxProperties":0}`, new: `{"type":"object","additionalProperties":false}`},
	{name: "empty string to its const", old: `{"type":"string","maxLength":0}`, new: `{"const":""}`},
	{name: "required added", old: `{"type":"object","properties":{"a":{}}}`, new: `{"type":"object","properties":{"a":{}},"required":["a"]}`, breaks: true, want: []want{{"/required", compat.Breaking}}},
	{name: "required removed", old: `{"type":"object","properties":{"a":{}},"required":["a"]}`, new: `{"type":"object","properties":{"a":{}}}`, want: []want{{"/required", compat.Compatible}}},
	{name: "enum extended", old: `{"enum":["a","b"]}`, new: `{"enum":["a","b","c"]}`},
	{name: "enum narrowed", old: `{"enum":["a","b"]}`, new: `{"enum":["a"]}`, breaks: true, want: []want{{"", compat.Breaking}}},
	{name: "enum added", old: `{"type":"string"}`, new: `{"type":"string","enum":["a"]}`, breaks: true, want: []want{{"/enum", compat.Breaking}}},
	{name: "const to enum", old: `{"const":"a"}`, new: `{"enum":["a","b"]}`},
	{name: "enum within bounds", old: `{"type":"integer","enum":[1,2,3],"maximum":2}`, new: `{"type":"integer","maximum":2}`},
	{name: "booleans all listed", old: `{"type":"boolean"}`, new: `{"enum":[true,false]}`},
	{name: "maximum lowered", old: `{"type":"integer","maximum":10}`, new: `{"type":"integer","maximum":5}`, breaks: true, want: []want{{"/maximum", compat.Breaking}}},
	{name: "maximum raised", old: `{"type":"integer","maximum":5}`, new: `{"type":"integer","maximum":10}`, want: []want{{"/maximum", compat.Compatible}}},
	{name: "exclusive same for integers", old: `{"type":"integer","exclusiveMinimum":0}`, new: `{"type":"integer","minimum":1}`},
	{name: "exclusive narrower for numbers", old: `{"type":"number","minimum":0}`, new: `{"type":"number","exclusiveMinimum":0}`, breaks: true},
	{name: "minLength raised", old: `{"type":"string","minLength":1}`, new: `{"type":"string","minLength":3}`, breaks: true, want: []want{{"/minLength", compat.Breaking}}},
	{name: "maxLength added", old: `{"type":"string"}`, new: `{"type":"string","maxLength":3}`, breaks: true, want: []want{{"/maxLength", compat.Breaking}}},
	{name: "pattern added", old: `{"type":"string"}`, new: `{"type":"string","pattern":"^a"}`, breaks: true, want: []want{{"/pattern", compat.Breaking}}},
	{name: "pattern changed", old: `{"type":"string","pattern":"^a"}`, new: `{"type":"string","pattern":"^b"}`, breaks: true, want: []want{{"/pattern", compat.Unknown}}},
	{name: "pattern removed", old: `{"type":"string","pattern":"^a"}`, new: `{"type":"string"}`, want: []want{{"/pattern", compat.Compatible}}},
	{name: "format added", old: `{"type":"string"}`, new: `{"type":"string","format":"email"}`, breaks: true},
	{name: "multipleOf finer", old: `{"type":"number","multipleOf":0.5}`, new: `{"type":"number","multipleOf":0.25}`},
	{name: "multipleOf coarser", old: `{"type":"number","multipleOf":0.5}`, new: `{"type":"number","multipleOf":1}`, breaks: true},
	{name: "property added to closed object", old: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, new: `{"type":"object","properties":{"a":{},"b":{"type":"string"}},"additionalProperties":false}`, want: []want{{"/properties/b", compat.Compatible}}},
	{name: "property added to open object", old: `{"type":"object","properties":{"a":{}}}`, new: `{"type":"object","properties":{"a":{},"b":{"type":"string"}}}`, breaks: true, want: []want{{"/properties/b", compat.Breaking}}},
	{name: "property added to open object, declared only", old: `{"type":"object","properties":{"a":{}}}`, new: `{"type":"object","properties":{"a":{},"b":{"type":"string"}}}`, opts: &compat.Options{DeclaredOnly: true}, want: []want{{"/properties/b", compat.Compatible}}},
	{name: "property removed from closed object", old: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, new: `{"type":"object","additionalProperties":false}`, breaks: true, want: []want{{"/properties/a", compat.Breaking}}},
	{name: "property removed from open object", old: `{"type":"object","properties":{"a":{"type":"string"}}}`, new: `{"type":"object"}`, want: []want{{"/properties/a", compat.Compatible}}},
	{name: "object closed", old: `{"type":"object"}`, new: `{"type":"object","additionalProperties":false}`, breaks: true, want: []want{{"/additionalProperties", compat.Breaking}}},
	{name: "object opened", old: `{"type":"object","additionalProperties":false}`, new: `{"type":"object"}`, want: []want{{"/additionalProperties", compat.Compatible}}},
	{name: "nested type narrowed", old: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"number"}}}}}`, new: `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}}`, breaks: true, want: []want{{"/properties/a/properties/b/type", compat.Breaking}}},
	{name: "items narrowed", old: `{"type":"array","items":{"type":"number"}}`, new: `{"type":"array","items":{"type":"integer"}}`, breaks: true, want: []want{{"/items/type", compat.Breaking}}},
	{name: "prefixItems to items", old: `{"type":"array","prefixItems":[{"type":"integer"}],"items":false}`, new: `{"type":"array","items":{"type":"number"}}`},
	{name: "tuple closed", old: `{"type":"array","prefixItems":[{"type":"integer"}]}`, new: `{"type":"array","prefixItems":[{"type":"integer"}],"items":false}`, breaks: true, want: []want{{"/items", compat.Breaking}}},
	{name: "uniqueItems added", old: `{"type":"array"}`, new: `{"type":"array","uniqueItems":true}`, breaks: true},
	{name: "minItems lowered", old: `{"type":"array","minItems":2}`, new: `{"type":"array","minItems":1}`},
	{name: "allOf split", old: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, new: `{"allOf":[{"type":"object","required":["a"]},{"properties":{"a":{"type":"string"}}}]}`},
	{name: "allOf conjunct added", old: `{"type":"object"}`, new: `{"allOf":[{"type":"object"},{"required":["a"]}]}`, breaks: true, want: []want{{"/allOf/1/required", compat.Breaking}}},
	{name: "oneOf unchanged", old: `{"oneOf":[{"type":"integer","minimum":0},{"type":"integer","maximum":10}]}`, new: `{"oneOf":[{"type":"integer","minimum":0},{"type":"integer","maximum":10}]}`},
	{name: "oneOf discriminated", old: `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"],"additionalProperties":false}]}`, new: `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"},"x":{"type":"string"}},"required":["k"]}]}`},
	{name: "oneOf branch opened", old: `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}]}`, new: `{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"},"x":{"type":"string"}},"required":["k"]}]}`, breaks: true, want: []want{{"/oneOf/1/properties/x", compat.Breaking}}},
	{name: "oneOf branches overlap", old: `{"type":"integer"}`, new: `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, breaks: true, want: []want{{"/oneOf", compat.Unknown}}},
	{name: "ref unchanged", old: `{"$defs":{"n":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, new: `{"$defs":{"n":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`},
	{name: "ref target narrowed", old: `{"$defs":{"n":{"type":"number"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, new: `{"$defs":{"n":{"type":"integer"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, breaks: true, want: []want{{"/properties/a/type", compat.Breaking}}},
	{name: "ref inlined", old: `{"$defs":{"n":{"type":"integer"}},"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}`, new: `{"type":"object","properties":{"a":{"type":"number"}}}`},
	{name: "recursive unchanged", old: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`, new: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`},
	{name: "recursive narrowed", old: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"number"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`, new: `{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`, breaks: true, want: []want{{"/properties/v/type", compat.Breaking}}},
	{name: "recursive root ref", old: `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`, new: `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}},"name":{"type":"string"}},"required":["name"]}`, breaks: true, want: []want{{"/required", compat.Breaking}}},
	{name: "remote ref", old: `{"type":"string"}`, new: `{"$ref":"https://example.com/s.json"}`, breaks: true, want: []want{{"/$ref", compat.Unknown}}},
	{name: "default changed", old: `{"type":"integer","default":3}`, new: `{"type":"integer","default":7}`, breaks: true, want: []want{{"/default", compat.Breaking}}},
	{name: "false to anything", old: `false`, new: `{"type":"string"}`},
	{name: "anything to false", old: `{"type":"string"}`, new: `false`, breaks: true},
	{name: "not excludes other type", old: `{"type":"string"}`, new: `{"not":{"type":"integer"}}`},
	{name: "not overlapping", old: `{"type":"string"}`, new: `{"not":{"type":"string","maxLength":0}}`, breaks: true, want: []want{{"/not", compat.Unknown}}},
	{name: "dependentRequired added", old: `{"type":"object"}`, new: `{"type":"object","dependentRequired":{"a":["b"]}}`, breaks: true},
	{name: "patternProperties same", old: `{"type":"object","patternProperties":{"^x":{"type":"number"}},"additionalProperties":false}`, new: `{"type":"object","patternProperties":{"^x":{"type":"number"}},"additionalProperties":false}`},
	{name: "patternProperties narrowed", old: `{"type":"object","patternProperties":{"^x":{"type":"number"}}}`, new: `{"type":"object","patternProperties":{"^x":{"type":"integer"}}}`, breaks: true},
}

func TestInput(t *testing.T) {
	for _, tt := range inputCases {
		t.Run(tt.name, func(t *testing.T) {
			changes := compat.Input(parse(t, tt.old), parse(t, tt.new), tt.opts)
			if got := compat.Breaks(changes); got != tt.breaks {
				t.Errorf("Input(%s, %s) breaks = %v, want %v; changes:\n%s", tt.old, tt.new, got, tt.breaks, lines(changes))
			}
			for _, w := range tt.want {
				found := false
				for _, c := range changes {
					if c.Pointer == w.pointer && c.Effect == w.effect {
						found = true
					}
				}
				if !found {
					t.Errorf("Input(%s, %s) reports no %v change at %q; changes:\n%s", tt.old, tt.new, w.effect, w.pointer, lines(changes))
				}
			}
		})
	}
}

func lines(changes []compat.Change) string {
	var b strings.Builder
	for _, c := range changes {
		b.WriteString("\t" + c.String() + "\n")
	}
	return b.String()
}

func TestOutputIsForward(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new string
		breaks   bool
	}{
		{name: "property added", old: `{"type":"object","properties":{"a":{"type":"string"}}}`, new: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`},
		{name: "required dropped", old: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, new: `{"type":"object","properties":{"a":{"type":"string"}}}`, breaks: true},
		{name: "enum extended", old: `{"enum":["a","b"]}`, new: `{"enum":["a","b","c"]}`, breaks: true},
		{name: "enum narrowed", old: `{"enum":["a","b"]}`, new: `{"enum":["a"]}`},
		{name: "integer to number", old: `{"type":"integer"}`, new: `{"type":"number"}`, breaks: true},
		{name: "default changed", old: `{"type":"integer","default":1}`, new: `{"type":"integer","default":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			changes := compat.Output(parse(t, tt.old), parse(t, tt.new), nil)
			if got := compat.Breaks(changes); got != tt.breaks {
				t.Errorf("Output(%s, %s) breaks = %v, want %v; changes:\n%s", tt.old, tt.new, got, tt.breaks, lines(changes))
			}
		})
	}
}
