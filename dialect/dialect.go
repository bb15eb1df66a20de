package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Dialect is the subset of JSON Schema one provider accepts, with its
// limits, written as data: rules for names, a table of keywords, the
// formats kept, and the passes that rewrite a schema for the provider. The
// predefined dialects carry the rules and limits each provider documents.
// To describe another provider, or a server with limits of its own, take a
// copy of a predefined one and change the fields:
//
//	d := dialect.OpenAIStrict()
//	d.Name = "local"
//	d.MaxDepth = 5
//	d.Keywords["minLength"] = dialect.Keep
//	out, problems := d.ConvertJSON(v.Schema())
//
// A limit of zero is not checked. The zero Dialect takes any schema as it
// is, and any name that is not empty.
//
// A Dialect is safe for concurrent use as long as its fields are not changed.
type Dialect struct {
	// Name identifies the dialect in problems: "mcp", "openai-strict",
	// "anthropic", "anthropic-strict", "gemini" or "gemini-json-schema"
	// for the predefined ones.
	Name string
	// Provider names the provider in messages, such as "OpenAI strict
	// mode". If empty, Name is used.
	Provider string

	// ToolNames is the rule for tool names.
	ToolNames NameRule
	// PropertyNames is the rule for the names of object properties. The
	// zero rule accepts every name.
	PropertyNames NameRule

	// NotAtRoot lists the keywords the provider rejects at the root of a
	// tool's schema, such as anyOf. The root must always be an object
	// schema.
	NotAtRoot []string
	// Keywords says what becomes of each keyword the passes do not
	// rewrite: it is kept, folded into the description, or dropped; a
	// keyword not listed, or listed as Reject, is left out and reported as
	// an error. The walk always handles $ref, $defs, properties, required,
	// items, anyOf, type, enum, const and format itself, and
	// additionalProperties false. A nil table means the provider takes
	// draft 2020-12 as it is: Convert copies the schema unchanged and
	// checks only the root, the names and the limits.
	Keywords map[string]Action
	// Formats lists the formats kept as keywords; the others are folded
	// into the description. Nil keeps every format.
	Formats []string
	// Passes are the rewrites and checks Convert applies, beyond the
	// keyword table; see Pass.
	Passes Pass

	// Examples says what becomes of a tool's examples, the whole
	// arguments of calls that show the model how to call it
	// (tool.Spec.Examples; see ConvertExamples): Keep sends them as they
	// are, in the provider's own place for them (the root "examples" of
	// an MCP tool's input schema, Anthropic's input_examples); Fold
	// writes them at the end of the tool's description; Drop leaves
	// them out. Reject, the zero value, refuses a tool that has examples,
	// as the table refuses a keyword it does not list; but a dialect
	// without a keyword table, which takes draft 2020-12 as it is, keeps
	// them. The keyword table's "examples" is another thing: the
	// examples of one value, inside the schema.
	Examples Action
	// MaxFoldedExamples is how many bytes of examples Fold writes into a
	// description: the first examples that fit, whole. Zero writes them
	// all.
	MaxFoldedExamples int

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
	// Features are what the provider takes per tool or per request beyond
	// the schema (see Feature); Check refuses a tool that needs one it
	// lacks. Zero takes none.
	Features Feature

	// RecursionDepth is, with the pass InlineRefs, how many times a
	// recursive type is written out inline inside itself before the
	// recursion is cut; zero cuts it at the first repetition. A recursive
	// type is always reported as an error under InlineRefs.
	RecursionDepth int
}

// A NameRule says which names a provider accepts. The zero NameRule
// accepts every name that is not empty.
type NameRule struct {
	// MaxLength is the longest name, in bytes; zero is no limit.
	MaxLength int
	// Chars lists the characters a name may hold besides the ASCII letters
	// and digits, such as "_-". If empty, any character is accepted.
	Chars string
	// LetterFirst requires the name to start with an ASCII letter or '_'.
	LetterFirst bool
}

