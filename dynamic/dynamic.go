package dynamic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/jsondepth"
	"github.com/hands-go/hands/internal/schemaorder"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The bounds on a schema document, checked in one pass over it before it
// is parsed or compiled: compiling costs far more than linear time in a
// schema's nesting, and a schema may come from another program.
const (
	// MaxSchemaBytes is the size of the largest schema document New and
	// NewValidator take.
	MaxSchemaBytes = 1 << 20
	// MaxSchemaDepth is how deep a schema document New and NewValidator
	// take may nest objects and arrays: 64 JSON levels are some 30 levels
	// of nested schemas, more than any tool's arguments need.
	MaxSchemaDepth = 64
)

var (
	// ErrSchemaTooLarge is matched by the error of a schema document
	// larger than MaxSchemaBytes.
	ErrSchemaTooLarge = errors.New("dynamic: the schema is too large")
	// ErrSchemaTooDeep is matched by the error of a schema document that
	// nests deeper than MaxSchemaDepth.
	ErrSchemaTooDeep = errors.New("dynamic: the schema nests too deep")
	// ErrSchemaSyntax is matched by the error of a schema document that is
	// not valid JSON.
	ErrSchemaSyntax = errors.New("dynamic: the schema is not valid JSON")
	// ErrSchemaInvalid is matched by the error of a schema document that is
	// JSON but not a JSON Schema the validator compiles: a keyword with a
	// value of the wrong kind, or a reference to another document (which
	// is never loaded: no files, no network).
	ErrSchemaInvalid = errors.New("dynamic: the schema does not compile")
	// ErrNotObject is matched by the error of New for a schema that does
	// not describe an object ("type": "object"): a model calls a tool with
	// named arguments.
	ErrNotObject = errors.New("dynamic: the input schema must describe an object")
)

// A BoundsError reports a schema document beyond MaxSchemaBytes or
// MaxSchemaDepth. Err is ErrSchemaTooLarge or ErrSchemaTooDeep.
type BoundsError struct {
	Size  int   // the document's size in bytes, or how deep it nests
	Limit int   // the bound it is over
	Err   error // ErrSchemaTooLarge or ErrSchemaTooDeep
}

// Error says which bound the document is over, and by how much.
func (e *BoundsError) Error() string {
	return fmt.Sprintf("%v: %d, over the bound of %d", e.Err, e.Size, e.Limit)
}

// Unwrap returns Err.
func (e *BoundsError) Unwrap() error { return e.Err }

// checkBounds holds doc to MaxSchemaBytes and MaxSchemaDepth, reading it
// once, without building anything. A document that is not valid JSON
// passes: the parser that follows says what is wrong with it.
func checkBounds(doc []byte) error {
	if len(doc) > MaxSchemaBytes {
		return &BoundsError{Size: len(doc), Limit: MaxSchemaBytes, Err: ErrSchemaTooLarge}
	}
	if d := jsondepth.Deepest(doc, MaxSchemaDepth); d > MaxSchemaDepth {
		return &BoundsError{Size: d, Limit: MaxSchemaDepth, Err: ErrSchemaTooDeep}
	}
	return nil
}

// schemaURL is the name the validator gives the tool's schema document.
const schemaURL = "hands:///input.json"

// New returns a tool named name whose arguments must satisfy the JSON Schema
// document inputSchema (draft 2020-12 unless the document's $schema says
// otherwise) and whose handler is run. The schema must describe an object,
// in at most MaxSchemaBytes nested at most MaxSchemaDepth deep (else the
// error matches ErrSchemaTooLarge or ErrSchemaTooDeep).
// New never panics: every mistake is a *tool.DefinitionError — a schema
// that is not valid JSON (ErrSchemaSyntax), not a valid schema or refers to
// other documents (ErrSchemaInvalid), not an object schema (ErrNotObject),
// and whatever tool.DefineRaw refuses (an invalid name, an empty
// description, a nil run, an option that does not apply).
// The tool's arguments are held to its limits (tool.WithLimits) and to
// JSON's syntax before the schema is checked.
func New(name, description string, inputSchema json.RawMessage, run func(ctx context.Context, args json.RawMessage) (any, error), opts ...tool.Option) (*tool.RawTool, error) {
	v, spec, err := compile(inputSchema)
	if err != nil {
		return nil, &tool.DefinitionError{Tool: name, Err: err}
	}
	spec.Name, spec.Description = name, description
	return tool.DefineRaw(spec, v.validate, run, opts...)
}

