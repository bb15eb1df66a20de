package tool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// A Scope groups tools under a name. Its Enabled predicate gates the whole
// group; its Instructions are context that an agent adds on every turn on
// which the scope is enabled.
type Scope struct {
	// Name identifies the scope in errors and logs.
	Name string
	// Tools are the scope's tools, in the order a model is shown them.
	Tools []Interface
	// Enabled gates every tool of the scope; nil means always enabled. A
	// predicate that panics counts as false.
	Enabled func(ctx context.Context) bool
	// Instructions is context for the model, added on every turn on which the
	// scope is enabled and left out when it is not. Empty means none.
	Instructions string
	// Placement says where the instructions go; the zero value is the
	// system prompt.
	Placement Placement
	// DeferLoading defers every tool of the scope (see WithDeferLoading):
	// their specs say so, and a model is shown them once a search for
	// tools finds them. A provider that groups tools (OpenAI's namespaces)
	// groups a deferred scope's tools under its name.
	DeferLoading bool
}

// Placement says where a scope's instructions go in a request.
type Placement int

const (
	// InSystemPrompt appends the instructions to the system prompt.
	InSystemPrompt Placement = iota
	// AsUserMessage adds the instructions as a user message before the
	// conversation.
	AsUserMessage
)

// An Instruction is the context of one enabled scope.
type Instruction struct {
	Scope     string    // the scope's name
	Text      string    // the scope's instructions
	Placement Placement // where they go
}

// Errors that NewRegistry and Registry.Add wrap in a *NameError.
var (
	// ErrInvalidName reports a tool name outside ^[a-zA-Z0-9_-]{1,64}$.
	ErrInvalidName = errors.New("tool: invalid tool name")
	// ErrDuplicateName reports a tool name used twice. Names collide when
	// they are equal after lower-casing and treating '-' as '_', because a
	// model confuses get_user, get-user and Get_User, and some clients
	// rewrite one into another.
	ErrDuplicateName = errors.New("tool: duplicate tool name")
	// ErrNameMismatch reports a tool whose Spec names it differently from
	// its Name: a model would be shown one name, and the registry would
	// know it by the other.
	ErrNameMismatch = errors.New("tool: the spec's name is not the tool's")
)

// A NameError reports a tool name that a Registry cannot take.
type NameError struct {
	Name   string   // the offending name
	Other  string   // for a duplicate, the name it collides with; for a mismatch, the spec's name
	Scopes []string // the scopes involved: one, or the two that collide
	Err    error    // ErrInvalidName, ErrDuplicateName or ErrNameMismatch
}

// Error says what is wrong and where.
func (e *NameError) Error() string {
	if errors.Is(e.Err, ErrNameMismatch) {
		return fmt.Sprintf("tool: the tool %q in scope %s has a spec named %q: a model would call a name the registry does not know", e.Name, quoteList(e.Scopes), e.Other)
	}
	if errors.Is(e.Err, ErrDuplicateName) {
		if e.Other == e.Name {
			return fmt.Sprintf("tool: name %q is used twice (scopes %s)", e.Name, quoteList(e.Scopes))
		}
		return fmt.Sprintf("tool: name %q collides with %q (scopes %s): names equal up to case and '-'/'_' are ambiguous to a model", e.Name, e.Other, quoteList(e.Scopes))
	}
	return fmt.Sprintf("tool: name %q in scope %s is invalid: it must match ^[a-zA-Z0-9_-]{1,64}$", e.Name, quoteList(e.Scopes))
}

// Unwrap returns Err.
func (e *NameError) Unwrap() error { return e.Err }

// A Registry holds the tools a model may call, grouped in scopes, and runs
// calls to them through its middleware. The zero Registry has no tools and
// is ready to use. A Registry is safe for concurrent use: Add may run while
// tools are listed and called.
type Registry struct {
	tools atomic.Pointer[toolSet] // replaced, never changed, by Add

	mu         sync.Mutex // guards Add, middleware and logger changes
	middleware []Middleware
	chain      atomic.Pointer[Handler]
	logger     atomic.Pointer[slog.Logger]

	budget   atomic.Pointer[budgetState] // nil when budgets are off
	budgetMu sync.Mutex                  // one SetBudget at a time
	reader   Interface                   // read_result, once SetBudget added it
}

