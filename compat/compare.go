package compat

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Options bound and tune a comparison. The zero value selects every default.
type Options struct {
	// MaxSteps bounds the work of one comparison, counted in schema pairs
	// and keywords visited. When it is reached the comparison stops and
	// reports a change of kind KindLimit whose effect is Unknown. Zero
	// selects DefaultMaxSteps.
	MaxSteps int
	// MaxDepth bounds how deeply nested schemas are compared; a part
	// nested deeper is reported as Unknown. Zero selects DefaultMaxDepth.
	MaxDepth int
	// DeclaredOnly assumes callers send only the properties a schema
	// declares, as models and typed clients do. Adding a property to an
	// object that does not say additionalProperties is then compatible,
	// and properties the schema says nothing of are not compared; the
	// values of a map (additionalProperties or patternProperties with a
	// schema) are declared, and are compared. By default the check is
	// exact, as schema registries are: an open object accepted the new
	// property already, with any value.
	DeclaredOnly bool
	// Mode says which callers a change must keep working: Backward (the
	// zero value), Forward or Full.
	Mode Mode
}

// A Mode says which callers of a tool a change must keep working, after
// the compatibility modes of schema registries.
type Mode int

const (
	// Backward keeps the callers of the old version working: every call
	// valid under the old input is valid under the new one, and every
	// result of the new output was valid under the old one. It is the
	// default.
	Backward Mode = iota
	// Forward keeps the callers of the new version working against the
	// old one, as during a rolling deploy, when a client that listed the
	// new version reaches a replica still running the old: every call
	// valid under the new input is valid under the old one, every result
	// of the old output is valid under the new one, and a tool added or
	// made safer in its annotations breaks.
	Forward
	// Full is Backward and Forward together.
	Full
)

