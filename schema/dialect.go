package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Dialect is the subset of JSON Schema one provider accepts, with its
// limits. The predefined dialects carry the rules and limits each provider
// documents; to change a limit, copy one and set the field:
//
//	d := *schema.OpenAIStrict
//	d.MaxDepth = 5
//	out, problems := d.Convert(v.Schema())
//
// A limit of zero is not checked. The zero Dialect behaves as [MCP].
//
// A Dialect is safe for concurrent use as long as its fields are not changed.
type Dialect struct {
	// Name identifies the dialect in problems: "mcp", "openai-strict",
	// "anthropic", "anthropic-strict", "gemini" or "gemini-json-schema"
	// for the predefined ones.
	Name string

	// MaxNameLength is the longest tool name the provider accepts, in
	// characters.
	MaxNameLength int
	// MaxTools is how many tools one request may carry. LintTools checks
	// it, over every tool it is given.
	MaxTools int
	// MaxProperties is how many object properties one schema may have,
	// counted in every object of the schema, definitions included.
	MaxProperties int
	// MaxDepth is how deeply objects may nest; the root object is level 1.
	// Nesting through a $ref counts; the recursion of a recursive type does
	// not.
	MaxDepth int
	// MaxEnumValues is how many enum values one schema may have, counted in
	// every enum of the schema.
	MaxEnumValues int
	// MaxEnumStringLength is the longest total length of the values of one
	// enum of strings that has more than LargeEnum values.
	MaxEnumStringLength int
	// LargeEnum is the number of values above which MaxEnumStringLength
	// applies to an enum; zero applies it to every enum of strings.
	LargeEnum int
	// MaxStringLength is the longest total length of the property names,
	// definition names, enum values and const values of one schema.
	MaxStringLength int
	// MaxOptionalProperties is how many properties may be optional (not
	// listed in required), counted in every object. Lint checks one
	// schema; LintTools checks the total over every tool it is given.
	MaxOptionalProperties int
	// MaxUnionProperties is how many properties may have a union schema
	// (anyOf, or a list of types such as ["string", "null"]), counted like
	// MaxOptionalProperties.
	MaxUnionProperties int
	// RecursionDepth is, for a dialect without $ref (Gemini), how many
	// times a recursive type is written out inline inside itself before
	// the recursion is cut; zero cuts it at the first repetition. A
	// recursive type is always reported as an error for such a dialect.
	RecursionDepth int

	rules *dialectRules
}

