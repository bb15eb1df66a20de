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
	"time"

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
// holds. *Tool and *RawTool implement it.
type Interface interface {
	// Spec returns what a model is shown of the tool.
	Spec() Spec
	// Enabled reports whether the tool may be shown and called now. It may
	// panic; a Registry counts a panic as false.
	Enabled(ctx context.Context) bool
	// Run runs a call and returns its one result.
	Run(ctx context.Context, call Call) Result
	// Stream runs a call and yields its progress events, then one result.
	Stream(ctx context.Context, call Call) iter.Seq[Event]
}

// An Option configures a tool made by New or NewRaw.
type Option func(*config)

type config struct {
	title       string
	annotations *Annotations
	limits      schema.Options
	enabled     func(context.Context) bool
	timeout     time.Duration
	noRepair    map[RepairKind]bool
}

// WithTitle sets the tool's human-readable title.
func WithTitle(title string) Option {
	return func(c *config) { c.title = title }
}

// WithAnnotations describes how the tool behaves (read-only, destructive,
// idempotent, open-world); they reach clients in the tool's spec.
func WithAnnotations(a Annotations) Option {
	return func(c *config) { c.annotations = &a }
}

// WithLimits bounds the arguments the tool reads: their size in bytes, their
// nesting depth, and how many issues a validation error lists. A zero field
// keeps the default (schema.DefaultMaxBytes, schema.DefaultMaxDepth,
// schema.DefaultMaxIssues); a negative maxBytes removes the size limit, and
// a negative maxIssues lists every issue.
func WithLimits(maxBytes, maxDepth, maxIssues int) Option {
	return func(c *config) {
		c.limits.MaxBytes, c.limits.MaxDepth, c.limits.MaxIssues = maxBytes, maxDepth, maxIssues
	}
}

// WithEnabled gates the tool with a predicate. A Registry evaluates it when
// it lists the tools for a request, and again when a call arrives: a
// disabled tool is not shown, and a call to it gets a *DisabledToolError
// result. A predicate that panics counts as false.
func WithEnabled(enabled func(ctx context.Context) bool) Option {
	return func(c *config) { c.enabled = enabled }
}

// WithTimeout bounds each call made through Run or Stream: the handler's
// context is cancelled after d, and the result says the call timed out.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// core is what every kind of tool shares: what the model is shown, the
// options, and the boundary path around a call.
type core struct {
	name        string
	title       string
	annotations *Annotations
	description string
	enabled     func(context.Context) bool
	timeout     time.Duration
	noRepair    map[RepairKind]bool
}

func newCore(caller, name, description string, opts []Option) (core, config) {
	if err := CheckName(name); err != nil {
		panic(caller + ": " + err.Error())
	}
	if strings.TrimSpace(description) == "" {
		panic(fmt.Sprintf("%s(%q): the description is empty; the model needs it to choose the tool", caller, name))
	}
	var c config
	for _, opt := range opts {
		opt(&c)
	}
	return core{name: name, title: c.title, annotations: c.annotations, description: description, enabled: c.enabled, timeout: c.timeout, noRepair: c.noRepair}, c
}

// CheckName reports whether name is a valid tool name: 1 to 64 ASCII letters,
// digits, underscores and hyphens, the rule every provider accepts.
func CheckName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("tool name %q must be 1 to 64 characters long", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("tool name %q may only hold letters, digits, '_' and '-' (^[a-zA-Z0-9_-]{1,64}$)", name)
		}
	}
	return nil
}

// Name returns the tool's name.
func (c *core) Name() string { return c.name }

// Enabled reports whether the tool's predicate allows it now; a tool without
// one is always enabled.
func (c *core) Enabled(ctx context.Context) bool {
	return c.enabled == nil || c.enabled(ctx)
}

func (c *core) copyAnnotations() *Annotations {
	if c.annotations == nil {
		return nil
	}
	a := *c.annotations
	return &a
}