// String returns "backward", "forward" or "full".
func (m Mode) String() string {
	switch m {
	case Backward:
		return "backward"
	case Forward:
		return "forward"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the Mode named s: "backward", "forward" or "full".
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{Backward, Forward, Full} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("compat: unknown mode %q: want backward, forward or full", s)
}

func (o *Options) mode() Mode {
	if o == nil {
		return Backward
	}
	return o.Mode
}

// forwardNote ends the message of a change that breaks only forward.
const forwardNote = " (forward: a caller of the new version reaching the old one)"

// Defaults for Options.
const (
	DefaultMaxSteps = 1 << 18
	DefaultMaxDepth = 256
)

// maxAlternatives, plus the number of branches met, bounds how many
// alternatives the anyOf and oneOf of the old schema (the new one, for
// Output) are split into; beyond it the remaining unions are ignored,
// which can only turn an answer into Unknown.
const maxAlternatives = 64

// Input compares two versions of a tool's input schema, backward: every
// argument object valid under old must be valid under new. It returns
// every change found, sorted by pointer; Breaks says whether any breaks.
// A nil schema accepts everything.
//
// With Options.Mode Forward it compares forward instead (every value valid
// under new must be valid under old), and with Full both ways.
func Input(old, new *jsonschema.Schema, opts *Options) []Change {
	return both(opts.mode(), func() []Change { return compare(old, new, false, false, opts) },
		func() []Change { return compare(new, old, true, false, opts) })
}

// both runs the backward and the forward comparison as mode asks, and
// merges their changes: a compatible change that the other direction
// finds breaking at the same place is left out.
func both(mode Mode, backward, forward func() []Change) []Change {
	switch mode {
	case Forward:
		return markForward(forward())
	case Full:
		return merge(backward(), markForward(forward()))
	}
	return backward()
}

// markForward notes on each change that breaks that it breaks forward.
func markForward(changes []Change) []Change {
	for i, c := range changes {
		if c.Breaks() {
			changes[i].Message += forwardNote
		}
	}
	return changes
}

// merge joins the changes of two directions.
func merge(a, b []Change) []Change {
	all := append(slices.Clip(a), b...)
	type place struct{ tool, pointer, kind string }
	breaks := map[place]bool{}
	for _, c := range all {
		if c.Breaks() {
			breaks[place{c.Tool, c.Pointer, c.Kind}] = true
		}
	}
	all = slices.DeleteFunc(all, func(c Change) bool { return c.Effect == Compatible && breaks[place{c.Tool, c.Pointer, c.Kind}] })
	return sortChanges(all)
}

// Output compares two versions of a tool's output schema, forward: every
// result valid under new must be valid under old, so that a caller written
// against old reads it. A nil schema accepts everything.
//
// With Options.Mode Forward it compares backward instead (every result
// valid under old must be valid under new), and with Full both ways.
func Output(old, new *jsonschema.Schema, opts *Options) []Change {
	return both(opts.mode(), func() []Change { return compare(new, old, true, true, opts) },
		func() []Change { return compare(old, new, false, true, opts) })
}

// compare checks that the values of from are values of to; forward says
// from is the new schema, output that the schemas are outputs.
func compare(from, to *jsonschema.Schema, forward, output bool, opts *Options) []Change {
	changes, _ := compareCounting(from, to, forward, output, opts)
	return changes
}

// compareCounting is compare that also returns the steps spent.
func compareCounting(from, to *jsonschema.Schema, forward, output bool, opts *Options) ([]Change, int) {
	c := newChecker(from, to, forward, opts)
	c.output = output
	if !c.noIdentical && c.identical(from, to) {
		return nil, c.budget.steps // the same document, whatever it says
	}
	for _, s := range []*jsonschema.Schema{from, to} {
		if kw, found := caseVariant(s); found != "" {
			which, other := c.oldNew("old", "new")
			if s == to {
				which = other
			}
			return []Change{{Kind: kw, Effect: Unknown, Message: fmt.Sprintf(
				"the %s schema has the key %q, which is %q in another case: validators ignore it, but it may have been read as %q", which, found, kw, kw)}}, c.budget.steps
		}
	}
	c.checkConj([]*jsonschema.Schema{from}, to, "", 0)
	changes := c.changes
	if c.budget.gaveUp {
		changes = append(changes, Change{Kind: KindLimit, Effect: Unknown,
			Message: fmt.Sprintf("the comparison stopped after %d steps (Options.MaxSteps)", c.budget.max)})
	}
	return sortChanges(changes), c.budget.steps
}

// A budget counts the steps of a comparison, shared by its reversed checks.
type budget struct {
	steps, max int
	gaveUp     bool
}

// A checker decides whether every value of a "from" schema is a value of a
// "to" schema: from is the old schema for Input, the new one for Output.
// It reports each difference in old-then-new terms.
type checker struct {
	from, to     *resolver
	forward      bool // from is the new schema
	output       bool // the schemas are outputs
	declaredOnly bool
	maxDepth     int
	budget       *budget
	patterns     patterns
	enums        map[*jsonschema.Schema]map[string]bool
	ids          map[*jsonschema.Schema]uint32
	memo         map[string]*Change // pairs compared: the first breaking change found (pointer relative to the pair's), or nil
	quiet        bool               // the to-side schema has no type: relaxations are not worth reporting
	journal      []string           // memo keys in the order added, for trials to undo
	active       map[string]int     // pairs being compared, with the level each started at
	level        int                // how many properties and items deep the comparison is
	changes      []Change
	equiv        *equivalence // schemas found the same, or not
	noIdentical  bool         // tests: skip the check for identical documents
}

func newChecker(from, to *jsonschema.Schema, forward bool, opts *Options) *checker {
	if opts == nil {
		opts = &Options{}
	}
	b := &budget{max: cmpOr(opts.MaxSteps, DefaultMaxSteps)}
	return &checker{
		from: newResolver(from), to: newResolver(to), forward: forward, declaredOnly: opts.DeclaredOnly,
		maxDepth: cmpOr(opts.MaxDepth, DefaultMaxDepth), budget: b, patterns: patterns{}, enums: map[*jsonschema.Schema]map[string]bool{},
		ids: map[*jsonschema.Schema]uint32{}, memo: map[string]*Change{}, active: map[string]int{},
	}
}

func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// reversed returns a checker of the opposite inclusion (to within from),
// sharing the budget.
func (c *checker) reversed() *checker {
	return &checker{from: c.to, to: c.from, forward: !c.forward, output: c.output, declaredOnly: c.declaredOnly, maxDepth: c.maxDepth,
		budget: c.budget, patterns: c.patterns, enums: map[*jsonschema.Schema]map[string]bool{}, ids: c.ids, memo: map[string]*Change{}, active: map[string]int{}}
}

// step spends n steps and reports whether the budget still holds.
func (c *checker) step(n int) bool {
	b := c.budget
	b.steps += n
	if b.steps > b.max {
		b.gaveUp = true
		return false
	}
	return true
}

// oldNew orders a from-side and a to-side value as old, new.
func (c *checker) oldNew(from, to string) (string, string) {
	if c.forward {
		return to, from
	}
	return from, to
}

func (c *checker) report(pointer, kind string, effect Effect, format string, args ...any) {
	if effect == Compatible && c.quiet {
		return
	}
	c.changes = append(c.changes, Change{Pointer: pointer, Kind: kind, Effect: effect, Message: fmt.Sprintf(format, args...)})
}

// changed reports a keyword whose value differs, old before new.
func (c *checker) changed(pointer, kind string, effect Effect, from, to string) {
	old, new := c.oldNew(from, to)
	c.report(pointer, kind, effect, "%s %s → %s", kind, old, new)
}

// trial runs f and keeps what it reported only if nothing breaks; it
// reports whether nothing did.
func (c *checker) trial(f func()) bool {
	start, j := len(c.changes), len(c.journal)
	f()
	if !slices.ContainsFunc(c.changes[start:], Change.Breaks) && !c.budget.gaveUp {
		return true
	}
	c.changes = c.changes[:start]
	for _, k := range c.journal[j:] {
		delete(c.memo, k)
	}
	c.journal = c.journal[:j]
	return false
}

// inside is checkConj for a part of the value: a property, an item.
func (c *checker) inside(raw []*jsonschema.Schema, b *jsonschema.Schema, pointer string, depth int) {
	c.level++
	c.checkConj(raw, b, pointer, depth)
	c.level--
}

// checkConj checks that every value valid under all of raw (from side) is
// valid under b (to side), and reports each difference at pointer.
func (c *checker) checkConj(raw []*jsonschema.Schema, b *jsonschema.Schema, pointer string, depth int) {
	if isTrue(b) {
		return
	}
	alts, exact := c.alternatives(raw)
	for _, a := range alts {
		start := len(c.changes)
		c.sub(a, b, pointer, depth)
		if !exact {
			for i := start; i < len(c.changes); i++ {
				if c.changes[i].Effect == Breaking {
					c.changes[i].Effect = Unknown
				}
			}
		}
	}
}

func (c *checker) id(s *jsonschema.Schema) uint32 {
	id, ok := c.ids[s]
	if !ok {
		id = uint32(len(c.ids) + 1)
		c.ids[s] = id
	}
	return id
}

func (c *checker) key(nodes []*jsonschema.Schema, b *jsonschema.Schema) string {
	ids := make([]uint32, 0, len(nodes)+1)
	for _, n := range nodes {
		ids = append(ids, c.id(n))
	}
	slices.Sort(ids)
	ids = append(slices.Compact(ids), 0, c.id(b))
	buf := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint32(buf, id)
	}
	return string(buf)
}

