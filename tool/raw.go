package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"runtime/debug"

	"github.com/google/jsonschema-go/jsonschema"
)

// A RawTool is a tool over raw JSON: its schema is given rather than derived
// from a Go type (loaded from configuration, or proxied from another
// system), and its handler takes the arguments as they came, once they pass
// the tool's validator. It behaves like a Tool everywhere else: in a
// Registry, under middleware, and in its results. A RawTool is safe for
// concurrent use.
type RawTool struct {
	core
	input    *jsonschema.Schema
	output   *jsonschema.Schema
	validate func(args json.RawMessage) error
	run      func(ctx context.Context, args json.RawMessage) (any, error)
}

// NewRaw returns a tool with the name, description and schemas of spec, that
// checks each call's arguments with validate and then runs run. validate
// reports problems as a *schema.Error (which becomes a *ValidationError) or
// any other error; when validate is nil, the arguments need only be a JSON
// object. run's output reaches the model as text when it is a string, as it
// is when it is a json.RawMessage, and as JSON otherwise.
//
// NewRaw panics on a mistake in the definition: an invalid name, an empty
// description, a nil run, or an input schema that is not an object schema.
// Package dynamic builds RawTools from JSON Schema documents with a complete
// validator.
func NewRaw(spec Spec, validate func(args json.RawMessage) error, run func(ctx context.Context, args json.RawMessage) (any, error), opts ...Option) *RawTool {
	c, _ := newCore("tool.NewRaw", spec.Name, spec.Description, opts)
	if c.title == "" {
		c.title = spec.Title
	}
	if c.annotations == nil && spec.Annotations != nil {
		a := *spec.Annotations
		c.annotations = &a
	}
	if run == nil {
		panic(fmt.Sprintf("tool.NewRaw(%q): run is nil", spec.Name))
	}
	if spec.InputSchema == nil || (spec.InputSchema.Type != "object" && spec.InputSchema.Ref == "") {
		panic(fmt.Sprintf("tool.NewRaw(%q): the input schema must be an object schema (type: object)", spec.Name))
	}
	t := &RawTool{core: c, input: spec.InputSchema.CloneSchemas(), validate: validate, run: run}
	if spec.OutputSchema != nil {
		t.output = spec.OutputSchema.CloneSchemas()
	}
	return t
}

// Spec returns what a model is shown of the tool. The schemas are new copies
// that the caller may change.
func (t *RawTool) Spec() Spec {
	s := Spec{Name: t.name, Title: t.title, Description: t.description, InputSchema: t.input.CloneSchemas(), Annotations: t.copyAnnotations()}
	if t.output != nil {
		s.OutputSchema = t.output.CloneSchemas()
	}
	return s
}

// Run runs a call and returns its one result; progress events are dropped.
func (t *RawTool) Run(ctx context.Context, call Call) Result {
	return t.execute(ctx, call, nil, t)
}

// Stream runs a call and returns a single-use iterator over its progress
// events and then its one result, as Tool.Stream does.
func (t *RawTool) Stream(ctx context.Context, call Call) iter.Seq[Event] {
	return t.stream(ctx, call, t)
}

// CallJSON validates the arguments and runs the handler, returning errors
// rather than results.
func (t *RawTool) CallJSON(ctx context.Context, args json.RawMessage) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Tool: t.name, Value: r, Stack: debug.Stack()}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, &CanceledError{Tool: t.name, Cause: context.Cause(ctx)}
	}
	args, repairs := t.repairWhole(args)
	t.logRepairs(ctx, repairs)
	if err := t.check(args); err != nil {
		return nil, err
	}
	return t.run(direct(ctx), args)
}

func (t *RawTool) check(args json.RawMessage) error {
	if t.validate != nil {
		if err := t.validate(args); err != nil {
			return invalid(t.name, err)
		}
		return nil
	}
	if trimmed := bytes.TrimSpace(args); !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
		return &ValidationError{Tool: t.name, Issues: []Issue{{Keyword: "type", Message: "the arguments must be a JSON object"}}}
	}
	return nil
}

func (t *RawTool) runArgs(ctx context.Context, args json.RawMessage) (any, string, []Repair, error) {
	args, repairs := t.repairWhole(args)
	if err := t.check(args); err != nil {
		return nil, "", repairs, err
	}
	out, err := t.run(ctx, args)
	if err != nil {
		return nil, "", repairs, err
	}
	text, err := content(t.name, out)
	if err != nil {
		return nil, "", repairs, err
	}
	return out, text, repairs, nil
}