// The predefined dialects. Each comment names the documentation its rules
// and default limits follow, as published in 2026.
var (
	// MCP is the Model Context Protocol: draft 2020-12 as it is. The root
	// must be an object schema; tool names have 1 to 128 ASCII letters,
	// digits, '_', '-' and '.'.
	// Source: https://modelcontextprotocol.io/specification/2025-11-25/server/tools
	// (Tool names; inputSchema).
	MCP = &Dialect{Name: "mcp", MaxNameLength: 128, rules: mcpRules}

	// OpenAIStrict is OpenAI function calling with "strict": true
	// (Structured Outputs). Every property is required, optional ones
	// accept null instead; every object has additionalProperties false;
	// only the listed keywords and formats remain, and the others are
	// folded into the description; oneOf becomes anyOf, and a $ref with
	// sibling keywords is wrapped in a one-branch anyOf. Maps, values of
	// any type, allOf, not, if/then/else, dependentSchemas and
	// patternProperties cannot be expressed.
	// Sources: https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas
	// (supported types and properties, limits: 5000 properties, 10 levels,
	// 1000 enum values, 15,000 characters for an enum of more than 250
	// strings, 120,000 characters in all); the function name rule
	// (^[a-zA-Z0-9_-]{1,64}$) and the limit of 128 functions per request
	// from the Chat Completions API reference; openai/openai-node#1988
	// (July 2026) for default, minLength and maxLength being rejected.
	OpenAIStrict = &Dialect{
		Name:                "openai-strict",
		MaxNameLength:       64,
		MaxTools:            128,
		MaxProperties:       5000,
		MaxDepth:            10,
		MaxEnumValues:       1000,
		MaxEnumStringLength: 15000,
		LargeEnum:           250,
		MaxStringLength:     120000,
		rules:               openAIStrictRules,
	}

	// Anthropic is the Claude Messages API without strict tool use: any
	// draft 2020-12 input_schema whose root is an object and has no anyOf,
	// oneOf or allOf at the top level. Names match ^[a-zA-Z0-9_-]{1,128}$.
	// Source: https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools.
	Anthropic = &Dialect{Name: "anthropic", MaxNameLength: 128, rules: anthropicRules}

	// AnthropicStrict is Claude's strict tool use ("strict": true): the
	// keywords structured outputs support are kept (oneOf becomes anyOf,
	// additionalProperties is false, const, default, the listed formats,
	// patterns without backreferences, look-arounds or word boundaries,
	// minItems of 0 or 1, larger ones written as 1), every other
	// constraint is folded into the description, and a recursive type is
	// rejected: the reference that closes the cycle is left out. Limits:
	// 20 strict tools, 24 optional and 16 union-typed properties per
	// request.
	// Source: https://platform.claude.com/docs/en/build-with-claude/structured-outputs
	// (JSON Schema limitations; complexity limits), and
	// anthropic-sdk-python's lib/_parse/_transform.py for the folding.
	AnthropicStrict = &Dialect{
		Name:                  "anthropic-strict",
		MaxNameLength:         128,
		MaxTools:              20,
		MaxOptionalProperties: 24,
		MaxUnionProperties:    16,
		rules:                 anthropicStrictRules,
	}

	// Gemini is a Gemini FunctionDeclaration's parameters: the OpenAPI 3.0
	// subset of its Schema object. One upper-case type and nullable: true
	// instead of type lists, enums of strings (numeric ones written as
	// strings with format "enum"), no $ref (definitions are written out
	// inline; a recursive type cannot be), no additionalProperties (maps
	// cannot be expressed), const as a one-value enum, oneOf as anyOf; no
	// allOf or not. exclusiveMinimum, exclusiveMaximum, multipleOf,
	// uniqueItems, default and examples are folded. A tool without
	// arguments has no parameters: Convert returns nil for an object
	// schema without properties. Names have 1 to 128 letters,
	// digits, '_', '.', ':' and '-', starting with a letter or '_';
	// property names start with a letter or '_' and hold up to 64
	// letters, digits and '_'.
	// Sources: https://ai.google.dev/api/caching#FunctionDeclaration and
	// #Schema; the Vertex AI FunctionDeclaration reference for the rules
	// on property names and on the first character of a name.
	Gemini = &Dialect{Name: "gemini", MaxNameLength: 128, RecursionDepth: 2, rules: geminiRules}

	// GeminiJSONSchema is a Gemini FunctionDeclaration's
	// parametersJsonSchema: JSON Schema limited to $defs, $ref, $anchor,
	// type, format, title, description, enum (strings and numbers),
	// items, prefixItems, minItems, maxItems, minimum, maximum, anyOf,
	// oneOf, properties, additionalProperties, required and
	// propertyOrdering; other constraints are folded. A $ref has no
	// sibling keywords, and a recursive type must recur through an
	// optional property. Names as for Gemini.
	// Source: https://ai.google.dev/api/caching#FunctionDeclaration
	// (parametersJsonSchema) and the list of supported keywords documented
	// for GenerationConfig.responseJsonSchema, which parametersJsonSchema's
	// documentation does not repeat.
	GeminiJSONSchema = &Dialect{Name: "gemini-json-schema", MaxNameLength: 128, rules: geminiJSONRules}
)

// Dialects returns the predefined dialects: MCP, OpenAIStrict, Anthropic,
// AnthropicStrict, Gemini and GeminiJSONSchema, in that order.
func Dialects() []*Dialect {
	return []*Dialect{MCP, OpenAIStrict, Anthropic, AnthropicStrict, Gemini, GeminiJSONSchema}
}

