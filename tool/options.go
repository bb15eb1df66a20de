package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hands-go/hands/schema"
)

// Limits bound what one call's arguments may cost to read: their size in
// bytes, their nesting, and how many issues a validation error lists. The
// zero value selects schema.DefaultMaxBytes, schema.DefaultMaxDepth and
// schema.DefaultMaxIssues; a negative MaxBytes removes the size limit, and a
// negative MaxIssues lists every issue.
type Limits = schema.Limits

// An Option configures a tool made by New, Define, NewRaw or DefineRaw. An
// option that does not apply to the constructor it is given to is a
// definition error, not a no-op.
type Option func(*config)

// config is what the options set.
type config struct {
	title       string
	annotations *Annotations
	limits      Limits
	enabled     func(context.Context) bool
	timeout     time.Duration
	noRepair    repairSet
	deprecation *Deprecation
	version     string
	migrations  []*migration // Migrate, MigrateJSON, in the order given
	tasks       TaskSupport
	nullNamed   bool      // WithoutRepairs named RepairNullOptional
	bound       bool      // WithContextBoundHandler
	deferred    bool      // WithDeferLoading
	examples    []example // WithExamples, WithExamplesJSON, in the order given
	budget      int       // WithResultBudget
	errs        []error   // mistakes in the options themselves
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

// WithDeferLoading defers the tool: its spec says so (Spec.DeferLoading),
// and what shows tools to a model — a provider adapter, an MCP server with
// tool search on — leaves it out of the tools sent on each turn until a
// search for tools finds it. A deferred tool is called like any other once
// found. Defer the tools a model needs rarely, so that a large set costs the
// model's context no more than the few it uses; a Scope defers all of its
// tools at once (Scope.DeferLoading).
func WithDeferLoading() Option {
	return func(c *config) { c.deferred = true }
}

// WithLimits bounds the arguments the tool reads (see Limits). They hold for
// every kind of tool: a RawTool's arguments are checked against them, and
// against JSON's syntax, before its own validator sees them.
func WithLimits(l Limits) Option {
	return func(c *config) { c.limits = l }
}

// WithEnabled gates the tool with a predicate. A Registry evaluates it when
// it lists the tools for a request, and again when a call arrives: a
// disabled tool is not shown, and a call to it gets a *DisabledToolError
// result. A predicate that panics counts as false.
func WithEnabled(enabled func(ctx context.Context) bool) Option {
	return func(c *config) {
		if enabled == nil {
			c.errs = append(c.errs, errors.New("WithEnabled(nil): the predicate is nil"))
			return
		}
		c.enabled = enabled
	}
}

// WithTimeout bounds each call, direct calls included: the handler's context
// ends after d, and the call ends with a *TimeoutError at that moment,
// whatever the handler does. To make that hold for a handler that ignores its
// context, a call with a timeout runs its handler on a goroutine of its own;
// a handler still running at the deadline is abandoned: it keeps its
// goroutine until it returns, and its result and progress are dropped. d must
// be positive.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("WithTimeout(%v): the timeout must be positive", d))
			return
		}
		c.timeout = d
	}
}

// WithContextBoundHandler says that the handler returns as soon as its
// context ends — it waits only on work that the context cancels, as a call
// to another server does — so that a call run to its end (Run, or Drain
// without a progress function) runs it on the caller's goroutine, with a
// timeout too, rather than on a goroutine of its own that the timeout
// would abandon: one goroutine, and its stack, fewer a call. The call's
// result is the same: at the timeout the handler's context ends, it
// returns, and the call ends with a *TimeoutError. A handler that ignores
// its context holds the caller past the timeout instead. mcpclient's
// remote tools, whose handler is the SDK's call to their server, say so.
func WithContextBoundHandler() Option {
	return func(c *config) { c.bound = true }
}

// A repairSet is a set of RepairKinds, as bits.
type repairSet uint8

const (
	repairEmpty repairSet = 1 << iota
	repairString
	repairNull
	repairAll = repairEmpty | repairString | repairNull
)