// A compiled schema, ready to validate arguments.
type compiled struct {
	schema  *validator.Schema
	printer *message.Printer
	doc     any    // the schema document, parsed
	raw     []byte // and as written, for the order of its properties
	// patterns compiled the document's patterns, and tells a match it
	// cut off (patterns.cutOff)
	patterns *patterns
	orderState
}

func compile(doc json.RawMessage) (*compiled, tool.Spec, error) {
	var spec tool.Spec
	if err := checkBounds(doc); err != nil {
		return nil, spec, err
	}
	parsed, err := parse(doc)
	if err != nil {
		return nil, spec, err
	}
	obj, ok := parsed.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, spec, fmt.Errorf(`%w ("type": "object"): a model calls tools with named arguments`, ErrNotObject)
	}
	c, err := compileParsed(parsed, doc)
	if err != nil {
		return nil, spec, err
	}
	var model jsonschema.Schema
	if err := schemaorder.Unmarshal(doc, &model); err != nil { // the document's order of properties is what a model reads
		return nil, spec, fmt.Errorf("%w: %w", ErrSchemaInvalid, err)
	}
	spec.InputSchema = &model
	return c, spec, nil
}

// parse reads a schema document as the validator's compiler takes it.
func parse(doc []byte) (any, error) {
	parsed, err := validator.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaSyntax, err)
	}
	return parsed, nil
}

// compileParsed compiles a parsed schema document, with no loader of other
// documents.
func compileParsed(parsed any, doc []byte) (*compiled, error) {
	c := validator.NewCompiler()
	engine := new(patterns)
	c.UseRegexpEngine(engine.compile)
	c.DefaultDraft(validator.Draft2020)
	c.AssertFormat()
	c.UseLoader(validator.SchemeURLLoader{}) // no files, no network
	if err := c.AddResource(schemaURL, parsed); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaInvalid, err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaInvalid, err)
	}
	return &compiled{schema: s, printer: message.NewPrinter(language.English), doc: parsed, raw: doc, patterns: engine}, nil
}

// A Validator checks JSON documents against a JSON Schema document, with
// the validator of dynamic tools: for what is not a tool's arguments, such
// as the structured output a server returns for its output schema.
type Validator struct{ c *compiled }

// NewValidator compiles the JSON Schema document doc (draft 2020-12 unless
// its $schema says otherwise). Like New, it refuses a document that is not
// valid JSON (ErrSchemaSyntax), not a valid schema or refers to other
// documents (ErrSchemaInvalid), or is beyond MaxSchemaBytes or
// MaxSchemaDepth.
func NewValidator(doc json.RawMessage) (*Validator, error) {
	if err := checkBounds(doc); err != nil {
		return nil, err
	}
	parsed, err := parse(doc)
	if err != nil {
		return nil, err
	}
	c, err := compileParsed(parsed, doc)
	if err != nil {
		return nil, err
	}
	return &Validator{c: c}, nil
}

// Validate checks data against the schema and reports every failure as a
// *schema.Error, each issue with its JSON Pointer path, in path order.
func (v *Validator) Validate(data json.RawMessage) error { return v.c.validate(data) }

// validate checks raw arguments and reports every failure as an issue with
// its path, in a *schema.Error.
func (c *compiled) validate(args json.RawMessage) error {
	inst, err := validator.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &schema.Error{Issues: []schema.Issue{{Keyword: schema.KeywordSyntax, Message: "invalid JSON: " + strings.TrimPrefix(err.Error(), "jsonschema: ")}}, Err: schema.ErrInvalidDocument}
	}
	err = c.schema.Validate(inst)
	if err == nil {
		return nil
	}
	verr, ok := errors.AsType[*validator.ValidationError](err)
	if !ok {
		return err
	}
	var issues []schema.Issue
	c.collect(verr, inst, &issues)
	slices.SortStableFunc(issues, func(a, b schema.Issue) int { return strings.Compare(a.Path, b.Path) })
	return &schema.Error{Issues: slices.Compact(issues), Err: schema.ErrInvalidDocument}
}

// collect gathers the leaves of the validator's error tree, which are the
// failures themselves; the inner nodes only say where they were found.
func (c *compiled) collect(e *validator.ValidationError, inst any, issues *[]schema.Issue) {
	if len(e.Causes) > 0 {
		for _, cause := range e.Causes {
			c.collect(cause, inst, issues)
		}
		return
	}
	*issues = append(*issues, c.issuesOf(e, inst)...)
}

// pointer renders an instance location as a JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// shorten keeps a message from repeating a large value.
func shorten(msg string) string {
	const limit = 200
	if len(msg) <= limit {
		return msg
	}
	cut := limit
	for cut > 0 && msg[cut]&0xC0 == 0x80 {
		cut--
	}
	return msg[:cut] + "…"
}