// A toolSet is what a registry holds at one time. It is never changed once
// published: Add makes a new one, so listing and dispatch read it without
// a lock. Its slices share their arrays with the sets made before and
// after it, and each set reads only up to its own lengths; Add appends
// beyond them. Its index is shared too, and holds the names of later sets:
// a name whose entry lies past the set's entries is not the set's. So Add
// costs what it adds, not what the registry holds.
type toolSet struct {
	scopes     []scopeEntry
	entries    []entry
	index      *toolIndex // nil for a set without tools or scopes
	predicates bool       // a scope or a tool has an enabled predicate
	version    uint64     // how many times Add changed the registry
	base       uint64     // the version since which Add alone changed it, appending entries

	specs atomic.Pointer[[]*Spec] // see fixedSpecs
}

// A scopeEntry is a scope of a registry with its predicate's state.
type scopeEntry struct {
	scope *Scope
	state *predicateState
}

// A toolIndex finds entries by name for every set of one registry.
type toolIndex struct {
	byName sync.Map // name → index into entries; read without a lock

	// Read and written by Add alone, under Registry.mu.
	keys   map[string]int             // collision key → index into entries
	scopes map[*Scope]*predicateState // the scopes held
}

var noTools = &toolSet{}

// set returns the tools the registry holds now.
func (r *Registry) set() *toolSet {
	if ts := r.tools.Load(); ts != nil {
		return ts
	}
	return noTools
}

// lookup returns the index of the entry named name.
func (ts *toolSet) lookup(name string) (int, bool) {
	if ts.index == nil {
		return 0, false
	}
	v, ok := ts.index.byName.Load(name)
	if !ok || v.(int) >= len(ts.entries) {
		return 0, false // not held, or added after this set
	}
	return v.(int), true
}

type entry struct {
	tool       Interface
	enabler    Enabler // the tool's own predicate; nil when it has none
	scope      *Scope
	scopeState *predicateState // of the scope's predicate
	name       string
	state      *predicateState // of the tool's predicate
	added      uint64          // the version of the set that added it
}

// predicateState remembers whether a predicate is panicking, so that a
// panic is logged once, when it starts, rather than on every call.
type predicateState struct{ panicking atomic.Bool }

// NewRegistry returns a registry of the given scopes. It reads each tool's
// Name, and the Spec of a tool of the caller's own (not a *Tool or a
// *RawTool, whose spec always has their name), which must have that name.
// It reports every invalid or duplicated tool name, in one scope or across
// scopes, and every spec named otherwise, as a *NameError (joined with
// errors.Join when there are several).
func NewRegistry(scopes ...*Scope) (*Registry, error) {
	ts, errs := noTools.with(scopes)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Registry{}
	r.tools.Store(ts)
	return r, nil
}

// Add adds the scope s after the registry's scopes, with its tools, while
// the registry is in use: calls under way are not disturbed, and listing
// and calls that start after Add returns see the new tools. The names are
// held to the rules of NewRegistry, against every tool the registry has:
// if one is invalid or taken, Add adds nothing and reports every such name
// as a *NameError (joined with errors.Join when there are several). Add
// reads s.Tools once: to add more tools later, add another scope (it may
// have the same name). Add costs what it adds, not what the registry
// holds. Remove takes tools out.
func (r *Registry) Add(s *Scope) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts, errs := r.set().with([]*Scope{s})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	r.tools.Store(ts)
	return nil
}