// DialectNamed returns the predefined dialect with the given name.
func DialectNamed(name string) (*Dialect, bool) {
	for _, d := range Dialects() {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Severity says how much of a schema a dialect loses.
type Severity int

const (
	// SeverityFolded reports a constraint the dialect cannot carry as a
	// keyword, which is written into the description instead. The
	// validator still enforces it when the call arrives.
	SeverityFolded Severity = iota + 1
	// SeverityError reports what the provider would reject, or what the
	// dialect cannot express at all: the converted schema leaves it out.
	SeverityError
	// SeverityWarning reports a schema that every provider takes as it is
	// but that tells the model too little, such as a property of a type that
	// reads and writes its own JSON with no JSONSchema method, which accepts
	// any JSON value. Lint reports warnings; Convert never does.
	SeverityWarning
)

// String returns "folded", "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityFolded:
		return "folded"
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// A Problem is one thing a dialect cannot take as it is. A Problem is also
// an error, so a list of them can be joined with errors.Join.
type Problem struct {
	Dialect  string   // the dialect's Name
	Tool     string   // the tool's name, when the problem came from Lint
	Path     string   // JSON Pointer into the schema given, such as "/properties/tags"; "" is the root
	Keyword  string   // the keyword concerned, such as "minLength"; "name" for a tool name, "tools" for a whole request
	Severity Severity // SeverityError, SeverityFolded or SeverityWarning
	Message  string   // for people; never match on it
}

// String describes the problem on one line.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Severity.String())
	if p.Dialect != "" {
		b.WriteString(" [" + p.Dialect + "]")
	}
	if p.Tool != "" {
		b.WriteString(" tool " + p.Tool)
	}
	if p.Keyword != "name" && p.Keyword != "tools" {
		if p.Path == "" {
			b.WriteString(" at the root")
		} else {
			b.WriteString(" at " + p.Path)
		}
	}
	b.WriteString(": " + p.Message)
	return b.String()
}

// Error returns the same text as String.
func (p Problem) Error() string { return p.String() }

func (d *Dialect) rulesOrDefault() *dialectRules {
	if d.rules == nil {
		return mcpRules
	}
	return d.rules
}

// CheckName reports whether name is a tool name the dialect accepts. The
// error is a Problem with Keyword "name".
func (d *Dialect) CheckName(name string) error {
	r := d.rulesOrDefault()
	fail := func(format string, args ...any) error {
		return Problem{Dialect: d.Name, Tool: name, Keyword: "name", Severity: SeverityError, Message: fmt.Sprintf(format, args...)}
	}
	if name == "" {
		return fail("the tool name is empty")
	}
	if n := len(name); d.MaxNameLength > 0 && n > d.MaxNameLength {
		return fail("the tool name is %d characters long; %s accepts at most %d", n, r.provider, d.MaxNameLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if nameLetter(c) || '0' <= c && c <= '9' || c == '_' || c == '-' || strings.IndexByte(r.nameChars, c) >= 0 {
			continue
		}
		allowed := "letters, digits, '_' and '-'"
		if r.nameChars != "" {
			allowed = "letters, digits, '_', '-'"
			for j := 0; j < len(r.nameChars); j++ {
				allowed += ", '" + r.nameChars[j:j+1] + "'"
			}
		}
		r0, _ := utf8.DecodeRuneInString(name[i:])
		return fail("the tool name holds %q; %s accepts only ASCII %s", string(r0), r.provider, allowed)
	}
	if r.nameStart && !(nameLetter(name[0]) || name[0] == '_') {
		return fail("the tool name must start with a letter or '_' for %s", r.provider)
	}
	return nil
}

// Convert returns the schema written for the dialect, as a JSON object,
// and the problems met on the way. Convert never changes s.
//
// The result keeps what the dialect can carry. Constraints it cannot carry
// as keywords are folded into the description of their property ("login
// name (3–20 characters; pattern ^[a-z]+$)"), each reported as a
// SeverityFolded problem; what it cannot express at all (a map or a value
// of any type for OpenAI's strict mode, a recursive type for Gemini) is
// left out and reported as a SeverityError problem, so that the result is
// still a schema the provider accepts.
//
// For Gemini, Convert returns nil when the schema is an object without
// properties: a FunctionDeclaration for a tool without arguments has no
// parameters.
//
// Numbers are float64, as encoding/json decodes them; the map loses the
// order of the properties, which ConvertJSON keeps.
func (d *Dialect) Convert(s *jsonschema.Schema) (map[string]any, []Problem) {
	out, problems := d.convert(s)
	if out == nil {
		return nil, problems
	}
	m, _ := plainJSON(out).(map[string]any)
	return m, problems
}

// ConvertJSON is Convert returning the converted schema as JSON, with the
// properties in their original order (OpenAI and Gemini generate
// arguments in the order of the keys) and numbers as they were written.
// It returns nil where Convert returns nil.
func (d *Dialect) ConvertJSON(s *jsonschema.Schema) (json.RawMessage, []Problem) {
	out, problems := d.convert(s)
	if out == nil {
		return nil, problems
	}
	data, err := appendOrdJSON(nil, out)
	if err != nil {
		return nil, append(problems, Problem{Dialect: d.Name, Severity: SeverityError, Message: "the converted schema has no JSON encoding: " + err.Error()})
	}
	return data, problems
}

// Lint returns the problems of a tool under the dialect: its name's, then
// its schema's (those Convert reports), then a SeverityWarning for each
// property whose type reads and writes its own JSON with no JSONSchema
// method, all with Tool set.
func (d *Dialect) Lint(toolName string, s *jsonschema.Schema) []Problem {
	var problems []Problem
	if err := d.CheckName(toolName); err != nil {
		problems = append(problems, err.(Problem))
	}
	_, schemaProblems := d.convert(s)
	for _, p := range schemaProblems {
		p.Tool = toolName
		problems = append(problems, p)
	}
	if root, err := parseSchemaValue(s); err == nil {
		if o, ok := root.(*ordObject); ok {
			walkSchemas(o, "", func(o *ordObject, path string) {
				comment, _ := o.vals["$comment"].(string)
				rest, prefixed := strings.CutPrefix(comment, opaquePrefix)
				typ, suffixed := strings.CutSuffix(rest, opaqueSuffix)
				if !prefixed || !suffixed {
					return
				}
				problems = append(problems, Problem{Dialect: d.Name, Tool: toolName, Path: path, Keyword: "type", Severity: SeverityWarning,
					Message: "the model is told nothing about this value, and any JSON value is accepted: " + typ + " reads and writes its own JSON (UnmarshalJSON with MarshalJSON or MarshalText); give " + typ + " a JSONSchema() *jsonschema.Schema method that says what it reads"})
			})
		}
	}
	return problems
}

// A ToolSchema is what LintTools needs of a tool: its name and its input
// schema.
type ToolSchema struct {
	Name   string             // the tool's name
	Schema *jsonschema.Schema // the tool's input schema
}

// LintTools lints tools that are sent together in one request: the
// problems of each (as Lint returns them), then those of the request as a
// whole: more tools than MaxTools, and more optional or union-typed
// properties in all than MaxOptionalProperties and MaxUnionProperties.
// The request's problems have no Tool and the Keyword "tools".
func (d *Dialect) LintTools(tools ...ToolSchema) []Problem {
	var problems []Problem
	var optional, unions int
	for _, t := range tools {
		problems = append(problems, d.Lint(t.Name, t.Schema)...)
		if root, err := parseSchemaValue(t.Schema); err == nil {
			o, u := countOptionalAndUnions(root)
			optional += o
			unions += u
		}
	}
	r := d.rulesOrDefault()
	request := func(format string, args ...any) {
		problems = append(problems, Problem{Dialect: d.Name, Keyword: "tools", Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
	}
	if d.MaxTools > 0 && len(tools) > d.MaxTools {
		request("%d tools in one request; %s accepts at most %d", len(tools), r.provider, d.MaxTools)
	}
	if len(tools) > 1 {
		if d.MaxOptionalProperties > 0 && optional > d.MaxOptionalProperties {
			request("the tools have %d optional properties in all; %s accepts at most %d per request", optional, r.provider, d.MaxOptionalProperties)
		}
		if d.MaxUnionProperties > 0 && unions > d.MaxUnionProperties {
			request("the tools have %d properties with a union type in all; %s accepts at most %d per request", unions, r.provider, d.MaxUnionProperties)
		}
	}
	return problems
}

// parseSchemaValue returns s as ordered JSON values: a *ordObject, or a
// bool for the schemas true and false.
func parseSchemaValue(s *jsonschema.Schema) (any, error) {
	if s == nil {
		return nil, fmt.Errorf("the schema is nil")
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return parseOrdJSON(data)
}
