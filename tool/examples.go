package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/hands-go/hands/schema"
)

// ErrInvalidExample is matched by an *ExampleError.
var ErrInvalidExample = errors.New("tool: invalid example")

// An ExampleError reports an example (WithExamples, WithExamplesJSON) that
// the tool's own validator refuses: the example a model is shown would be
// refused as a call. It is part of the tool's *DefinitionError.
type ExampleError struct {
	Index  int     // the example's position, from 0, over all the tool's examples in the order given
	Issues []Issue // every way the example fails the input, as a call's *ValidationError lists them
	Err    error   // ErrInvalidExample
}

// Error names the example and lists the issues, one a line.
func (e *ExampleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "example %d is not a valid call", e.Index)
	for _, is := range e.Issues {
		b.WriteString("\n")
		b.WriteString(is.String())
	}
	return b.String()
}

// Unwrap returns Err.
func (e *ExampleError) Unwrap() error { return e.Err }

// An example is one example as an option gave it.
type example struct {
	typ  reflect.Type    // the Go type of WithExamples' In; nil for WithExamplesJSON
	data json.RawMessage // its JSON; nil when err is set
	err  error           // the example could not be written as JSON
}

// WithExamples gives the tool examples of its arguments, as values of its
// input type: a model shown a few real calls makes fewer mistakes in its
// own. Each example is written as JSON the way the model is asked to write
// it (as encoding/json writes the value, except that a nil slice or map is
// [] or {} rather than null, and a time.Duration is a string such as
// "1m30s"), and is checked when the tool is defined by the validator every
// call goes through, Validate methods and limits included, without repairs
// or migrations. An example that fails it is an *ExampleError, and an
// example of another type than the tool's input, or given to a RawTool
// (whose input is not a Go type; use WithExamplesJSON), is a definition
// error, as any mistake in a tool's definition is.
//
// The examples reach the model in Spec.Examples, in the order given (over
// every WithExamples and WithExamplesJSON of the tool): a provider that
// takes examples gets them as they are (MCP in the input schema's root
// "examples", Anthropic as input_examples), and the others read them at the
// end of the tool's description (see package dialect, Dialect.Examples).
func WithExamples[In any](examples ...In) Option {
	typ := reflect.TypeFor[In]()
	given := make([]example, len(examples))
	for i, ex := range examples {
		data, err := encodeExample(ex)
		given[i] = example{typ: typ, data: data, err: err}
	}
	return func(c *config) { c.examples = append(c.examples, given...) }
}

// WithExamplesJSON is WithExamples for examples written as JSON, for any
// kind of tool: the way to give a RawTool (and a tool of package dynamic)
// its examples. Each example must be a JSON object that the tool's own
// validator accepts; it is kept compact, with its keys in the order
// written.
func WithExamplesJSON(examples ...json.RawMessage) Option {
	given := make([]example, len(examples))
	for i, ex := range examples {
		given[i] = example{data: bytes.Clone(ex)}
	}
	return func(c *config) { c.examples = append(c.examples, given...) }
}

// exampleOptions write a Go value as encoding/json does, except where the
// result is not what a model is asked to send: a nil slice or map is [] or
// {}, never null, and a time.Duration is the string time.Duration.String
// writes, which the duration's schema asks for, rather than nanoseconds.
// Characters are not escaped for HTML: a description carries them as they
// are.
var exampleOptions = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv2.FormatNilSliceAsNull(false),
	jsonv2.FormatNilMapAsNull(false),
	jsonv2.Deterministic(true),
	jsontext.EscapeForHTML(false),
	jsonv2.WithMarshalers(jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, d time.Duration) error {
		return enc.WriteToken(jsontext.String(d.String()))
	})),
)

// encodeExample writes a typed example as a model is asked to write it.
func encodeExample(v any) (json.RawMessage, error) {
	data, err := jsonv2.Marshal(v, exampleOptions)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// checkExamples checks a tool's examples with valid, which returns the
// issues of one example's JSON (or another error), and returns them
// compact. in is the tool's input type, nil for a RawTool.
func checkExamples(given []example, in reflect.Type, valid func(json.RawMessage) error) ([]json.RawMessage, error) {
	if len(given) == 0 {
		return nil, nil
	}
	var errs []error
	out := make([]json.RawMessage, 0, len(given))
	for i, ex := range given {
		switch {
		case ex.typ != nil && in == nil:
			errs = append(errs, fmt.Errorf("example %d: WithExamples does not apply to a raw tool, whose input is not a Go type; use WithExamplesJSON", i))
			continue
		case ex.typ != nil && ex.typ != in:
			errs = append(errs, fmt.Errorf("example %d is a %v, but the tool's input is %v", i, ex.typ, in))
			continue
		case ex.err != nil:
			errs = append(errs, fmt.Errorf("example %d cannot be written as JSON: %w", i, ex.err))
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, ex.data); err != nil {
			errs = append(errs, &ExampleError{Index: i, Issues: []Issue{{Keyword: schema.KeywordSyntax, Message: "must be a JSON object, got invalid JSON: " + err.Error()}}, Err: ErrInvalidExample})
			continue
		}
		data := json.RawMessage(compact.Bytes())
		if data[0] != '{' {
			errs = append(errs, &ExampleError{Index: i, Issues: []Issue{{Keyword: schema.KeywordType, Message: "must be an object: an example is the whole arguments of a call"}}, Err: ErrInvalidExample})
			continue
		}
		if err := valid(data); err != nil {
			if verr, ok := errors.AsType[*ValidationError](err); ok {
				err = &ExampleError{Index: i, Issues: verr.Issues, Err: ErrInvalidExample}
			} else {
				err = fmt.Errorf("example %d: %w", i, err)
			}
			errs = append(errs, err)
			continue
		}
		out = append(out, data)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// validExample checks one example of a Tool: as a call's arguments are
// decoded, but with no repair (a null the null-optional repair would drop
// is an issue: an example leaves the property out) and no migration. A
// panic in a Validate method is an error, not a panic of the definition.
func (t *Tool[In, Out]) validExample(data json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("a Validate method panicked: %v", r)
		}
	}()
	_, nulls, err := schema.DecodeValue[In](t.input, data)
	if err != nil {
		return invalid(t.name, "", err)
	}
	if len(nulls) > 0 {
		issues := make([]Issue, len(nulls))
		for i, p := range nulls {
			issues[i] = Issue{Path: p, Keyword: schema.KeywordType, Message: "must not be null: an example leaves an optional property out rather than sending null"}
		}
		return &ValidationError{Tool: t.name, Issues: issues, Err: ErrInvalidArguments}
	}
	return nil
}

// validExample checks one example of a RawTool: its limits, JSON's syntax
// and its validator, as a call's arguments are checked, with no repair or
// migration. A panic in the validator is an error.
func (t *RawTool) validExample(data json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the validator panicked: %v", r)
		}
	}()
	return t.check(data, "")
}

// copyExamples returns copies of the tool's examples, which the caller may
// change; nil when it has none.
func (c *core) copyExamples() []json.RawMessage {
	if len(c.examples) == 0 {
		return nil
	}
	out := make([]json.RawMessage, len(c.examples))
	for i, ex := range c.examples {
		out[i] = bytes.Clone(ex)
	}
	return out
}