// A runner is the part of a call that differs between kinds of tool: from
// raw arguments to the output, its content for the model, or an error.
type runner interface {
	runArgs(ctx context.Context, args json.RawMessage) (output any, content string, repairs []Repair, err error)
}

// execute is the boundary path of Run and Stream for every kind of tool.
func (c *core) execute(ctx context.Context, call Call, s *sink, r runner) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = ErrorResult(Call{ID: call.ID, Name: c.name}, &PanicError{Tool: c.name, Value: v, Stack: debug.Stack()})
		}
	}()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return ErrorResult(Call{ID: call.ID, Name: c.name}, &CanceledError{Tool: c.name, Cause: context.Cause(ctx)})
	}
	cc := &callContext{Context: ctx, call: call, sink: s}
	output, content, repairs, err := r.runArgs(cc, call.Args)
	if len(repairs) > 0 {
		c.logRepairs(ctx, repairs)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = &CanceledError{Tool: c.name, Cause: context.Cause(ctx)}
		}
		res := ErrorResult(Call{ID: call.ID, Name: c.name}, err)
		res.Repairs = repairs
		return res
	}
	return Result{CallID: call.ID, Tool: c.name, Content: content, Output: output, Repairs: repairs}
}

// stream runs execute as an iterator over events.
func (c *core) stream(ctx context.Context, call Call, r runner) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := &sink{yield: yield, cancel: cancel}
		res := c.execute(ctx, call, s, r)
		if s.close() {
			yield(Event{Result: &res})
		}
	}
}

// content returns what the model reads of an output: a string as it is,
// raw JSON as it is, anything else encoded as JSON.
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

// A Tool is a typed function a model can call: its input type In gives its
// schema and its validation, and its handler turns an In into an Out.
// A Tool is safe for concurrent use.
type Tool[In, Out any] struct {
	core
	run    func(context.Context, In) (Out, error)
	input  *schema.Validator
	output *schema.Validator // describes Out; nil unless Out is a struct
	encode encoder           // writes an Out as JSON; nil leaves it to content
}