// Remove takes the given tools out of the registry, while it is in use,
// and reports how many it held: calls under way are not disturbed, and
// listing and calls that start after Remove returns no longer see them,
// so their names are free for Add. A tool is matched by identity, not by
// name; a tool of a type that cannot be compared (==) is never matched. A
// scope left without tools is dropped, with its instructions. Remove costs
// what the registry holds.
func (r *Registry) Remove(tools ...Interface) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts, n := r.set().without(tools)
	if n > 0 {
		r.tools.Store(ts)
	}
	return n
}

// without returns the set after ts without the entries of tools, and how
// many there were; when there were none, it returns ts. The new set has
// arrays and an index of its own, so the sets before it are untouched. ts
// must be the registry's latest set, and the caller holds Registry.mu.
func (ts *toolSet) without(tools []Interface) (*toolSet, int) {
	gone := make(map[Interface]bool, len(tools))
	for _, t := range tools {
		if identifiable(t) {
			gone[t] = true
		}
	}
	if len(gone) == 0 {
		return ts, 0
	}
	index := &toolIndex{keys: map[string]int{}, scopes: map[*Scope]*predicateState{}}
	n := &toolSet{index: index, version: ts.version + 1, base: ts.version + 1}
	held := map[*Scope]bool{}
	for _, e := range ts.entries {
		if identifiable(e.tool) && gone[e.tool] {
			continue
		}
		index.keys[collisionKey(e.name)] = len(n.entries)
		index.byName.Store(e.name, len(n.entries))
		n.entries = append(n.entries, e)
		n.predicates = n.predicates || e.enabler != nil
		held[e.scope] = true
	}
	removed := len(ts.entries) - len(n.entries)
	if removed == 0 {
		return ts, 0
	}
	for _, s := range ts.scopes {
		if held[s.scope] || len(s.scope.Tools) == 0 { // a scope of instructions only stays
			n.scopes = append(n.scopes, s)
			index.scopes[s.scope] = s.state
			n.predicates = n.predicates || s.scope.Enabled != nil
		}
	}
	return n, removed
}

// identifiable reports whether t can be a map key: == on an interface
// panics when its dynamic type cannot be compared.
func identifiable(t Interface) bool {
	return t != nil && reflect.TypeOf(t).Comparable()
}

