package dialect_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/schema"
)

// The rule checkers below restate, independently of the converter, what
// each provider documents that it accepts. Each rule cites its source. A
// checker reads the schema as plain JSON and returns one line per broken
// rule: "path: rule".

type ruleChecker func(name string, s map[string]any) []string

var ruleCheckers = map[string]ruleChecker{
	"mcp":                checkMCP,
	"openai-strict":      checkOpenAIStrict,
	"anthropic":          checkAnthropic,
	"anthropic-strict":   checkAnthropicStrict,
	"gemini":             checkGemini,
	"gemini-json-schema": checkGeminiJSONSchema,
}

// A ruleWalk visits every schema of a document with its path, the schemas
// under properties, $defs, items, prefixItems, additionalProperties,
// anyOf, oneOf, allOf and not.
func ruleWalk(s any, path string, visit func(o map[string]any, path string)) {
	o, ok := s.(map[string]any)
	if !ok {
		return
	}
	visit(o, path)
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := o[k].(map[string]any); ok {
			for name, v := range m {
				ruleWalk(v, path+"/"+k+"/"+name, visit)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		ruleWalk(o[k], path+"/"+k, visit)
	}
	for _, k := range []string{"prefixItems", "anyOf", "oneOf", "allOf"} {
		if a, ok := o[k].([]any); ok {
			for i, v := range a {
				ruleWalk(v, fmt.Sprintf("%s/%s/%d", path, k, i), visit)
			}
		}
	}
}

// checkKeywords reports the keywords outside allowed. The names under
// properties and $defs are not keywords.
func checkKeywords(s map[string]any, allowed ...string) []string {
	var bad []string
	ruleWalk(s, "", func(o map[string]any, path string) {
		for k := range o {
			if !slices.Contains(allowed, k) {
				bad = append(bad, path+": keyword "+k+" is not supported")
			}
		}
	})
	return bad
}

// checkRoot: every provider takes an object schema at the root of a tool.
func checkRoot(s map[string]any, objectType string, notAtRoot ...string) []string {
	var bad []string
	if s["type"] != objectType {
		bad = append(bad, fmt.Sprintf(": the root has type %v, want %s", s["type"], objectType))
	}
	for _, k := range notAtRoot {
		if _, ok := s[k]; ok {
			bad = append(bad, ": "+k+" at the root")
		}
	}
	return bad
}

// checkResolves: the schema is valid draft 2020-12 and its references
// resolve (jsonschema-go's Resolve).
func checkResolves(s map[string]any) []string {
	data, _ := json.Marshal(s)
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		return []string{": not a JSON Schema: " + err.Error()}
	}
	if _, err := js.Resolve(nil); err != nil {
		return []string{": does not resolve: " + err.Error()}
	}
	return nil
}

func checkName(name string, re string) []string {
	if !regexp.MustCompile(re).MatchString(name) {
		return []string{"name " + name + " does not match " + re}
	}
	return nil
}

// refCycle reports whether a reference of s leads back to a schema being
// expanded: a recursive type.
func refCycles(s map[string]any) []string {
	var bad []string
	var visit func(o map[string]any, path string, stack []string)
	visit = func(o map[string]any, path string, stack []string) {
		ruleWalk(o, path, func(o map[string]any, p string) {
			ref, _ := o["$ref"].(string)
			if ref == "" {
				return
			}
			if slices.Contains(stack, ref) {
				bad = append(bad, p+": $ref "+ref+" is recursive")
				return
			}
			if t := resolveRef(s, ref); t != nil {
				visit(t, ref, append(stack, ref))
			}
		})
	}
	visit(s, "", []string{"#"})
	return bad
}

func resolveRef(root map[string]any, ref string) map[string]any {
	if ref == "#" {
		return root
	}
	var cur any = root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// refAlone: a $ref with no sibling keywords.
func refAlone(s map[string]any) []string {
	var bad []string
	ruleWalk(s, "", func(o map[string]any, path string) {
		if _, ok := o["$ref"]; ok && len(o) > 1 {
			bad = append(bad, path+": $ref has sibling keywords")
		}
	})
	return bad
}

// MCP: "inputSchema: a JSON Schema object defining the expected parameters
// for the tool", type object; names of 1 to 128 of [A-Za-z0-9_.-]
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools).
func checkMCP(name string, s map[string]any) []string {
	bad := checkName(name, `^[A-Za-z0-9_.-]{1,128}$`)
	bad = append(bad, checkRoot(s, "object")...)
	return append(bad, checkResolves(s)...)
}