// New returns a tool named name that runs run. The description tells the
// model what the tool does. The input type In must be a struct; its fields,
// with their json, jsonschema and tool tags, define the arguments (see the
// package documentation of schema).
//
// New panics on a mistake in the definition: a name that does not match
// ^[a-zA-Z0-9_-]{1,64}$, an empty description, a nil run, or an input type
// that cannot describe JSON arguments (the panic names the type, the field and
// the tag). The output type is never a mistake: any Out that encoding/json
// writes will do (see Spec.OutputSchema).
func New[In, Out any](name, description string, run func(context.Context, In) (Out, error), opts ...Option) *Tool[In, Out] {
	c, cfg := newCore("tool.New", name, description, opts)
	if run == nil {
		panic(fmt.Sprintf("tool.New(%q): run is nil", name))
	}
	limits := cfg.limits
	limits.NullAsAbsent = !cfg.noRepair[RepairNullOptional]
	input, err := schema.ForType(reflect.TypeFor[In](), &limits)
	if err != nil {
		panic(fmt.Sprintf("tool.New(%q): input: %v", name, err))
	}
	t := &Tool[In, Out]{core: c, run: run, input: input}
	outType := reflect.TypeFor[Out]()
	if outType != reflect.TypeFor[json.RawMessage]() && !isText(outType) {
		t.encode = newEncoder(outType) // content gives strings and raw JSON as they are
	}
	if outType.Kind() == reflect.Pointer {
		outType = outType.Elem()
	}
	if outType.Kind() == reflect.Struct {
		out, err := schema.ForType(outType, &schema.Options{Output: true})
		if derr, ok := errors.AsType[*schema.DefinitionError](err); ok && isTagMistake(derr) {
			panic(fmt.Sprintf("tool.New(%q): output: %v", name, err))
		}
		t.output = out // nil when Out cannot be described
	}
	return t
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
	s := Spec{Name: t.name, Title: t.title, Description: t.description, InputSchema: t.input.Schema(), Annotations: t.copyAnnotations()}
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
// *ValidationError, a *PanicError, a *CanceledError or the handler's error.
// There is no Call in the context, Progress does nothing, and the tool's
// timeout does not apply: the caller's context rules.
func (t *Tool[In, Out]) Call(ctx context.Context, in In) (out Out, err error) {
	defer t.recoverInto(&err)
	if err := ctx.Err(); err != nil {
		return out, &CanceledError{Tool: t.name, Cause: context.Cause(ctx)}
	}
	if err := t.input.Check(in); err != nil {
		return out, t.invalid(err)
	}
	return t.handle(ctx, in)
}

// CallJSON runs the whole boundary path on raw JSON arguments: it validates
// and decodes them in one pass, applies defaults, runs the Validate methods
// and then the handler. Like Call, it returns errors rather than results.
func (t *Tool[In, Out]) CallJSON(ctx context.Context, args json.RawMessage) (out Out, err error) {
	defer t.recoverInto(&err)
	if err := ctx.Err(); err != nil {
		return out, &CanceledError{Tool: t.name, Cause: context.Cause(ctx)}
	}
	args, repairs := t.repairWhole(args)
	in, nulls, err := schema.DecodeValue[In](t.input, args)
	if repairs = nullRepairs(repairs, nulls); len(repairs) > 0 {
		t.logRepairs(ctx, repairs)
	}
	if err != nil {
		return out, t.invalid(err)
	}
	return t.handle(ctx, in)
}

// handle runs the handler of a direct call and names a cancellation as
// such.
func (t *Tool[In, Out]) handle(ctx context.Context, in In) (Out, error) {
	out, err := t.run(direct(ctx), in)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return out, &CanceledError{Tool: t.name, Cause: context.Cause(ctx)}
	}
	return out, err
}

func (t *Tool[In, Out]) invalid(err error) error {
	return invalid(t.name, err)
}

// invalid turns a *schema.Error into a *ValidationError for tool name.
func invalid(name string, err error) error {
	if serr, ok := errors.AsType[*schema.Error](err); ok {
		return &ValidationError{Tool: name, Issues: serr.Issues}
	}
	return err
}

func (t *Tool[In, Out]) recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = &PanicError{Tool: t.name, Value: r, Stack: debug.Stack()}
	}
}

// Run runs a call and returns its one result; progress events are dropped.
// Every failure becomes an error result (IsError set, Err the Go error).
func (t *Tool[In, Out]) Run(ctx context.Context, call Call) Result {
	return t.execute(ctx, call, nil, t)
}

// Stream runs a call and returns a single-use iterator over its events: the
// progress the handler reports with Progress, then exactly one result, which
// is an error result on any failure. If the caller stops iterating early,
// the handler's context is cancelled and no result is yielded.
func (t *Tool[In, Out]) Stream(ctx context.Context, call Call) iter.Seq[Event] {
	return t.stream(ctx, call, t)
}

// runArgs repairs and decodes the arguments, runs the handler and encodes
// its output.
func (t *Tool[In, Out]) runArgs(ctx context.Context, args json.RawMessage) (any, string, []Repair, error) {
	args, repairs := t.repairWhole(args)
	in, nulls, err := schema.DecodeValue[In](t.input, args)
	repairs = nullRepairs(repairs, nulls)
	if err != nil {
		return nil, "", repairs, t.invalid(err)
	}
	out, err := t.run(ctx, in)
	if err != nil {
		return nil, "", repairs, err
	}
	output := any(out)
	if t.encode != nil {
		if text, ok := encodeOutput(t.encode, output); ok {
			return output, text, repairs, nil
		}
	}
	text, err := content(t.name, output)
	if err != nil {
		return nil, "", repairs, err
	}
	return output, text, repairs, nil
}