// with returns the set after ts with scopes added, and a *NameError for
// each tool whose name is invalid or taken. When there is an error, ts is
// left as it was and the set returned is nil. ts must be the registry's
// latest set, and the caller holds Registry.mu (or ts is noTools).
func (ts *toolSet) with(scopes []*Scope) (*toolSet, []error) {
	index := ts.index
	if index == nil {
		index = &toolIndex{keys: map[string]int{}, scopes: map[*Scope]*predicateState{}}
	}
	// Every name is checked before anything is written.
	var errs []error
	batch := map[string]string{} // collision key → name, of the tools added here
	batchScope := map[string]string{}
	for _, s := range scopes {
		for _, t := range s.Tools {
			name := t.Name()
			if err := CheckName(name); err != nil {
				errs = append(errs, &NameError{Name: name, Scopes: []string{s.Name}, Err: ErrInvalidName})
				continue
			}
			if _, own := t.(runner); !own {
				if specName := t.Spec().Name; specName != name {
					errs = append(errs, &NameError{Name: name, Other: specName, Scopes: []string{s.Name}, Err: ErrNameMismatch})
					continue
				}
			}
			key := collisionKey(name)
			if i, dup := index.keys[key]; dup {
				prev := ts.entries[i]
				errs = append(errs, &NameError{Name: name, Other: prev.name, Scopes: []string{prev.scope.Name, s.Name}, Err: ErrDuplicateName})
				continue
			}
			if other, dup := batch[key]; dup {
				errs = append(errs, &NameError{Name: name, Other: other, Scopes: []string{batchScope[key], s.Name}, Err: ErrDuplicateName})
				continue
			}
			batch[key], batchScope[key] = name, s.Name
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	n := &toolSet{scopes: ts.scopes, entries: ts.entries, index: index, predicates: ts.predicates, version: ts.version + 1, base: ts.base}
	for _, s := range scopes {
		state := index.scopes[s]
		if state == nil {
			state = &predicateState{}
			index.scopes[s] = state
			n.scopes = append(n.scopes, scopeEntry{scope: s, state: state})
			n.predicates = n.predicates || s.Enabled != nil
		}
		for _, t := range s.Tools {
			name := t.Name()
			enabler, _ := t.(Enabler)
			if g, ok := t.(gatedTool); ok && !g.gated() {
				enabler = nil // always enabled: not asked
			}
			n.predicates = n.predicates || enabler != nil
			index.keys[collisionKey(name)] = len(n.entries)
			index.byName.Store(name, len(n.entries))
			n.entries = append(n.entries, entry{tool: t, enabler: enabler, scope: s, scopeState: state, name: name, state: &predicateState{}, added: n.version})
		}
	}
	return n, nil
}

func collisionKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

// SetLogger sets where the registry logs: a predicate that starts to panic
// is logged once, with its stack, and not again until it has returned
// normally. Nil restores slog.Default.
func (r *Registry) SetLogger(l *slog.Logger) { r.logger.Store(l) }

func (r *Registry) log() *slog.Logger { return r.Logger() }

// Logger returns where the registry logs: the logger given to SetLogger,
// or slog.Default. Code that wraps the registry's calls (a Guard around
// middleware of its own) logs there too.
func (r *Registry) Logger() *slog.Logger {
	if l := r.logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// HasPredicates reports whether a scope or a tool of the registry has an
// enabled predicate (Scope.Enabled, an Enabler). When none has, every tool
// is enabled for every caller at all times, and a server need not ask.
func (r *Registry) HasPredicates() bool { return r.set().predicates }

// Version returns a number that changes each time Add or Remove changes
// the registry, and only then: code that follows the registry (an MCP
// server's Sync) looks at its tools again only when it has changed.
func (r *Registry) Version() uint64 { return r.set().version }

// Scopes returns the registry's scopes, in order.
func (r *Registry) Scopes() []*Scope {
	ts := r.set()
	scopes := make([]*Scope, len(ts.scopes))
	for i, s := range ts.scopes {
		scopes[i] = s.scope
	}
	return scopes
}

// Tools returns every tool of the registry, enabled or not, in scope order
// and then in the order of each scope's Tools, as Specs lists them.
func (r *Registry) Tools() []Interface {
	ts := r.set()
	tools := make([]Interface, len(ts.entries))
	for i, e := range ts.entries {
		tools[i] = e.tool
	}
	return tools
}

// Added returns the tools that Add added since the registry's version
// was since (Version), in order, with the version they bring it to, and
// true; or false when the registry has changed otherwise since then
// (Remove took tools out), or since is not one of its versions, and a
// follower must look at all its tools (Tools). It costs what was added,
// not what the registry holds: an MCP server's Sync after one Add looks
// at one tool.
func (r *Registry) Added(since uint64) (tools []Interface, version uint64, ok bool) {
	ts := r.set()
	if since < ts.base || since > ts.version {
		return nil, ts.version, false
	}
	i := sort.Search(len(ts.entries), func(i int) bool { return ts.entries[i].added > since })
	tools = make([]Interface, len(ts.entries)-i)
	for j, e := range ts.entries[i:] {
		tools[j] = e.tool
	}
	return tools, ts.version, true
}

// Lookup returns the tool named name, enabled or not.
func (r *Registry) Lookup(name string) (Interface, bool) {
	ts := r.set()
	i, ok := ts.lookup(name)
	if !ok {
		return nil, false
	}
	return ts.entries[i].tool, true
}

// ScopeOf returns the scope that holds the tool named name.
func (r *Registry) ScopeOf(name string) (*Scope, bool) {
	ts := r.set()
	i, ok := ts.lookup(name)
	if !ok {
		return nil, false
	}
	return ts.entries[i].scope, true
}

// Enabled reports whether the registry holds a tool named name that is
// enabled now: its scope's predicate and its own hold for ctx, as for a
// call. It evaluates that tool's predicates alone, so a search that asks
// about a few tools costs what they do, not what the registry holds.
func (r *Registry) Enabled(ctx context.Context, name string) bool {
	ts := r.set()
	i, ok := ts.lookup(name)
	if !ok {
		return false
	}
	e := &ts.entries[i]
	return r.scopeEnabled(ctx, e.scope, e.scopeState) && r.toolEnabled(ctx, e)
}

// Specs returns the specs of the tools enabled now, in scope order and then
// in the order of each scope's Tools. The specs of tools whose spec never
// changes (SpecVersion 0, as for New and NewRaw) are built once for each
// version of the registry and shared by every call of Specs: their schemas
// must not be changed (clone one with CloneSchemas to change it). Other
// tools are asked for their spec each time. Each spec is listed under the
// name the registry calls its tool by, the tool's Name when it was added:
// a spec whose name has changed since is listed under that name, which is
// the one Call takes.
func (r *Registry) Specs(ctx context.Context) []Spec {
	ts := r.set()
	cached := ts.fixedSpecs()
	var specs []Spec
	r.enabled(ctx, ts, func(i int) {
		if s := cached[i]; s != nil {
			specs = append(specs, *s)
		} else {
			specs = append(specs, ts.entries[i].spec())
		}
	})
	if specs == nil {
		specs = []Spec{}
	}
	return specs
}

// fixedSpecs returns the specs of the set's tools whose spec never
// changes, by index into entries (nil for the others), built on first use.
func (ts *toolSet) fixedSpecs() []*Spec {
	if p := ts.specs.Load(); p != nil {
		return *p
	}
	specs := make([]*Spec, len(ts.entries))
	for i, e := range ts.entries {
		if v, ok := e.tool.(SpecVersioner); ok && v.SpecVersion() == 0 {
			spec := e.spec()
			specs[i] = &spec
		}
	}
	ts.specs.CompareAndSwap(nil, &specs)
	return *ts.specs.Load()
}

// spec returns the tool's spec now, under the name the registry calls it by.
func (e *entry) spec() Spec {
	s := e.tool.Spec()
	s.Name = e.name
	if e.scope != nil && e.scope.DeferLoading {
		s.DeferLoading = true
		s.Namespace = e.scope.Name
	}
	return s
}

// Instructions returns the instructions of the scopes enabled now, in scope
// order.
func (r *Registry) Instructions(ctx context.Context) []Instruction {
	var out []Instruction
	for _, s := range r.set().scopes {
		if s.scope.Instructions != "" && r.scopeEnabled(ctx, s.scope, s.state) {
			out = append(out, Instruction{Scope: s.scope.Name, Text: s.scope.Instructions, Placement: s.scope.Placement})
		}
	}
	return out
}

// enabled evaluates every predicate once and calls yield with the index
// of each tool enabled now, in order.
func (r *Registry) enabled(ctx context.Context, ts *toolSet, yield func(i int)) {
	var scope *Scope // the scope of the tools before, and whether it is enabled
	scopeOK := false
	for i := range ts.entries {
		e := &ts.entries[i]
		if e.scope != scope {
			scope, scopeOK = e.scope, r.scopeEnabled(ctx, e.scope, e.scopeState)
		}
		if scopeOK && r.toolEnabled(ctx, e) {
			yield(i)
		}
	}
}

func (r *Registry) scopeEnabled(ctx context.Context, s *Scope, st *predicateState) bool {
	if s.Enabled == nil {
		return true
	}
	return r.safely(ctx, st, "scope", s.Name, s.Enabled)
}

func (r *Registry) toolEnabled(ctx context.Context, e *entry) bool {
	if e.enabler == nil {
		return true
	}
	return r.safely(ctx, e.state, "tool", e.name, e.enabler.Enabled)
}

// safely evaluates a predicate, counting a panic as false. The first panic
// of a run of them is logged; st remembers the run; it is nil only for a scope
// the registry does not hold.
func (r *Registry) safely(ctx context.Context, st *predicateState, kind, name string, pred func(context.Context) bool) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			if st == nil || !st.panicking.Swap(true) {
				r.log().ErrorContext(ctx, "tool: enabled predicate panicked; treating it as false until it returns normally",
					kind, name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
			ok = false
		}
	}()
	ok = pred(ctx)
	if st != nil && st.panicking.Load() {
		st.panicking.Store(false)
	}
	return ok
}

// EnabledNames returns the names of the tools enabled now, in the order of
// Specs, without building their specs.
func (r *Registry) EnabledNames(ctx context.Context) []string {
	ts := r.set()
	names := make([]string, 0, len(ts.entries))
	r.enabled(ctx, ts, func(i int) { names = append(names, ts.entries[i].name) })
	return names
}

// AllSpecs returns the specs of every tool of the registry, enabled or
// not, in the order of Tools, each as Specs would list it. It is for a
// caller that shows a model every tool and says apart which it may call
// (OpenAI's allowed_tools); to show a model the tools it may call, use
// Specs. The specs are shared as those of Specs are.
func (r *Registry) AllSpecs() []Spec {
	ts := r.set()
	cached := ts.fixedSpecs()
	specs := make([]Spec, len(ts.entries))
	for i := range ts.entries {
		if s := cached[i]; s != nil {
			specs[i] = *s
		} else {
			specs[i] = ts.entries[i].spec()
		}
	}
	return specs
}

// Spec returns the spec of the tool named name, enabled or not, as Specs
// would list it, and whether the registry holds it.
func (r *Registry) Spec(name string) (Spec, bool) {
	ts := r.set()
	i, ok := ts.lookup(name)
	if !ok {
		return Spec{}, false
	}
	if s := ts.fixedSpecs()[i]; s != nil {
		return *s, true
	}
	return ts.entries[i].spec(), true
}

// Use adds middleware around every call. Use(a, b) runs a outermost; a later
// Use wraps inside the earlier ones.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.middleware = append(r.middleware, mw...)
	var h Handler = HandlerFunc(r.dispatch)
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = r.middleware[i](h)
	}
	r.chain.Store(&h)
}

