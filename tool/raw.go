package tool

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/schema"
)

// A RawTool is a tool over raw JSON: its schema is given rather than derived
// from a Go type (loaded from configuration, or proxied from another
// system), and its handler takes the arguments as they came, once they pass
// the tool's limits, JSON's syntax and the tool's validator. It behaves like
// a Tool everywhere else: in a Registry, under middleware, and in its
// results. A RawTool is safe for concurrent use.
type RawTool struct {
	core
	input    *jsonschema.Schema
	output   *jsonschema.Schema
	validate func(args json.RawMessage) error
	handler  func(ctx context.Context, args json.RawMessage) (any, error)
	// resolved is output compiled, for checking a structured output
	// cut to a budget; compiled on the first cut.
	resolved func() (*jsonschema.Resolved, error)
}

// NewRaw returns a tool with the name, description and schemas of spec, that
// checks each call's arguments and then runs handler. The arguments are
// first held to the tool's Limits (WithLimits) and to JSON's syntax, as
// strictly as a Tool's, and must be an object; then validate, if not nil,
// checks them against the schema and reports problems as a *schema.Error
// (which becomes a *ValidationError, cut to the issue limit) or any other
// error. handler's output reaches the model as text when it is a string, as
// it is when it is a json.RawMessage, and as JSON otherwise; when spec has
// an output schema, an output that is not a string is also the result's
// Structured output. A handler that knows its whole answer (a proxy of
// another system's tool, say) returns a Result: its Content, Parts,
// Structured and Output are the call's, as they are, its Repairs follow
// those the tool made (the other system's own, such as a RepairMigrated
// of a call it upgraded), and its other fields are the tool's to set — a
// handler reports a failure by returning an error.
//
// NewRaw panics with a *DefinitionError on a mistake in the definition: an
// invalid name, an empty description, a nil handler, an input schema that
// is not an object schema, or an option that does not apply to a raw tool.
// DefineRaw returns the error instead. Package dynamic builds RawTools from
// JSON Schema documents with a complete validator.
func NewRaw(spec Spec, validate func(args json.RawMessage) error, handler func(ctx context.Context, args json.RawMessage) (any, error), opts ...Option) *RawTool {
	t, err := DefineRaw(spec, validate, handler, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// DefineRaw is NewRaw that returns the *DefinitionError rather than
// panicking.
func DefineRaw(spec Spec, validate func(args json.RawMessage) error, handler func(ctx context.Context, args json.RawMessage) (any, error), opts ...Option) (*RawTool, error) {
	c, cfg, err := newCore(spec.Name, spec.Description, nil, opts)
	if err != nil {
		return nil, err
	}
	if c.title == "" {
		c.title = spec.Title
	}
	if c.annotations == nil && spec.Annotations != nil {
		a := *spec.Annotations
		c.annotations = &a
	}
	c.deferred = c.deferred || spec.DeferLoading
	if handler == nil {
		return nil, &DefinitionError{Tool: spec.Name, Err: errors.New("the handler is nil")}
	}
	if spec.InputSchema == nil || (spec.InputSchema.Type != "object" && spec.InputSchema.Ref == "") {
		return nil, &DefinitionError{Tool: spec.Name, Err: errors.New("the input schema must be an object schema (type: object)")}
	}
	c.fields = deprecatedFields(spec.InputSchema)
	t := &RawTool{core: c, input: spec.InputSchema.CloneSchemas(), validate: validate, handler: handler}
	if spec.OutputSchema != nil {
		t.output = spec.OutputSchema.CloneSchemas()
		output := t.output.CloneSchemas() // Resolve keeps it: unshared
		t.resolved = sync.OnceValues(func() (*jsonschema.Resolved, error) { return output.Resolve(nil) })
	}
	if t.examples, err = checkExamples(cfg.examples, nil, t.validExample); err != nil {
		return nil, &DefinitionError{Tool: spec.Name, Err: err}
	}
	return t, nil
}

// Spec returns what a model is shown of the tool. The schemas are new copies
// that the caller may change.
func (t *RawTool) Spec() Spec {
	s := Spec{Name: t.name, Title: t.title, Description: t.describe(), InputSchema: t.input.CloneSchemas(), Annotations: t.copyAnnotations(), Deprecation: t.copyDeprecation(), Version: t.version, MigratesFrom: t.migratesFrom(), TaskSupport: t.tasks, DeferLoading: t.deferred, Examples: t.copyExamples()}
	if t.output != nil {
		s.OutputSchema = t.output.CloneSchemas()
	}
	return s
}

// Stream runs a call and returns a single-use iterator over its progress
// events and then its one result, as Tool.Stream does.
func (t *RawTool) Stream(ctx context.Context, call Call) iter.Seq[Event] {
	return t.stream(ctx, call, t)
}

// run is Run for the tool.
func (t *RawTool) run(ctx context.Context, call Call) Result {
	return t.core.run(ctx, call, t)
}

// CallJSON checks the arguments as a call from a model would be checked
// and runs the handler, returning errors rather than results. The tool's
// timeout applies.
func (t *RawTool) CallJSON(ctx context.Context, args json.RawMessage) (any, error) {
	ctx, callID := directContext(ctx, t.name)
	return callDirect(&t.core, ctx, callID, func(ctx context.Context) (out any, err error) {
		defer t.recoverInto(&err, callID)
		if ctx.Err() != nil {
			return nil, t.ended(ctx, callID)
		}
		args, repairs := t.repairWhole(args)
		if len(repairs) > 0 {
			t.logRepairs(ctx, repairs)
		}
		args, _, err = t.checkOrMigrate(args, nil, callID)
		if err != nil {
			return nil, err
		}
		return t.handler(ctx, args)
	})
}

// checkOrMigrate checks args and, when they fail, tries the tool's
// migration; it returns the arguments to run with and the repairs made.
func (t *RawTool) checkOrMigrate(args json.RawMessage, repairs []Repair, callID string) (json.RawMessage, []Repair, error) {
	err := t.check(args, callID)
	if err == nil {
		return args, repairs, nil
	}
	if up, from, ok := t.migrate(args); ok && t.check(up, callID) == nil {
		return up, append(repairs, migrated(from)), nil
	}
	return args, repairs, err
}

// check holds args to the limits and the syntax, then to the validator.
func (t *RawTool) check(args json.RawMessage, callID string) error {
	if err := t.limits.CheckJSON(args); err != nil {
		return invalid(t.name, callID, err)
	}
	if t.validate == nil {
		return nil
	}
	err := t.validate(args)
	if err == nil {
		return nil
	}
	verr, ok := invalid(t.name, callID, err).(*ValidationError)
	if !ok { // a validator's own error: still the arguments' fault, in one issue
		verr = &ValidationError{Tool: t.name, CallID: callID, Issues: []Issue{{Keyword: schema.KeywordValidate, Message: msgtext.Line(err.Error(), 300)}}, Err: ErrInvalidArguments}
	}
	verr.Issues = t.limits.CutIssues(verr.Issues)
	return verr
}

func (t *RawTool) runArgs(ctx context.Context, call Call) (Result, error) {
	args, repairs := t.repairWhole(call.Args)
	args, repairs, err := t.checkOrMigrate(args, repairs, call.ID)
	if err != nil {
		return Result{Repairs: repairs}, err
	}
	out, err := t.handler(ctx, args)
	if err != nil {
		return Result{Repairs: repairs}, err
	}
	if r, ok := out.(Result); ok { // the handler's own result: taken as it is
		return Result{Content: r.Content, Parts: r.Parts, Structured: r.Structured, Output: r.Output, Repairs: append(repairs, r.Repairs...)}, nil
	}
	text, err := content(t.name, out)
	if err != nil {
		return Result{Repairs: repairs}, err
	}
	res := Result{Content: text, Output: out, Repairs: repairs}
	if t.output != nil && structured(out, text) {
		res.Structured = json.RawMessage(text)
	}
	return res, nil
}

// checkOutput validates a structured output cut to a budget against the
// tool's output schema, compiled by jsonschema-go, the validator that
// package schema uses for a type's own JSONSchema. An output schema it
// cannot resolve (a remote $ref) validates nothing.
func (t *RawTool) checkOutput(data []byte) error {
	if t.resolved == nil {
		return nil
	}
	s, err := t.resolved()
	if err != nil {
		return err
	}
	return validateResolved(s, data)
}

// structured reports whether text, the content of out, is a structured
// output: a JSON object, which out's own JSON is unless out is text or
// raw JSON that says otherwise.
func structured(out any, text string) bool {
	if !strings.HasPrefix(text, "{") {
		return false
	}
	switch out.(type) {
	case string:
		return false
	case json.RawMessage:
		return json.Valid([]byte(text))
	}
	v := reflect.ValueOf(out)
	return !v.IsValid() || !isText(v.Type())
}
