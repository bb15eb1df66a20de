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
	"github.com/hands-go/hands/internal/schemadoc"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The bounds on a schema document, checked as it is read (Parse), before
// anything is built from it past them: compiling costs far more than
// linear time in a schema's nesting, and a schema may come from another
// program.
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

// schemaURL is the name the validator gives the tool's schema document.
const schemaURL = "hands:///input.json"

// A Document is a JSON Schema document, read once: held to
// MaxSchemaBytes and MaxSchemaDepth and decoded, in one pass linear in its
// size, into the forms every later step takes from it — the validator's,
// the tool spec's jsonschema.Schema with the document's order of
// properties, and the order of members that issues are listed in. New
// and NewValidator parse the document they are given; a program that
// looks at a document before it defines a tool from it (a proxy that
// checks it against another decoding, say) parses it once with Parse and
// passes the Document to NewFromDocument or Document.Validator. A
// Document is safe for concurrent use.
type Document struct {
	doc *schemadoc.Document
}

// Parse reads the JSON Schema document doc, which the Document keeps (it
// must not be changed after). It refuses a document larger than
// MaxSchemaBytes or nesting deeper than MaxSchemaDepth (a *BoundsError,
// ErrSchemaTooLarge or ErrSchemaTooDeep), found before anything is built
// from it past the bound, and one that is not valid JSON
// (ErrSchemaSyntax); whether it is a schema the validator compiles is for
// NewFromDocument and Document.Validator to say. It takes what
// encoding/json takes: text that is not UTF-8 within strings, and a name
// given twice in an object, whose last value counts.
func Parse(doc json.RawMessage) (*Document, error) {
	if len(doc) > MaxSchemaBytes {
		return nil, &BoundsError{Size: len(doc), Limit: MaxSchemaBytes, Err: ErrSchemaTooLarge}
	}
	d, err := schemadoc.Decode(doc, MaxSchemaDepth)
	switch {
	case errors.Is(err, schemadoc.ErrTooDeep):
		return nil, &BoundsError{Size: MaxSchemaDepth + 1, Limit: MaxSchemaDepth, Err: ErrSchemaTooDeep}
	case err != nil:
		// Not JSON where it stopped being read: the rest is held to the
		// bound on its nesting all the same, for a document too deep to
		// be one error, whatever else is wrong with it.
		if depth := jsondepth.Deepest(doc, MaxSchemaDepth); depth > MaxSchemaDepth {
			return nil, &BoundsError{Size: depth, Limit: MaxSchemaDepth, Err: ErrSchemaTooDeep}
		}
		return nil, fmt.Errorf("%w: %w", ErrSchemaSyntax, err)
	}
	return &Document{doc: d}, nil
}

// Bytes returns the document as written. It must not be changed.
func (d *Document) Bytes() json.RawMessage { return d.doc.Bytes() }

// Equal reports whether v is the document as encoding/json decodes it
// into an any: objects as map[string]any, arrays as []any, numbers as
// float64 (or json.Number, compared as written), strings, booleans and
// nil. A program that holds another decoding of the same bytes, such as
// an MCP SDK's, checks with it that both are of the same document, at a
// cost linear in its size and with no allocation.
func (d *Document) Equal(v any) bool { return d.doc.Equal(v) }

// Schema returns the document as a jsonschema.Schema, as jsonschema-go
// decodes it, with the PropertyOrder of each schema set to the order in
// which the document lists its properties; where an object names a
// keyword twice, the last value counts, as it does for the validator. A
// value jsonschema-go does not take where the document has it (a
// minLength beyond 32 bits, say) is ErrSchemaInvalid. Each call returns a
// schema of its own.
func (d *Document) Schema() (*jsonschema.Schema, error) {
	s, err := d.doc.Schema()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchemaInvalid, err)
	}
	return s, nil
}

// kindKeywords are the keywords of a root schema by which something other
// than its "type" can say what kind of value it describes: another schema
// ($ref and its dynamic kinds, the combinators, if) or the values it
// allows (enum, const). A root with none of them and no "type" constrains
// only an object's members, if anything.
var kindKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if", "enum", "const"}

// TypedObject returns the document with "type":"object" added at the
// front of its root, the rest of its bytes as written, when the root is
// an object that says nothing of the kind of value it describes: it has
// no "type", and none of the keywords by which another schema or a list
// of values decides it ($ref, $dynamicRef, $recursiveRef, allOf, anyOf,
// oneOf, not, if, enum, const), such as {"$schema": "..."} alone. Else it
// returns d. Such a root describes any value, and constrains an object's
// members if anything; the arguments of a tool are always an object, so
// the addition narrows nothing a call can do, and New takes the document
// it returns. MCP requires "type": "object" at the root of a tool's input
// schema. The document is not read again.
func (d *Document) TypedObject() *Document {
	typed := d.doc.TypedObject(kindKeywords)
	if typed == d.doc {
		return d
	}
	return &Document{doc: typed}
}

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
	doc, err := Parse(inputSchema)
	if err != nil {
		return nil, &tool.DefinitionError{Tool: name, Err: err}
	}
	return NewFromDocument(name, description, doc, run, opts...)
}

// NewFromDocument is New with its input schema parsed (Parse): it returns
// the same tool, or the same error but the bounds and syntax errors,
// which are Parse's.
func NewFromDocument(name, description string, inputSchema *Document, run func(ctx context.Context, args json.RawMessage) (any, error), opts ...tool.Option) (*tool.RawTool, error) {
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
	doc     any // the schema document, parsed
	// orders are the names of the document's properties objects, in its
	// order, by JSON Pointer: the document's tree is not kept, which holds
	// several times the memory of its value
	orders map[string][]string
	// patterns compiled the document's patterns, and tells a match it
	// cut off (patterns.cutOff)
	patterns *patterns
}

func compile(d *Document) (*compiled, tool.Spec, error) {
	var spec tool.Spec
	parsed := d.doc.Value()
	obj, ok := parsed.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, spec, fmt.Errorf(`%w ("type": "object"): a model calls tools with named arguments`, ErrNotObject)
	}
	c, err := compileParsed(parsed, d.doc)
	if err != nil {
		return nil, spec, err
	}
	model, err := d.Schema() // the document's order of properties is what a model reads
	if err != nil {
		return nil, spec, err
	}
	spec.InputSchema = model
	return c, spec, nil
}

// compileParsed compiles a parsed schema document, with no loader of other
// documents.
func compileParsed(parsed any, src *schemadoc.Document) (*compiled, error) {
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
	return &compiled{schema: s, printer: message.NewPrinter(language.English), doc: parsed, orders: src.MemberOrders("properties"), patterns: engine}, nil
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
	d, err := Parse(doc)
	if err != nil {
		return nil, err
	}
	return d.Validator()
}

// Validator compiles the document, as NewValidator does.
func (d *Document) Validator() (*Validator, error) {
	c, err := compileParsed(d.doc.Value(), d.doc)
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