// repairBit returns the bit of kind k, or 0 for an unknown kind.
func repairBit(k RepairKind) repairSet {
	switch k {
	case RepairEmptyArguments:
		return repairEmpty
	case RepairStringArguments:
		return repairString
	case RepairNullOptional:
		return repairNull
	}
	return 0
}

// WithoutRepairs turns off the named repairs, or every repair when none is
// named. A RawTool has no null-optional repair to turn off: its validator
// decides what null means.
func WithoutRepairs(kinds ...RepairKind) Option {
	return func(c *config) {
		if len(kinds) == 0 {
			c.noRepair = repairAll
			return
		}
		for _, k := range kinds {
			bit := repairBit(k)
			if bit == 0 {
				c.errs = append(c.errs, fmt.Errorf("WithoutRepairs(%q): no such repair", k))
				continue
			}
			c.noRepair |= bit
			c.nullNamed = c.nullNamed || bit == repairNull
		}
	}
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
	limits      Limits
	noRepair    repairSet
	deprecation *Deprecation      // WithDeprecated
	fields      []deprecatedField // the input's deprecated properties
	migrations  []*migration      // Migrate, MigrateJSON: the earlier versions, nearest first
	version     string            // WithVersion
	bound       bool              // WithContextBoundHandler
	tasks       TaskSupport       // WithTaskSupport
	deferred    bool              // WithDeferLoading
	examples    []json.RawMessage // WithExamples, WithExamplesJSON: checked, compact
	budget      int               // WithResultBudget
}

// newCore checks what every kind of tool must have and applies the options.
// inputType is the input's Go type, nil for a RawTool, to which the
// null-optional repair and Migrate do not apply.
func newCore(name, description string, inputType reflect.Type, opts []Option) (core, config, error) {
	raw := inputType == nil
	var c config
	for _, opt := range opts {
		if opt == nil {
			c.errs = append(c.errs, errors.New("an option is nil"))
			continue
		}
		opt(&c)
	}
	migrations, err := chain(c.migrations, inputType, c.version)
	if err != nil {
		c.errs = append(c.errs, err)
	}
	if raw && c.nullNamed {
		c.errs = append(c.errs, errors.New("WithoutRepairs(RepairNullOptional) does not apply to a raw tool: its validator decides what null means"))
	}
	if err := CheckName(name); err != nil {
		c.errs = append([]error{err}, c.errs...)
	}
	if strings.TrimSpace(description) == "" {
		c.errs = append(c.errs, errors.New("the description is empty; the model needs it to choose the tool"))
	}
	if len(c.errs) > 0 {
		return core{}, c, &DefinitionError{Tool: name, Err: errors.Join(c.errs...)}
	}
	return core{
		name: name, title: c.title, annotations: c.annotations, description: description,
		enabled: c.enabled, timeout: c.timeout, limits: c.limits, noRepair: c.noRepair,
		deprecation: c.deprecation, migrations: migrations, version: c.version, bound: c.bound,
		tasks: c.tasks, deferred: c.deferred, budget: c.budget,
	}, c, nil
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

// Timeout returns the bound WithTimeout put on each call; zero when the
// tool has none.
func (c *core) Timeout() time.Duration { return c.timeout }

// A Timed is a tool that bounds each of its calls (WithTimeout), and says
// by how much, so that what runs its calls elsewhere, such as a
// durable-execution engine's activity, can bound them too. Timeout returns
// zero when the calls have no bound. The tools of New and NewRaw are
// Timed, and so are mcpclient's.
type Timed interface {
	Timeout() time.Duration
}

// Enabled reports whether the tool's predicate allows it now; a tool without
// one is always enabled, until its sunset (WithDeprecated) has passed.
func (c *core) Enabled(ctx context.Context) bool {
	return !c.sunsetPassed() && (c.enabled == nil || c.enabled(ctx))
}

func (c *core) copyAnnotations() *Annotations {
	if c.annotations == nil {
		return nil
	}
	a := *c.annotations
	return &a
}