func (r *Registry) handler() Handler {
	if h := r.chain.Load(); h != nil {
		return *h
	}
	return HandlerFunc(r.dispatch)
}

// dispatch is the innermost handler: it finds the tool, checks that it is
// enabled, and streams the call.
func (r *Registry) dispatch(ctx context.Context, call Call) iter.Seq[Event] {
	t, refusal := r.resolve(ctx, call)
	if t == nil {
		return single(refusal)
	}
	return t.Stream(ctx, call)
}

// resolve finds the tool a call names and checks that it is enabled now;
// when it is not there or not enabled, it returns nil and the call's
// result.
func (r *Registry) resolve(ctx context.Context, call Call) (Interface, Result) {
	ts := r.set()
	i, ok := ts.lookup(call.Name)
	if !ok {
		return nil, r.unknown(ctx, call)
	}
	e := &ts.entries[i]
	if !r.scopeEnabled(ctx, e.scope, e.scopeState) || !r.toolEnabled(ctx, e) {
		return nil, disabled(call)
	}
	return e.tool, Result{}
}

// unknown is the result of a call to a name no scope provides.
func (r *Registry) unknown(ctx context.Context, call Call) Result {
	return ErrorResult(call, &UnknownToolError{Tool: call.Name, CallID: call.ID, Available: r.EnabledNames(ctx), Err: ErrUnknownTool})
}

