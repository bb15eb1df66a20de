package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/schema"
)

// A Spec is what a model is shown of a tool.
type Spec struct {
	// Name is how the model calls the tool.
	Name string `json:"name"`
	// Title is a short human-readable name; it may be empty.
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description"`
	// InputSchema is the draft 2020-12 schema of the arguments, an object.
	InputSchema *jsonschema.Schema `json:"inputSchema"`
	// OutputSchema is the schema of the result when the output type is a
	// struct (or a pointer to one) whose fields hands can describe;
	// otherwise nil. A struct that writes its own JSON (time.Time, a
	// MarshalJSON method) or has a field with no schema (a map[int]T) has
	// none: encoding/json still writes it, and the model reads the text.
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
	// Annotations describe the tool's behaviour to clients; nil when the
	// tool's author said nothing.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Deprecation is set when the tool is deprecated (WithDeprecated); the
	// description already says it, for clients that show only that.
	Deprecation *Deprecation `json:"deprecation,omitempty"`
	// Version is the tool's version (WithVersion); "" when it declares
	// none.
	Version string `json:"version,omitempty"`
	// MigratesFrom are the earlier versions whose calls the tool still
	// accepts, upgraded by its migrations (Migrate, MigrateJSON), nearest
	// first; nil when it has none.
	MigratesFrom []string `json:"migratesFrom,omitempty"`
	// TaskSupport says whether the tool may be run as a task that a client
	// starts and polls (WithTaskSupport); "" when it may not.
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
	// DeferLoading says that the tool is left out of what a model is
	// shown on each turn until a search for tools finds it
	// (WithDeferLoading, Scope.DeferLoading).
	DeferLoading bool `json:"deferLoading,omitempty"`
	// Namespace is, for a tool of a deferred scope (Scope.DeferLoading),
	// the scope's name: a provider that groups tools (OpenAI's namespaces)
	// sends the tool in a group of that name. "" otherwise.
	Namespace string `json:"namespace,omitempty"`
	// Examples are whole arguments of calls that show the model how to
	// call the tool (WithExamples, WithExamplesJSON): each a compact JSON
	// object that the tool's own validator accepted when the tool was
	// defined, in the order given; nil when it has none. The input schema
	// does not repeat them: each carrier puts them where its provider
	// reads them (see package dialect, Dialect.Examples).
	Examples []json.RawMessage `json:"examples,omitempty"`
}

// Annotations describe how a tool behaves, for clients that decide what to
// confirm with a person (the MCP tool annotations). They are hints: a
// client must not rely on them for security.
type Annotations struct {
	// ReadOnly: the tool does not change its environment.
	ReadOnly bool `json:"readOnly"`
	// Destructive: the tool may delete or overwrite data. Meaningful only
	// when ReadOnly is false.
	Destructive bool `json:"destructive"`
	// Idempotent: calling it again with the same arguments has no further
	// effect.
	Idempotent bool `json:"idempotent"`
	// OpenWorld: the tool reaches outside a closed domain (the web, other
	// people's systems).
	OpenWorld bool `json:"openWorld"`
}

// An Interface is a tool of any input and output type: what a Registry
// holds. *Tool and *RawTool implement it. A Registry reads only a tool's
// name when it is built; it asks for the Spec when it lists the tools, and
// runs calls through Stream. A tool that may be switched off also
// implements Enabler.
type Interface interface {
	Handler
	// Name returns the name the model calls the tool by. It must not
	// change.
	Name() string
	// Spec returns what a model is shown of the tool.
	Spec() Spec
}

// An Enabler is a tool that may be shown and called on some requests and
// not on others. A Registry asks it on every listing and every call; a
// predicate that panics counts as false.
type Enabler interface {
	// Enabled reports whether the tool may be shown and called now.
	Enabled(ctx context.Context) bool
}