// OpenAI strict mode (https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas):
// the supported keywords and string formats; "all fields must be
// required"; "additionalProperties: false must always be set in objects";
// "a schema may have up to 5000 object properties total, with up to 10
// levels of nesting"; "up to 1000 enum values across all enum properties";
// the root must be an object and not anyOf. Function names match
// ^[a-zA-Z0-9_-]{1,64}$ (Chat Completions API reference). A $ref stands
// alone: the API answers "$ref cannot have keywords" otherwise.
func checkOpenAIStrict(name string, s map[string]any) []string {
	bad := checkName(name, `^[a-zA-Z0-9_-]{1,64}$`)
	bad = append(bad, checkRoot(s, "object", "anyOf")...)
	bad = append(bad, checkKeywords(s, "type", "properties", "required", "additionalProperties", "items", "anyOf", "$ref", "$defs", "enum", "const",
		"title", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems")...)
	bad = append(bad, refAlone(s)...)
	bad = append(bad, checkResolves(s)...)
	formats := []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
	properties, enums := 0, 0
	ruleWalk(s, "", func(o map[string]any, path string) {
		if f, ok := o["format"].(string); ok && !slices.Contains(formats, f) {
			bad = append(bad, path+": format "+f)
		}
		if e, ok := o["enum"].([]any); ok {
			enums += len(e)
		}
		if o["type"] == "object" || slices.Contains(anyList(o["type"]), "object") {
			if o["additionalProperties"] != false {
				bad = append(bad, path+": additionalProperties is not false")
			}
			props, _ := o["properties"].(map[string]any)
			properties += len(props)
			required := anyList(o["required"])
			for p := range props {
				if !slices.Contains(required, p) {
					bad = append(bad, path+": property "+p+" is not required")
				}
			}
		}
		if _, ok := o["$ref"]; !ok && o["type"] == nil && o["anyOf"] == nil && o["enum"] == nil && o["const"] == nil {
			bad = append(bad, path+": no type")
		}
	})
	if properties > 5000 {
		bad = append(bad, fmt.Sprintf(": %d properties", properties))
	}
	if enums > 1000 {
		bad = append(bad, fmt.Sprintf(": %d enum values", enums))
	}
	if d := objectDepth(s, s, nil); d > 10 {
		bad = append(bad, fmt.Sprintf(": objects nest %d levels", d))
	}
	return bad
}

// objectDepth is how deeply objects nest, following references but not
// recursion.
func objectDepth(root, o map[string]any, stack []string) int {
	deepest := 0
	for _, k := range []string{"properties"} {
		if m, ok := o[k].(map[string]any); ok {
			for _, v := range m {
				if c, ok := v.(map[string]any); ok {
					deepest = max(deepest, objectDepth(root, c, stack))
				}
			}
		}
	}
	if c, ok := o["items"].(map[string]any); ok {
		deepest = max(deepest, objectDepth(root, c, stack))
	}
	if a, ok := o["anyOf"].([]any); ok {
		for _, v := range a {
			if c, ok := v.(map[string]any); ok {
				deepest = max(deepest, objectDepth(root, c, stack))
			}
		}
	}
	if ref, ok := o["$ref"].(string); ok && !slices.Contains(stack, ref) && ref != "#" {
		if t := resolveRef(root, ref); t != nil {
			deepest = max(deepest, objectDepth(root, t, append(stack, ref)))
		}
	}
	if _, ok := o["properties"]; ok {
		deepest++
	}
	return deepest
}

func anyList(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Anthropic (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools):
// input_schema is a JSON Schema object with type object and no anyOf,
// oneOf or allOf at the top level; names match ^[a-zA-Z0-9_-]{1,128}$.
func checkAnthropic(name string, s map[string]any) []string {
	bad := checkName(name, `^[a-zA-Z0-9_-]{1,128}$`)
	bad = append(bad, checkRoot(s, "object", "anyOf", "oneOf", "allOf")...)
	return append(bad, checkResolves(s)...)
}

// Anthropic strict tool use (https://platform.claude.com/docs/en/build-with-claude/structured-outputs,
// "JSON Schema limitations"): additionalProperties false on every object;
// no recursive schemas; minItems 0 or 1 only; the listed string formats;
// no backreferences, look-arounds or word boundaries in patterns; enum
// values that are strings, numbers, booleans or null; no $ref inside
// allOf. The keywords kept, and a $ref standing alone, follow
// anthropic-sdk-go's schemautil.go (supportedSchemaKeys, transformSchema),
// with default, which the page lists as supported.
func checkAnthropicStrict(name string, s map[string]any) []string {
	bad := checkAnthropic(name, s)
	bad = append(bad, checkKeywords(s, "$ref", "$defs", "type", "anyOf", "oneOf", "allOf", "description", "title", "enum", "const",
		"properties", "additionalProperties", "required", "items", "minItems", "format", "pattern", "default")...)
	bad = append(bad, refAlone(s)...)
	bad = append(bad, refCycles(s)...)
	formats := []string{"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
	unsupported := regexp.MustCompile(`\\[bB1-9]|\(\?[=!]|\(\?<[=!]`)
	ruleWalk(s, "", func(o map[string]any, path string) {
		if f, ok := o["format"].(string); ok && !slices.Contains(formats, f) {
			bad = append(bad, path+": format "+f)
		}
		if p, ok := o["pattern"].(string); ok && unsupported.MatchString(p) {
			bad = append(bad, path+": pattern "+p)
		}
		if n, ok := o["minItems"].(float64); ok && n > 1 {
			bad = append(bad, fmt.Sprintf("%s: minItems %v", path, n))
		}
		if o["type"] == "object" && o["additionalProperties"] != false {
			bad = append(bad, path+": additionalProperties is not false")
		}
		if e, ok := o["enum"].([]any); ok {
			for _, v := range e {
				switch v.(type) {
				case map[string]any, []any:
					bad = append(bad, path+": enum value of an object or array")
				}
			}
		}
		if a, ok := o["allOf"].([]any); ok {
			for _, b := range a {
				if m, ok := b.(map[string]any); ok && m["$ref"] != nil {
					bad = append(bad, path+": $ref inside allOf")
				}
			}
		}
	})
	return bad
}

// Gemini parameters (https://ai.google.dev/api/caching#Schema): the Schema
// object's fields; type is one of the Type enum's values; "enum: possible
// values of the element of Type.STRING with enum format"; no $ref. Names
// (https://ai.google.dev/api/caching#FunctionDeclaration) start with a
// letter or '_' and hold up to 128 of [a-zA-Z0-9_.:-]; property names, in
// the Vertex AI FunctionDeclaration reference, match
// ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$.
func checkGemini(name string, s map[string]any) []string {
	bad := checkName(name, `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`)
	bad = append(bad, checkRoot(s, "OBJECT")...)
	bad = append(bad, checkKeywords(s, "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
		"required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
		"default", "items", "minimum", "maximum")...)
	types := []string{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}
	propName := regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)
	ruleWalk(s, "", func(o map[string]any, path string) {
		if t, ok := o["type"]; ok {
			if ts, _ := t.(string); !slices.Contains(types, ts) {
				bad = append(bad, fmt.Sprintf("%s: type %v", path, t))
			}
		}
		if _, ok := o["enum"]; ok && o["type"] != "STRING" {
			bad = append(bad, fmt.Sprintf("%s: enum on type %v", path, o["type"]))
		}
		if e, ok := o["enum"].([]any); ok {
			for _, v := range e {
				if _, ok := v.(string); !ok {
					bad = append(bad, fmt.Sprintf("%s: enum value %v", path, v))
				}
			}
		}
		props, _ := o["properties"].(map[string]any)
		for p := range props {
			if !propName.MatchString(p) {
				bad = append(bad, path+": property name "+p)
			}
		}
		for _, r := range anyList(o["required"]) {
			if _, ok := props[r]; !ok {
				bad = append(bad, path+": required "+r+" is not a property")
			}
		}
		if o["type"] == "OBJECT" && len(props) == 0 {
			bad = append(bad, path+": an object without properties")
		}
	})
	return bad
}

// Gemini parametersJsonSchema (https://ai.google.dev/api/caching#FunctionDeclaration,
// and the keywords listed for GenerationConfig.responseJsonSchema): $id,
// $defs, $ref, $anchor, type, format, title, description, enum (strings
// and numbers), items, prefixItems, minItems, maxItems, minimum, maximum,
// anyOf, oneOf, properties, additionalProperties, required,
// propertyOrdering; "$ref ... must not have sibling keywords"; recursion
// only through optional properties.
func checkGeminiJSONSchema(name string, s map[string]any) []string {
	bad := checkName(name, `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`)
	bad = append(bad, checkRoot(s, "object")...)
	bad = append(bad, checkKeywords(s, "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
		"prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties", "additionalProperties", "required",
		"propertyOrdering")...)
	bad = append(bad, refAlone(s)...)
	bad = append(bad, checkResolves(s)...)
	ruleWalk(s, "", func(o map[string]any, path string) {
		if e, ok := o["enum"].([]any); ok {
			for _, v := range e {
				switch v.(type) {
				case string, float64:
				default:
					bad = append(bad, fmt.Sprintf("%s: enum value %v", path, v))
				}
			}
		}
	})
	return bad
}

// The tricky inputs: what real tools hold and providers trip on.

type trickyTree struct {
	Label string       `json:"label"`
	Kids  []trickyTree `json:"kids,omitempty" jsonschema:"the subtrees"`
}

type trickyA struct {
	B *trickyB `json:"b,omitempty"`
}

type trickyB struct {
	A    *trickyA `json:"a,omitempty"`
	Name string   `json:"name"`
}

type trickyMaps struct {
	Labels map[string]string          `json:"labels" jsonschema:"free-form labels"`
	Counts map[string]int             `json:"counts,omitempty"`
	Nested map[string]map[string]bool `json:"nested,omitempty"`
}

type trickyAny struct {
	Value   any             `json:"value" jsonschema:"anything at all"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	Comment string          `json:"comment"`
}

type trickyEnums struct {
	Level    int     `json:"level" jsonschema:"how loud" tool:"enum=0|1|2"`
	Ratio    float64 `json:"ratio,omitempty" tool:"enum=0.5|1.5"`
	Priority *int    `json:"priority,omitempty" tool:"enum=1|2|3"`
	Mode     string  `json:"mode" tool:"enum=fast|slow"`
	Flag     bool    `json:"flag" tool:"const=true"`
}

type trickyFormats struct {
	When     time.Time     `json:"when"`
	Day      string        `json:"day" tool:"format=date"`
	Site     string        `json:"site" tool:"format=uri"`
	Ref      string        `json:"ref,omitempty" tool:"format=uri-reference"`
	Mail     string        `json:"mail" tool:"format=email"`
	Host     string        `json:"host,omitempty" tool:"format=ipv4"`
	Every    time.Duration `json:"every"`
	Word     string        `json:"word" tool:"pattern=\\bgo\\b"`
	Bytes    []byte        `json:"bytes,omitempty"`
	Tags     []string      `json:"tags" tool:"minItems=2,maxItems=5,uniqueItems"`
	Password string        `json:"password" tool:"minLength=8,maxLength=64"`
}

type trickyKebab struct {
	UserID   string `json:"user-id"`
	FullName string `json:"full name,omitempty"`
	Dotted   string `json:"a.b,omitempty"`
	Digit    string `json:"2fa,omitempty"`
}

type trickyLevel struct {
	Next *trickyLevel2 `json:"next,omitempty"`
}

// The levels of trickyDeep: the root and 11 more objects.
type (
	trickyLevel2 struct {
		Next *trickyLevel3 `json:"next"`
	}
	trickyLevel3 struct {
		Next *trickyLevel4 `json:"next"`
	}
	trickyLevel4 struct {
		Next *trickyLevel5 `json:"next"`
	}
	trickyLevel5 struct {
		Next *trickyLevel6 `json:"next"`
	}
	trickyLevel6 struct {
		Next *trickyLevel7 `json:"next"`
	}
	trickyLevel7 struct {
		Next *trickyLevel8 `json:"next"`
	}
	trickyLevel8 struct {
		Next *trickyLevel9 `json:"next"`
	}
	trickyLevel9 struct {
		Next *trickyLevel10 `json:"next"`
	}
	trickyLevel10 struct {
		Next *trickyLevel11 `json:"next"`
	}
	trickyLevel11 struct {
		Next *trickyLevel12 `json:"next"`
	}
	trickyLevel12 struct {
		Leaf string `json:"leaf"`
	}
)

type trickyShared struct {
	Home    trickyAddress  `json:"home" jsonschema:"where they live"`
	Work    *trickyAddress `json:"work,omitempty" jsonschema:"where they work"`
	Parent  *trickyShared  `json:"parent,omitempty" jsonschema:"the parent record"`
	Aliases []string       `json:"aliases,omitempty"`
}

type trickyAddress struct {
	Street string `json:"street"`
}

type trickyEmpty struct{}

type trickyEmbedded struct {
	trickyAddress
	Options struct{} `json:"options"`
}

// manyFields returns a struct type of n fields, every other one optional.
func manyFields(n int) reflect.Type {
	fields := make([]reflect.StructField, n)
	for i := range fields {
		tag := fmt.Sprintf(`json:"field_%d"`, i)
		if i%2 == 1 {
			tag = fmt.Sprintf(`json:"field_%d,omitempty"`, i)
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)}
	}
	return reflect.StructOf(fields)
}

func trickySchemas(t *testing.T) map[string]*jsonschema.Schema {
	many, err := schema.ForType(manyFields(120), nil)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*jsonschema.Schema{
		"recursion":        mustSchema[trickyTree](t),
		"mutual_recursion": mustSchema[trickyA](t),
		"maps":             mustSchema[trickyMaps](t),
		"any":              mustSchema[trickyAny](t),
		"integer_enums":    mustSchema[trickyEnums](t),
		"formats":          mustSchema[trickyFormats](t),
		"kebab_names":      mustSchema[trickyKebab](t),
		"deep":             mustSchema[trickyLevel](t),
		"shared":           mustSchema[trickyShared](t),
		"empty":            mustSchema[trickyEmpty](t),
		"embedded":         mustSchema[trickyEmbedded](t),
		"many_fields":      many.Schema(),
		"ref_siblings":     schemaJSON(t, `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"an a","title":"A"},"b":{"type":"array","items":{"$ref":"#/$defs/A","description":"a b"}}},"required":["a"],"$defs":{"A":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}}}`),
		"user":             mustSchema[dialectUser](t),
		"schedule":         mustSchema[dialectSchedule](t),
		"kitchen":          mustSchema[dialectKitchen](t),
		"list":             mustSchema[dialectList](t),
	}
}

// TestPassNames checks that every pass has a name.
func TestPassNames(t *testing.T) {
	if got, want := (dialect.NoRefInAllOf | dialect.TypedValues).String(), "TypedValues|NoRefInAllOf"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (dialect.NoRefInAllOf << 1).String(); !strings.HasPrefix(got, "Pass(0x") {
		t.Errorf("String() of an unknown pass = %q", got)
	}
}

// TestProviderRules runs every dialect over the tricky inputs: each schema
// a dialect emits passes that provider's rules, as the checkers above
// restate them, or Check refuses the tool with an error that matches
// ErrRejected and names the field.
func TestProviderRules(t *testing.T) {
	for name, s := range trickySchemas(t) {
		for _, d := range dialect.Dialects() {
			t.Run(name+"/"+d.Name, func(t *testing.T) {
				out, _ := d.Convert(s)
				if err := d.Check(dialect.ToolSchema{Name: name, Schema: s}); err != nil {
					rerr, ok := errors.AsType[*dialect.RejectError](err)
					if !ok || !errors.Is(err, dialect.ErrRejected) || len(rerr.Problems) == 0 {
						t.Fatalf("Check = %v, want a *RejectError that matches ErrRejected", err)
					}
					for _, p := range rerr.Problems {
						if p.Fix == "" || p.Tool != name {
							t.Errorf("problem %v: want the tool's name and a fix", p)
						}
					}
					return
				}
				if out == nil {
					return // no parameters
				}
				if bad := ruleCheckers[d.Name](name, out); len(bad) > 0 {
					data, _ := json.Marshal(out)
					t.Errorf("%s emits a schema the provider rejects, with no error:\n%s\n%s", d.Name, strings.Join(bad, "\n"), data)
				}
			})
		}
	}
}