// disabled is the result of a call to a tool not enabled now.
func disabled(call Call) Result {
	return ErrorResult(call, &DisabledToolError{Tool: call.Name, CallID: call.ID, Err: ErrDisabled})
}

// single yields one result.
func single(res Result) iter.Seq[Event] {
	return func(yield func(Event) bool) { yield(Event{Result: &res}) }
}

// Stream runs one call through the middleware and returns a single-use
// iterator over its progress events and then exactly one result: an unknown
// name gets an *UnknownToolError result, a disabled tool a
// *DisabledToolError result, and the middleware is guarded as Guard
// guards a handler, panics after the result logged through the registry's
// logger.
func (r *Registry) Stream(ctx context.Context, call Call) iter.Seq[Event] {
	events := guarded(ctx, r.handler(), call, r.log())
	if r.budget.Load() == nil {
		return events
	}
	return func(yield func(Event) bool) {
		for ev := range events {
			if ev.Result != nil {
				res := r.withinBudget(ctx, *ev.Result)
				ev.Result = &res
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// Guard returns h with the guarantees a Registry gives its calls, for a
// handler built without one (middleware around a tool, say): its stream
// yields progress events and then exactly one result, with the call's ID
// and tool name filled in when h left them empty; a panic in h before its
// result is a *PanicError result, and a stream that ends without one an
// ErrNoResult result. The result is passed on as soon as h yields it; what
// h yields after it is dropped (h's yield returns false for it), and a
// panic after it is logged through logger (slog.Default if nil) and
// dropped. What h does after its result is waited for, whether or not the
// consumer's loop stops at the result: h's yield returns true for the
// result, so middleware written the usual way — `if !yield(ev) { return }`
// — goes on past it, and the stream returns once h's has. A panic in the
// caller's own loop body is not h's: it propagates unchanged.
func Guard(h Handler, logger *slog.Logger) Handler {
	return HandlerFunc(func(ctx context.Context, call Call) iter.Seq[Event] {
		return guarded(ctx, h, call, cmp.Or(logger, slog.Default()))
	})
}

// guarded is the stream of Guard.
func guarded(ctx context.Context, h Handler, call Call, logger *slog.Logger) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		done := false    // the result has been yielded
		inYield := false // a panic now comes from the caller's loop body
		emit := func(ev Event) bool {
			inYield = true
			ok := yield(ev)
			inYield = false
			return ok
		}
		defer func() {
			if inYield {
				return // the caller's: recover is not called, so the panic goes on as it was
			}
			v := recover()
			switch {
			case v == nil:
			case done: // a panic after the result: the call is answered
				logger.ErrorContext(ctx, "tool: a handler panicked after its result", "tool", call.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			default:
				res := ErrorResult(call, &PanicError{Tool: call.Name, CallID: call.ID, Value: v, Stack: debug.Stack(), Err: ErrPanicked})
				done = true
				emit(Event{Result: &res})
			}
		}()
		for ev := range h.Stream(ctx, call) {
			if done {
				return // an event after the result: h is told to stop
			}
			if ev.Result != nil {
				done = true
				res := *ev.Result
				if res.CallID == "" {
					res.CallID = call.ID
				}
				if res.Tool == "" {
					res.Tool = call.Name
				}
				emit(Event{Result: &res})
				continue // whatever the consumer does, h goes on to its end, which is waited for
			}
			if !emit(ev) {
				done = true
				return
			}
		}
		if !done {
			done = true
			res := ErrorResult(call, &NoResultError{Tool: call.Name, CallID: call.ID, Err: ErrNoResult})
			emit(Event{Result: &res})
		}
	}
}

// run is Run for the registry: without middleware, it runs the tool
// without streaming it.
func (r *Registry) run(ctx context.Context, call Call) Result {
	if r.chain.Load() != nil {
		return drain(ctx, r, call, nil) // through Stream, which applies the budget
	}
	return r.withinBudget(ctx, r.runTool(ctx, call))
}

// runTool is run for a registry without middleware.
func (r *Registry) runTool(ctx context.Context, call Call) Result {
	t, refusal := r.resolve(ctx, call)
	if t == nil {
		return refusal
	}
	if t, ok := runnerOf(t); ok {
		return t.run(ctx, call)
	}
	return drain(ctx, Guard(t, r.log()), call, nil) // a tool of the user's own, guarded as Stream guards it
}