// content returns what the model reads of an output: a string as it is
// (also of a named string type that encoding/json writes as a plain
// string), raw JSON as it is, anything else encoded as JSON.
func content(name string, output any) (string, error) {
	switch v := output.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		return string(v), nil
	}
	if v := reflect.ValueOf(output); v.IsValid() && isText(v.Type()) {
		return v.String(), nil // type Markdown string
	}
	data, err := json.Marshal(output)
	if err != nil {
		return "", fmt.Errorf("tool %s: encode output: %w", name, err)
	}
	return string(data), nil
}

// A ModelTexter is an output that a model reads better as text than as
// JSON, such as a table of rows. When a Tool's output implements it, the
// result's Content is ModelText, and its Structured output is still the
// output's JSON (when the output type has a schema), for clients that check
// it. A method with a pointer receiver counts only for a pointer output.
type ModelTexter interface {
	ModelText() string
}

// A Tool is a typed function a model can call: its input type In gives its
// schema and its validation, and its handler turns an In into an Out.
// A Tool is safe for concurrent use.
type Tool[In, Out any] struct {
	core
	handler func(context.Context, In) (Out, error)
	input   *schema.Validator
	output  *schema.Validator // describes Out; nil unless Out is a struct
	encode  encoder           // writes an Out as JSON; nil leaves it to content
	// plainOut reports that an Out is never Part or []Part and never a
	// ModelTexter, which a concrete type tells once: runArgs then asks
	// neither of the output.
	plainOut bool
	// outputSize is the length of the last output encodeStructured wrote,
	// the capacity it gives the next one.
	outputSize atomic.Int64
}