// check returns what is wrong with name, as the end of a sentence that
// starts "the name", or "".
func (r NameRule) check(name, provider string) string {
	if name == "" {
		return "is empty"
	}
	if r.MaxLength > 0 && len(name) > r.MaxLength {
		return fmt.Sprintf("is %d characters long; %s accepts at most %d", len(name), provider, r.MaxLength)
	}
	if r.Chars != "" {
		for i := 0; i < len(name); i++ {
			c := name[i]
			if nameLetter(c) || '0' <= c && c <= '9' || strings.IndexByte(r.Chars, c) >= 0 {
				continue
			}
			r0, _ := utf8.DecodeRuneInString(name[i:])
			return fmt.Sprintf("holds %q; %s accepts only ASCII %s", string(r0), provider, r.allowed())
		}
	}
	if r.LetterFirst && !(nameLetter(name[0]) || name[0] == '_') {
		return "must start with a letter or '_' for " + provider
	}
	return ""
}

// allowed lists the characters of the rule: "letters, digits, '_' and '-'".
func (r NameRule) allowed() string {
	parts := []string{"letters", "digits"}
	for i := 0; i < len(r.Chars); i++ {
		parts = append(parts, "'"+r.Chars[i:i+1]+"'")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// An Action says what a dialect does with a keyword: keep it, fold it into
// the description, drop it silently (an annotation of no use to a model),
// or reject it (an error; the keyword is left out).
type Action int

// The actions of a keyword table.
const (
	Reject Action = iota // what is not listed is rejected
	Keep
	Fold
	Drop
)

// String returns "reject", "keep", "fold" or "drop".
func (a Action) String() string {
	switch a {
	case Reject:
		return "reject"
	case Keep:
		return "keep"
	case Fold:
		return "fold"
	case Drop:
		return "drop"
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Clone returns a copy of d that shares nothing with it, so that its table,
// formats and lists can be changed.
func (d *Dialect) Clone() *Dialect {
	c := *d
	c.NotAtRoot = slices.Clone(d.NotAtRoot)
	c.Keywords = maps.Clone(d.Keywords)
	c.Formats = slices.Clone(d.Formats)
	return &c
}

func (d *Dialect) provider() string {
	if d.Provider != "" {
		return d.Provider
	}
	if d.Name != "" {
		return d.Name
	}
	return "the provider"
}

// Dialects returns new copies of the predefined dialects: MCP,
// OpenAIStrict, Anthropic, AnthropicStrict, Gemini and GeminiJSONSchema, in
// that order.
func Dialects() []*Dialect {
	return []*Dialect{MCP(), OpenAIStrict(), Anthropic(), AnthropicStrict(), Gemini(), GeminiJSONSchema()}
}

// Named returns a new copy of the predefined dialect with the given name.
func Named(name string) (*Dialect, bool) {
	for _, d := range []*Dialect{mcp, openAIStrict, anthropic, anthropicStrict, gemini, geminiJSONSchema} {
		if d.Name == name {
			return d.Clone(), true
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
	// dialect cannot express at all: the converted schema leaves it out,
	// and Check refuses the tool.
	SeverityError
	// SeverityWarning reports a schema the provider takes but that tells
	// the model too little: a property of a type that reads and writes its
	// own JSON with no JSONSchema method, which accepts any JSON value
	// (Lint reports it), or a description a dialect drops beside a $ref
	// (Convert reports it).
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
	Keyword  string   // the keyword concerned, such as "minLength"; "name" for a tool name, "features" for a Feature a tool needs, "tools" for a whole request
	Severity Severity // SeverityError, SeverityFolded or SeverityWarning
	Message  string   // for people; never match on it
	Fix      string   // for an error, what the tool's author can do about it; for people
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
	if p.Keyword != "name" && p.Keyword != "tools" && p.Keyword != "features" {
		if p.Path == "" {
			b.WriteString(" at the root")
		} else {
			b.WriteString(" at " + p.Path)
		}
	}
	b.WriteString(": " + p.Message)
	if p.Fix != "" {
		b.WriteString("; to fix, " + p.Fix)
	}
	return b.String()
}

// ErrRejected matches the error of Check: a tool the provider would
// reject, or that the dialect cannot express.
var ErrRejected = errors.New("dialect: rejected")

// A RejectError lists the errors of the tools a dialect refuses. It
// matches each Problem with errors.As.
type RejectError struct {
	Dialect  string    // the dialect's Name
	Problems []Problem // every problem of SeverityError, in the order Lint found them
	Err      error     // ErrRejected
}

// Error names the dialect and lists the problems, one a line.
func (e *RejectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dialect: %s: the provider would reject the tools or lose part of them (%d errors):", e.Dialect, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n\t" + p.String())
	}
	return b.String()
}

// Unwrap returns Err and the problems.
func (e *RejectError) Unwrap() []error {
	errs := make([]error, 0, 1+len(e.Problems))
	errs = append(errs, e.Err)
	for _, p := range e.Problems {
		errs = append(errs, p)
	}
	return errs
}

// Check returns nil if the provider can be sent tools as the dialect
// converts them, together in one request, and otherwise a *RejectError
// with every error LintTools reports. A provider adapter calls it before
// it sends a request, so that no tool goes out with part of it left out
// or in a form the provider rejects.
func (d *Dialect) Check(tools ...ToolSchema) error {
	var errs []Problem
	for _, p := range d.LintTools(tools...) {
		if p.Severity == SeverityError {
			errs = append(errs, p)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &RejectError{Dialect: d.Name, Problems: errs, Err: ErrRejected}
}

// Error returns the same text as String.
func (p Problem) Error() string { return p.String() }

// CheckName reports whether name is a tool name the dialect accepts. The
// error is a Problem with Keyword "name".
func (d *Dialect) CheckName(name string) error {
	if msg := d.ToolNames.check(name, d.provider()); msg != "" {
		return Problem{Dialect: d.Name, Tool: name, Keyword: "name", Severity: SeverityError, Message: "the tool name " + msg, Fix: fixToolName}
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

// The $comment package schema writes on the schema of a type that reads
// and writes its own JSON and has no JSONSchema method is opaquePrefix, the
// type, opaqueSuffix; Lint warns of it. Package schema has its own copy of
// the two strings, and TestLintOpaque keeps them the same.
const (
	opaquePrefix = "hands: "
	opaqueSuffix = " reads and writes its own JSON and has no JSONSchema method, so any JSON value is accepted here"
)

// A ToolSchema is what LintTools needs of a tool: its name, its input
// schema, its examples, and the features its request asks of the provider
// for it.
type ToolSchema struct {
	Name     string             // the tool's name
	Schema   *jsonschema.Schema // the tool's input schema
	Examples []json.RawMessage  // whole arguments of calls (tool.Spec.Examples); nil when it has none
	// Features are what the request asks of the provider for the tool,
	// such as DeferLoading|ToolSearch for a tool deferred behind the
	// provider's search; LintTools reports each one Dialect.Features lacks
	// as an error.
	Features Feature
}

// LintTools lints tools that are sent together in one request: the
// problems of each (as Lint returns them, then those of its examples, as
// ConvertExamples reports them, and an error for the features it needs
// that the dialect lacks), then those of the request as a whole: more
// tools than MaxTools, and more optional or union-typed
// properties in all than MaxOptionalProperties and MaxUnionProperties.
// The request's problems have no Tool and the Keyword "tools".
func (d *Dialect) LintTools(tools ...ToolSchema) []Problem {
	var problems []Problem
	var optional, unions int
	for _, t := range tools {
		problems = append(problems, d.Lint(t.Name, t.Schema)...)
		_, _, exampleProblems := d.ConvertExamples(t.Name, "", t.Examples)
		problems = append(problems, exampleProblems...)
		problems = append(problems, d.lintFeatures(t.Name, t.Features)...)
		if root, err := parseSchemaValue(t.Schema); err == nil {
			o, u := countOptionalAndUnions(root)
			optional += o
			unions += u
		}
	}
	request := func(format string, args ...any) {
		problems = append(problems, Problem{Dialect: d.Name, Keyword: "tools", Severity: SeverityError, Message: fmt.Sprintf(format, args...), Fix: fixRequest})
	}
	if d.MaxTools > 0 && len(tools) > d.MaxTools {
		request("%d tools in one request; %s accepts at most %d", len(tools), d.provider(), d.MaxTools)
	}
	if len(tools) > 1 {
		if d.MaxOptionalProperties > 0 && optional > d.MaxOptionalProperties {
			request("the tools have %d optional properties in all; %s accepts at most %d per request", optional, d.provider(), d.MaxOptionalProperties)
		}
		if d.MaxUnionProperties > 0 && unions > d.MaxUnionProperties {
			request("the tools have %d properties with a union type in all; %s accepts at most %d per request", unions, d.provider(), d.MaxUnionProperties)
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

func nameLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