// sub compares one alternative with b once: a pair met again while it is
// compared is assumed to hold (values are finite, so a recursive schema is
// compared by its structure), and a pair compared before repeats what it
// found.
func (c *checker) sub(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	if isTrue(b) {
		return
	}
	if depth > c.maxDepth {
		c.report(pointer, KindLimit, Unknown, "nested deeper than %d schemas (Options.MaxDepth)", c.maxDepth)
		return
	}
	if !c.step(1) {
		return
	}
	k := c.key(a.nodes, b)
	if found, ok := c.memo[k]; ok {
		if found != nil { // the changes are reported where the pair was first met
			ch := *found
			ch.Pointer = pointer + ch.Pointer
			c.changes = append(c.changes, ch)
		}
		return
	}
	if level, ok := c.active[k]; ok {
		// Met again inside itself. Past a property or an item the value
		// met is a smaller part of the first one, so assuming the pair
		// holds is sound (values are finite); with nothing in between
		// ({"anyOf": [{"$ref": "#"}, ...]}) it would not be.
		if level == c.level {
			c.report(pointer, "$ref", Unknown, "a $ref cycle that no property or item passes through")
		}
		return
	}
	if slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return c.same(n, b) }) {
		c.memo[k] = nil // the values of a are valid under one of its schemas, which is b
		c.journal = append(c.journal, k)
		return
	}
	c.active[k] = c.level
	start := len(c.changes)
	c.pair(a, b, pointer, depth)
	delete(c.active, k)
	var found *Change
	if i := slices.IndexFunc(c.changes[start:], Change.Breaks); i >= 0 {
		ch := c.changes[start+i]
		ch.Pointer = strings.TrimPrefix(ch.Pointer, pointer)
		found = &ch
	}
	c.memo[k] = found
	c.journal = append(c.journal, k)
}

func (c *checker) pair(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	if vals, ok := c.finite(a, depth, b.Enum != nil || b.Const != nil); ok {
		c.values(vals, b, pointer, depth)
		c.valuesAdded(vals, b, pointer)
		return
	}
	if isFalse(b) {
		c.report(pointer, "not", Breaking, "accepts no value any more")
		return
	}
	if b.Ref != "" {
		if t := c.to.resolve(b); t != nil {
			c.sub(a, t, pointer, depth+1)
		} else if !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool {
			return n.Ref != "" && c.from.resolve(n) == nil && c.from.target(n, n.Ref) == c.to.target(b, b.Ref)
		}) { // the same reference out of both documents holds as it did
			c.report(pointer+"/$ref", "$ref", Unknown, "cannot follow $ref %q", b.Ref)
		}
	}
	if b.DynamicRef != "" {
		c.report(pointer+"/$dynamicRef", "$dynamicRef", Unknown, "cannot follow $dynamicRef %q", b.DynamicRef)
	}
	for i, sub := range b.AllOf {
		c.sub(a, sub, pointer+"/allOf/"+strconv.Itoa(i), depth+1)
	}
	if b.AnyOf != nil {
		c.union(a, b.AnyOf, false, pointer+"/anyOf", depth)
	}
	if b.OneOf != nil {
		c.union(a, b.OneOf, true, pointer+"/oneOf", depth)
	}
	if b.Not != nil && !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return n.Not != nil && c.same(n.Not, b.Not) }) &&
		!c.disjoint(a, b.Not, depth) {
		c.report(pointer+"/not", "not", Unknown, "cannot tell whether every value still avoids what not excludes")
	}
	if b.If != nil || b.Then != nil || b.Else != nil {
		if !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool {
			return (n.If != nil || n.Then != nil || n.Else != nil) && c.same(n.If, b.If) && c.same(n.Then, b.Then) && c.same(n.Else, b.Else)
		}) {
			c.report(pointer+"/if", "if", Unknown, "if/then/else differs; cannot tell which values it still accepts")
		}
	}
	c.keywords(a, b, pointer, depth)
}