// New returns a tool named name that runs handler. The description tells
// the model what the tool does. The input type In must be a struct; its
// fields, with their json, jsonschema and tool tags, define the arguments
// (see the package documentation of schema).
//
// New panics with a *DefinitionError on a mistake in the definition: a name
// that does not match ^[a-zA-Z0-9_-]{1,64}$, an empty description, a nil
// handler, an input type that cannot describe JSON arguments (the error
// names the type, the field and the tag), a mistake in a tool or jsonschema
// tag of the output type (a struct's, as for the input), or an option that
// does not apply. A program that builds tools from configuration uses
// Define, which returns the error instead. Otherwise any Out that
// encoding/json writes will do, whether or not a schema can describe it
// (see Spec.OutputSchema).
func New[In, Out any](name, description string, handler func(context.Context, In) (Out, error), opts ...Option) *Tool[In, Out] {
	t, err := Define(name, description, handler, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// Define is New for a program that builds tools at run time: it returns the
// *DefinitionError rather than panicking.
func Define[In, Out any](name, description string, handler func(context.Context, In) (Out, error), opts ...Option) (*Tool[In, Out], error) {
	c, cfg, err := newCore(name, description, reflect.TypeFor[In](), opts)
	if err != nil {
		return nil, err
	}
	if handler == nil {
		return nil, &DefinitionError{Tool: name, Err: errors.New("the handler is nil")}
	}
	input, err := schema.ForType(reflect.TypeFor[In](), &schema.Options{Limits: cfg.limits, NullAsAbsent: cfg.noRepair&repairNull == 0})
	if err != nil {
		return nil, &DefinitionError{Tool: name, Err: fmt.Errorf("input: %w", err)}
	}
	c.fields = deprecatedFields(input.Schema())
	t := &Tool[In, Out]{core: c, handler: handler, input: input}
	if t.examples, err = checkExamples(cfg.examples, reflect.TypeFor[In](), t.validExample); err != nil {
		return nil, &DefinitionError{Tool: name, Err: err}
	}
	outType := reflect.TypeFor[Out]()
	t.plainOut = outType.Kind() != reflect.Interface && outType != partType && outType != partsType && !outType.Implements(modelTexterType)
	if outType == partType || outType == partsType {
		return t, nil // rich content: Parts, and its text for Content
	}
	if outType != reflect.TypeFor[json.RawMessage]() && !isText(outType) {
		t.encode = newEncoder(outType) // content gives strings and raw JSON as they are
	}
	if outType.Kind() == reflect.Pointer {
		outType = outType.Elem()
	}
	if outType.Kind() == reflect.Struct {
		out, err := schema.ForType(outType, &schema.Options{Output: true})
		if derr, ok := errors.AsType[*schema.DefinitionError](err); ok && isTagMistake(derr) {
			return nil, &DefinitionError{Tool: name, Err: fmt.Errorf("output: %w", err)}
		}
		t.output = out // nil when Out cannot be described
	}
	return t, nil
}

// isTagMistake reports whether a definition error is a mistake in a tool or
// jsonschema tag, which is a mistake whatever the type is for, rather than a
// type that a schema cannot describe, which is fine for an output.
func isTagMistake(err *schema.DefinitionError) bool {
	return strings.HasPrefix(err.Tag, `tool:"`) || strings.HasPrefix(err.Tag, `jsonschema:"`)
}

// Spec returns what a model is shown of the tool. The schemas are new copies
// that the caller may change.
func (t *Tool[In, Out]) Spec() Spec {
	s := Spec{Name: t.name, Title: t.title, Description: t.describe(), InputSchema: t.input.Schema(), Annotations: t.copyAnnotations(), Deprecation: t.copyDeprecation(), Version: t.version, MigratesFrom: t.migratesFrom(), TaskSupport: t.tasks, DeferLoading: t.deferred, Examples: t.copyExamples()}
	if t.output != nil {
		s.OutputSchema = t.output.Schema()
	}
	return s
}

// Call checks a Go value against the input's constraints and Validate
// methods, as it would check the value's JSON encoding, then runs the
// handler and returns its result. Defaults are not applied: a Go value has
// no absent fields, only zero ones, and a default must not replace a zero
// the caller chose. Call never turns an error into a result: it returns a
// *ValidationError, *PanicError, *TimeoutError or *CanceledError, or the
// handler's error. The tool's timeout applies. Progress does nothing; the
// handler finds a Call in its context only if ctx carries one from
// WithCall.
func (t *Tool[In, Out]) Call(ctx context.Context, in In) (Out, error) {
	ctx, callID := directContext(ctx, t.name)
	return callDirect(&t.core, ctx, callID, func(ctx context.Context) (out Out, err error) {
		defer t.recoverInto(&err, callID)
		if ctx.Err() != nil {
			return out, t.ended(ctx, callID)
		}
		if err := t.input.Check(in); err != nil {
			return out, invalid(t.name, callID, err)
		}
		return t.handle(ctx, callID, in)
	})
}

// CallJSON runs the whole boundary path on raw JSON arguments: it repairs,
// validates and decodes them in one pass, applies defaults, runs the
// Validate methods and then the handler. Like Call, it returns errors rather
// than results, and the tool's timeout applies.
func (t *Tool[In, Out]) CallJSON(ctx context.Context, args json.RawMessage) (Out, error) {
	ctx, callID := directContext(ctx, t.name)
	return callDirect(&t.core, ctx, callID, func(ctx context.Context) (out Out, err error) {
		defer t.recoverInto(&err, callID)
		if ctx.Err() != nil {
			return out, t.ended(ctx, callID)
		}
		in, repairs, err := t.decode(args, callID)
		if len(repairs) > 0 {
			t.logRepairs(ctx, repairs)
		}
		if err != nil {
			return out, err
		}
		return t.handle(ctx, callID, in)
	})
}

// decode repairs, validates and decodes a call's arguments.
func (t *Tool[In, Out]) decode(args json.RawMessage, callID string) (In, []Repair, error) {
	args, repairs := t.repairWhole(args)
	in, nulls, err := schema.DecodeValue[In](t.input, args)
	if err != nil {
		if up, from, ok := t.migrate(args); ok {
			if in2, nulls2, err2 := schema.DecodeValue[In](t.input, up); err2 == nil {
				return in2, nullRepairs(append(repairs, migrated(from)), nulls2), nil
			}
		}
	}
	repairs = nullRepairs(repairs, nulls)
	if err != nil {
		return in, repairs, invalid(t.name, callID, err)
	}
	return in, repairs, nil
}

// handle runs the handler of a direct call and names a cancellation as
// such.
func (t *Tool[In, Out]) handle(ctx context.Context, callID string, in In) (Out, error) {
	out, err := t.handler(ctx, in)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return out, t.ended(ctx, callID)
	}
	return out, err
}

// invalid turns a *schema.Error into a *ValidationError for tool name, and
// names the tool and the call in a *ValidationError.
func invalid(name, callID string, err error) error {
	if verr, ok := errors.AsType[*ValidationError](err); ok {
		return &ValidationError{Tool: name, CallID: callID, Issues: verr.Issues, Err: ErrInvalidArguments}
	}
	if serr, ok := errors.AsType[*schema.Error](err); ok {
		return &ValidationError{Tool: name, CallID: callID, Issues: serr.Issues, Err: ErrInvalidArguments}
	}
	return err
}

func (c *core) recoverInto(err *error, callID string) {
	if r := recover(); r != nil {
		*err = &PanicError{Tool: c.name, CallID: callID, Value: r, Stack: debug.Stack(), Err: ErrPanicked}
	}
}

// Stream runs a call and returns a single-use iterator over its events: the
// progress the handler reports with Progress, then exactly one result, which
// is an error result on any failure. The handler runs on a goroutine of its
// own and every event is delivered on the goroutine that ranges over the
// stream. If the caller stops iterating early, the handler's context is
// cancelled and no result is yielded; if ctx ends or the tool's timeout
// passes first, the result says so at once, whatever the handler does.
func (t *Tool[In, Out]) Stream(ctx context.Context, call Call) iter.Seq[Event] {
	return t.stream(ctx, call, t)
}

// run is Run for the tool.
func (t *Tool[In, Out]) run(ctx context.Context, call Call) Result {
	return t.core.run(ctx, call, t)
}

// runArgs repairs and decodes the arguments, runs the handler and encodes
// its output.
func (t *Tool[In, Out]) runArgs(ctx context.Context, call Call) (Result, error) {
	in, repairs, err := t.decode(call.Args, call.ID)
	if err != nil {
		return Result{Repairs: repairs}, err
	}
	out, err := t.handler(ctx, in)
	if err != nil {
		return Result{Repairs: repairs}, err
	}
	output := any(out) // boxed once, for the encoder and the result
	if !t.plainOut {
		if parts, ok := partsOf(output); ok {
			return Result{Content: PartsText(parts), Parts: parts, Output: output, Repairs: repairs}, nil
		}
	}
	text, ok := "", false
	var structured []byte // the encoded output, when it is the result's Structured
	switch {
	case t.encode != nil && t.output != nil:
		// Encoded into the bytes that become Structured, and copied once
		// into Content.
		if structured, ok = encodeStructured(t.encode, output, &t.outputSize); ok {
			text = string(structured)
		}
	case t.encode != nil:
		text, ok = encodeOutput(t.encode, output)
	}
	if !ok {
		if text, err = content(t.name, output); err != nil {
			return Result{Repairs: repairs}, err
		}
		structured = nil
	}
	res := Result{Content: text, Output: output, Repairs: repairs}
	if t.output != nil && strings.HasPrefix(text, "{") { // not a nil *Out's null
		if structured == nil {
			structured = []byte(text)
		}
		res.Structured = structured
	}
	if t.plainOut {
		return res, nil
	}
	if mt, ok := output.(ModelTexter); ok {
		res.Content = mt.ModelText()
	}
	return res, nil
}

// checkOutput validates a structured output cut to a budget with the
// validator of Out, the one that describes the tool's output schema.
func (t *Tool[In, Out]) checkOutput(data []byte) error {
	if t.output == nil {
		return nil
	}
	return t.output.Validate(data)
}
