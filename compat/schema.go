package compat

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
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
	// and undeclared properties are not compared. By default the check is
	// exact, as schema registries are: an open object accepted the new
	// property already, with any value.
	DeclaredOnly bool
}

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
func Input(old, new *jsonschema.Schema, opts *Options) []Change {
	return compare(old, new, false, opts)
}

// Output compares two versions of a tool's output schema, forward: every
// result valid under new must be valid under old, so that a caller written
// against old reads it. A nil schema accepts everything.
func Output(old, new *jsonschema.Schema, opts *Options) []Change {
	return compare(new, old, true, opts)
}

func compare(from, to *jsonschema.Schema, forward bool, opts *Options) []Change {
	changes, _ := compareCounting(from, to, forward, opts)
	return changes
}

// compareCounting is compare that also returns the steps spent.
func compareCounting(from, to *jsonschema.Schema, forward bool, opts *Options) ([]Change, int) {
	c := newChecker(from, to, forward, opts)
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
	return &checker{from: c.to, to: c.from, forward: !c.forward, declaredOnly: c.declaredOnly, maxDepth: c.maxDepth,
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

// An alternative is one way a from-side value can be valid: a conjunction
// of schemas, after $refs, allOf, and a choice in each anyOf and oneOf.
type alternative struct {
	nodes   []*jsonschema.Schema
	choices []choice
}

// A choice is the branch an alternative took in a oneOf or anyOf.
type choice struct {
	branches []*jsonschema.Schema
	index    int
	one      bool // oneOf
}

type group struct {
	branches []*jsonschema.Schema
	one      bool
}

// flatten follows the $refs and allOf of raw on the from side and collects
// the schemas that all apply, and the anyOf and oneOf left to choose in.
// exact is false when a reference could not be followed: the schemas
// found then accept more than raw does.
func (c *checker) flatten(raw []*jsonschema.Schema) (nodes []*jsonschema.Schema, groups []group, exact bool) {
	exact = true
	seen := map[*jsonschema.Schema]bool{}
	var visit func(s *jsonschema.Schema, depth int)
	visit = func(s *jsonschema.Schema, depth int) {
		if s == nil || seen[s] {
			return
		}
		if depth > c.maxDepth || !c.step(1) {
			exact = false
			return
		}
		seen[s] = true
		nodes = append(nodes, s)
		if s.Ref != "" {
			if t := c.from.resolve(s.Ref); t != nil {
				visit(t, depth+1)
			} else {
				exact = false
			}
		}
		if s.DynamicRef != "" {
			exact = false
		}
		for _, sub := range s.AllOf {
			visit(sub, depth+1)
		}
		if s.AnyOf != nil {
			groups = append(groups, group{s.AnyOf, false})
		}
		if s.OneOf != nil {
			groups = append(groups, group{s.OneOf, true})
		}
	}
	for _, s := range raw {
		visit(s, 0)
	}
	return nodes, groups, exact
}

// alternatives splits the conjunction raw into its alternatives.
func (c *checker) alternatives(raw []*jsonschema.Schema) ([]alternative, bool) {
	type pending struct {
		alternative
		groups []group
	}
	nodes, groups, exact := c.flatten(raw)
	work := []pending{{alternative{nodes: nodes}, groups}}
	limit := maxAlternatives
	var alts []alternative
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		if slices.ContainsFunc(w.nodes, isFalse) {
			continue // no value takes this way
		}
		if len(w.groups) == 0 {
			alts = append(alts, w.alternative)
			continue
		}
		g, rest := w.groups[0], w.groups[1:]
		limit += len(g.branches) // unions one inside another grow the list by their size; side by side, they multiply
		if len(alts)+len(work)+len(g.branches) > limit || !c.step(len(g.branches)+len(w.nodes)) {
			exact = false
			work = append(work, pending{w.alternative, rest})
			continue
		}
		for i, b := range g.branches {
			bn, bg, ex := c.flatten([]*jsonschema.Schema{b})
			exact = exact && ex
			work = append(work, pending{
				alternative{nodes: append(slices.Clip(w.nodes), bn...), choices: append(slices.Clip(w.choices), choice{g.branches, i, g.one})},
				append(slices.Clip(rest), bg...),
			})
		}
	}
	return alts, exact
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

// typeNodes restrict an alternative to one kind of value.
var typeNodes = map[string]*jsonschema.Schema{}

func init() {
	for _, t := range []string{"null", "boolean", "object", "array", "string", "integer", "number"} {
		typeNodes[t] = &jsonschema.Schema{Type: t}
	}
}

func (a alternative) with(s *jsonschema.Schema) alternative {
	return alternative{nodes: append(slices.Clip(a.nodes), s), choices: a.choices}
}

func (c *checker) pair(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	if vals, ok := c.finite(a, depth); ok {
		c.values(vals, b, pointer, depth)
		c.valuesAdded(vals, b, pointer)
		return
	}
	if isFalse(b) {
		c.report(pointer, "not", Breaking, "accepts no value any more")
		return
	}
	if b.Ref != "" {
		if t := c.to.resolve(b.Ref); t != nil {
			c.sub(a, t, pointer, depth+1)
		} else {
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
	if b.Not != nil && !c.disjoint(a, b.Not, depth) {
		c.report(pointer+"/not", "not", Unknown, "cannot tell whether every value still avoids what not excludes")
	}
	if b.If != nil || b.Then != nil || b.Else != nil {
		if !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool {
			return reflect.DeepEqual(n.If, b.If) && reflect.DeepEqual(n.Then, b.Then) && reflect.DeepEqual(n.Else, b.Else) && b.If.Ref == ""
		}) {
			c.report(pointer+"/if", "if", Unknown, "if/then/else differs; cannot tell which values it still accepts")
		}
	}
	c.keywords(a, b, pointer, depth)
}

// finite returns the values of an alternative when they are a known list:
// its enum or const, or the values of null and boolean.
func (c *checker) finite(a alternative, depth int) ([]any, bool) {
	var vals []any
	listed := false
	for _, n := range a.nodes {
		var these []any
		switch {
		case n.Const != nil:
			these = []any{*n.Const}
		case n.Enum != nil:
			these = n.Enum
		default:
			continue
		}
		if !listed {
			vals, listed = these, true
			continue
		}
		keys := map[string]bool{}
		for _, v := range these {
			keys[key(v)] = true
		}
		vals = slices.DeleteFunc(slices.Clone(vals), func(v any) bool { return !keys[key(v)] })
	}
	if !listed {
		k := c.kindsOf(a)
		if k&^(nullKind|boolKind) != 0 {
			return nil, false
		}
		vals = []any{nil, false, true}
	}
	if !c.step(len(vals)) {
		return nil, false
	}
	// Keep only the values the alternative accepts.
	var out []any
	for _, v := range vals {
		ok := true
		for _, n := range a.nodes {
			if c.admitsOwn(c.from, n, v, depth) == no {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	return out, true
}

// maxValueChanges is how many values a comparison names one by one
// before it sums up the rest.
const maxValueChanges = 5

// values checks that each value is still valid under b.
func (c *checker) values(vals []any, b *jsonschema.Schema, pointer string, depth int) {
	var refused, unsure []any
	for _, v := range vals {
		switch c.admits(c.to, b, v, depth) {
		case no:
			refused = append(refused, v)
		case maybe:
			unsure = append(unsure, v)
		}
	}
	for i, v := range refused {
		if i == maxValueChanges {
			c.report(pointer, "enum", Breaking, "and %d more values", len(refused)-i)
			break
		}
		if c.forward {
			c.report(pointer, "enum", Breaking, "value %s was not accepted before", show(v))
		} else {
			c.report(pointer, "enum", Breaking, "value %s is no longer accepted", show(v))
		}
	}
	for i, v := range unsure {
		if i == maxValueChanges {
			c.report(pointer, "enum", Unknown, "and %d more values", len(unsure)-i)
			break
		}
		c.report(pointer, "enum", Unknown, "cannot tell whether value %s is still accepted", show(v))
	}
}

// valuesAdded reports the values of b's enum that the from side did not
// have: values added to an input, or no longer produced by an output.
func (c *checker) valuesAdded(vals []any, b *jsonschema.Schema, pointer string) {
	if b.Enum == nil || !c.step(len(vals)+len(b.Enum)) {
		return
	}
	had := make(map[string]bool, len(vals))
	for _, v := range vals {
		had[key(v)] = true
	}
	var added []string
	for _, v := range b.Enum {
		if !had[key(v)] {
			added = append(added, show(v))
		}
	}
	if len(added) == 0 {
		return
	}
	if len(added) > maxValueChanges {
		added = append(added[:maxValueChanges], fmt.Sprintf("and %d more", len(added)-maxValueChanges))
	}
	if c.forward {
		c.report(pointer+"/enum", "enum", Compatible, "enum: values no longer produced: %s", strings.Join(added, ", "))
	} else {
		c.report(pointer+"/enum", "enum", Compatible, "enum: values added: %s", strings.Join(added, ", "))
	}
}

// kindsOf returns the kinds of value an alternative accepts.
func (c *checker) kindsOf(a alternative) kinds {
	k := allKinds
	for _, n := range a.nodes {
		k &= declaredKinds(n)
		if n.Const != nil {
			k &= valueKind(*n.Const)
		}
		if n.Enum != nil {
			var e kinds
			for _, v := range n.Enum {
				e |= valueKind(v)
			}
			k &= e
		}
	}
	return k
}

// toKinds returns the kinds of value a to-side schema may accept, following
// $ref, allOf and anyOf a few levels.
func (c *checker) toKinds(s *jsonschema.Schema, depth int) kinds {
	if s == nil {
		return allKinds
	}
	if isFalse(s) {
		return 0
	}
	if depth > 16 || !c.step(1) {
		return allKinds
	}
	k := declaredKinds(s)
	if s.Ref != "" {
		if t := c.to.resolve(s.Ref); t != nil {
			k &= c.toKinds(t, depth+1)
		}
	}
	for _, sub := range s.AllOf {
		k &= c.toKinds(sub, depth+1)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if list != nil {
			var u kinds
			for _, sub := range list {
				u |= c.toKinds(sub, depth+1)
			}
			k &= u
		}
	}
	if s.Const != nil {
		k &= valueKind(*s.Const)
	}
	if s.Enum != nil {
		var e kinds
		for _, v := range s.Enum {
			e |= valueKind(v)
		}
		k &= e
	}
	return k
}

// kindGroups are the kinds an alternative is split into when no single
// branch of a union takes all of it.
var kindGroups = []struct {
	k    kinds
	name string
}{{nullKind, "null"}, {boolKind, "boolean"}, {objectKind, "object"}, {arrayKind, "array"}, {stringKind, "string"}, {intKind | fracKind, "number"}}

// union checks a against anyOf (one false) or oneOf (one true) branches.
func (c *checker) union(a alternative, branches []*jsonschema.Schema, one bool, pointer string, depth int) {
	keyword := "anyOf"
	if one {
		keyword = "oneOf"
	}
	if c.accepted(a, branches, one, pointer, depth) {
		return
	}
	k := c.kindsOf(a)
	var parts []alternative
	var names []string
	for _, g := range kindGroups {
		if k&g.k == 0 {
			continue
		}
		name := g.name
		if g.k == intKind|fracKind && k&fracKind == 0 {
			name = "integer"
		}
		parts = append(parts, a.with(typeNodes[name]))
		names = append(names, name)
	}
	if len(parts) == 1 {
		parts[0] = a // no split to try
	}
	for i, part := range parts {
		if len(parts) > 1 && c.accepted(part, branches, one, pointer, depth) {
			continue
		}
		if j, ok := pairedIndex(part, branches, one); ok {
			// The branch at the same place says best what changed.
			start := len(c.changes)
			c.sub(part, branches[j], pointer+"/"+strconv.Itoa(j), depth+1)
			if slices.ContainsFunc(c.changes[start:], Change.Breaks) {
				continue
			}
		}
		var any kinds
		for _, br := range branches {
			any |= c.toKinds(br, 0)
		}
		kp := c.kindsOf(part)
		switch {
		case kp&^any != 0:
			from, to := kp.String(), any.String()
			old, new := c.oldNew(from, to)
			c.report(pointer, keyword, Breaking, "%s: the values of type %s are not accepted by any branch (old %s, new %s)", keyword, names[i], old, new)
		case one:
			c.report(pointer, keyword, Unknown, "oneOf: cannot show that each %s value matches exactly one branch", names[i])
		default:
			c.report(pointer, keyword, Unknown, "anyOf: no single branch accepts every %s value", names[i])
		}
	}
}

// pairedIndex returns the index of the branch a took in a from-side union
// of the same kind and length as branches.
// Only one such union makes a pair: with several, which one corresponds
// is not known.
func pairedIndex(a alternative, branches []*jsonschema.Schema, one bool) (int, bool) {
	index, found := 0, 0
	for _, ch := range a.choices {
		if ch.one == one && len(ch.branches) == len(branches) {
			index = ch.index
			found++
		}
	}
	return index, found == 1
}

// accepted reports whether a single branch accepts all of a (and, for
// oneOf, no other branch accepts any of it), keeping what that branch's
// comparison reported.
func (c *checker) accepted(a alternative, branches []*jsonschema.Schema, one bool, pointer string, depth int) bool {
	// Try the branch at the same place first: an unchanged union pairs up.
	order := make([]int, 0, len(branches))
	if j, ok := pairedIndex(a, branches, one); ok {
		order = append(order, j)
	}
	for i := range branches {
		if len(order) == 0 || i != order[0] {
			order = append(order, i)
		}
	}
	for _, j := range order {
		if c.trial(func() { c.sub(a, branches[j], pointer+"/"+strconv.Itoa(j), depth+1) }) {
			if !one || c.exclusive(a, branches, j, depth) {
				return true
			}
		}
	}
	return false
}

// exclusive reports whether no value of a is accepted by a branch other
// than j.
func (c *checker) exclusive(a alternative, branches []*jsonschema.Schema, j, depth int) bool {
	for k, other := range branches {
		if k == j || c.disjoint(a, other, depth) {
			continue
		}
		// a took branch j of a from-side oneOf of the same length: its
		// values match no other branch there, so none here if this one
		// accepts no more than its old counterpart.
		paired := slices.ContainsFunc(a.choices, func(ch choice) bool {
			if !ch.one || ch.index != j || len(ch.branches) != len(branches) {
				return false
			}
			r := c.reversed()
			r.checkConj([]*jsonschema.Schema{other}, ch.branches[k], "", depth+1)
			return !slices.ContainsFunc(r.changes, Change.Breaks) && !c.budget.gaveUp
		})
		if !paired {
			return false
		}
	}
	return true
}

// disjoint reports whether it is certain that no value of a is valid under
// the to-side schema s.
func (c *checker) disjoint(a alternative, s *jsonschema.Schema, depth int) bool {
	if c.kindsOf(a)&c.toKinds(s, 0) == 0 {
		return true
	}
	if vals, ok := c.finite(a, depth); ok {
		for _, v := range vals {
			if c.admits(c.to, s, v, depth) != no {
				return false
			}
		}
		return true
	}
	// A discriminating property: one a requires, with values s refuses.
	t := s
	if t.Ref != "" {
		if t = c.to.resolve(t.Ref); t == nil {
			return false
		}
	}
	for _, name := range c.required(a) {
		sp := t.Properties[name]
		if sp == nil || isTrue(sp) {
			continue
		}
		alts, exact := c.alternatives(c.propSchemas(a, name))
		if !exact {
			continue
		}
		all := true
		for _, pa := range alts {
			vals, ok := c.finite(pa, depth)
			if !ok || slices.ContainsFunc(vals, func(v any) bool { return c.admits(c.to, sp, v, depth) != no }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// required returns the names every value of a has.
func (c *checker) required(a alternative) []string {
	var names []string
	for _, n := range a.nodes {
		names = append(names, n.Required...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// propSchemas returns the from-side schemas that apply to the property
// name of a's values.
func (c *checker) propSchemas(a alternative, name string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, n := range a.nodes {
		matched := false
		if s, ok := n.Properties[name]; ok {
			out = append(out, s)
			matched = true
		}
		for p, s := range n.PatternProperties {
			re := c.patterns.compile(p)
			if re == nil {
				matched = true // unknown: leave additionalProperties out, which only accepts more
				continue
			}
			if re.MatchString(name) {
				out = append(out, s)
				matched = true
			}
		}
		if !matched && n.AdditionalProperties != nil {
			out = append(out, n.AdditionalProperties)
		}
	}
	return out
}

func declares(a alternative, name string) bool {
	return slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { _, ok := n.Properties[name]; return ok })
}

// keywords compares the keywords b applies to each kind of value.
func (c *checker) keywords(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	// A schema that says no type is a part (a branch of allOf, a $ref's
	// holder); what it leaves out is said elsewhere, so only what it adds
	// is reported.
	defer func(quiet bool) { c.quiet = quiet }(c.quiet)
	c.quiet = b.Type == "" && b.Types == nil
	ka := c.kindsOf(a)
	if ka == 0 {
		return
	}
	kb := declaredKinds(b)
	if lost := ka &^ kb; lost != 0 {
		c.changed(pointer+"/type", "type", Breaking, kindText(ka), kindText(kb))
	} else if ka != allKinds && kb != ka && (b.Type != "" || b.Types != nil) {
		c.changed(pointer+"/type", "type", Compatible, kindText(ka), kindText(kb))
	}
	if b.Enum != nil || b.Const != nil {
		kw := "enum"
		if b.Const != nil {
			kw = "const"
		}
		c.report(pointer+"/"+kw, kw, Breaking, "%s: values are now limited to %s", kw, showList(b))
	}
	k := ka & kb
	if k&stringKind != 0 {
		c.strings(a, b, pointer)
	}
	if k&(intKind|fracKind) != 0 {
		c.numbers(a, b, pointer, k&fracKind == 0)
	}
	if k&arrayKind != 0 {
		c.arrays(a, b, pointer, depth)
	}
	if k&objectKind != 0 {
		c.objects(a, b, pointer, depth)
	}
	c.annotations(a, b, pointer)
}

func kindText(k kinds) string {
	if k == allKinds {
		return "any"
	}
	return k.String()
}

func showList(b *jsonschema.Schema) string {
	if b.Const != nil {
		return show(*b.Const)
	}
	parts := make([]string, 0, min(len(b.Enum), 6))
	for i, v := range b.Enum {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, show(v))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// count returns an alternative's tightest lower (most) and upper (least)
// bound among the counts get reads; -1 when none.
func count(a alternative, get func(*jsonschema.Schema) (lo, hi *int)) (lo, hi int) {
	lo, hi = -1, -1
	for _, n := range a.nodes {
		l, h := get(n)
		if l != nil && *l > lo {
			lo = *l
		}
		if h != nil && (hi < 0 || *h < hi) {
			hi = *h
		}
	}
	return lo, hi
}

func countText(n int) string {
	if n < 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

// bounds compares a count's lower and upper bounds.
func (c *checker) bounds(pointer, loKw, hiKw string, aLo, aHi int, bLo, bHi *int) {
	switch {
	case bLo != nil && *bLo > max(aLo, 0):
		c.changed(pointer+"/"+loKw, loKw, Breaking, countText(aLo), countText(*bLo))
	case aLo > 0 && (bLo == nil || *bLo < aLo):
		c.changed(pointer+"/"+loKw, loKw, Compatible, countText(aLo), countText(derefOr(bLo, -1)))
	}
	switch {
	case bHi != nil && (aHi < 0 || *bHi < aHi):
		c.changed(pointer+"/"+hiKw, hiKw, Breaking, countText(aHi), countText(*bHi))
	case aHi >= 0 && (bHi == nil || *bHi > aHi):
		c.changed(pointer+"/"+hiKw, hiKw, Compatible, countText(aHi), countText(derefOr(bHi, -1)))
	}
}

func derefOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func (c *checker) strings(a alternative, b *jsonschema.Schema, pointer string) {
	lo, hi := count(a, func(n *jsonschema.Schema) (*int, *int) { return n.MinLength, n.MaxLength })
	c.bounds(pointer, "minLength", "maxLength", lo, hi, b.MinLength, b.MaxLength)
	c.assertion(a, pointer, "pattern", b.Pattern, func(n *jsonschema.Schema) string { return n.Pattern })
	c.assertion(a, pointer, "format", b.Format, func(n *jsonschema.Schema) string { return n.Format })
}

// assertion compares a string-valued keyword that cannot be compared
// otherwise than by equality (pattern, format).
func (c *checker) assertion(a alternative, pointer, kw, bv string, get func(*jsonschema.Schema) string) {
	var av []string
	for _, n := range a.nodes {
		if v := get(n); v != "" {
			av = append(av, v)
		}
	}
	q := func(s string) string {
		if s == "" {
			return "none"
		}
		return strconv.Quote(s)
	}
	first := ""
	if len(av) > 0 {
		first = av[0]
	}
	switch {
	case bv == "":
		if len(av) > 0 {
			c.changed(pointer+"/"+kw, kw, Compatible, q(first), "none")
		}
	case slices.Contains(av, bv):
	case len(av) == 0:
		c.changed(pointer+"/"+kw, kw, Breaking, "none", q(bv))
	default:
		c.changed(pointer+"/"+kw, kw, Unknown, q(first), q(bv))
	}
}

// A bound is a lower or upper limit on a number.
type bound struct {
	v       float64
	excl    bool
	set     bool
	keyword string
}

func (b bound) text() string {
	if !b.set {
		return "none"
	}
	return strconv.FormatFloat(b.v, 'g', -1, 64)
}

// numberBounds returns the tightest lower and upper bounds of nodes; with
// ints, as inclusive integer bounds.
func numberBounds(nodes []*jsonschema.Schema, ints bool) (lo, hi bound) {
	tighterLo := func(v float64, excl bool, kw string) {
		if ints {
			if excl {
				v, excl = math.Floor(v)+1, false
			} else {
				v = math.Ceil(v)
			}
		}
		if !lo.set || v > lo.v || v == lo.v && excl && !lo.excl {
			lo = bound{v, excl, true, kw}
		}
	}
	tighterHi := func(v float64, excl bool, kw string) {
		if ints {
			if excl {
				v, excl = math.Ceil(v)-1, false
			} else {
				v = math.Floor(v)
			}
		}
		if !hi.set || v < hi.v || v == hi.v && excl && !hi.excl {
			hi = bound{v, excl, true, kw}
		}
	}
	for _, n := range nodes {
		if n.Minimum != nil {
			tighterLo(*n.Minimum, false, "minimum")
		}
		if n.ExclusiveMinimum != nil {
			tighterLo(*n.ExclusiveMinimum, true, "exclusiveMinimum")
		}
		if n.Maximum != nil {
			tighterHi(*n.Maximum, false, "maximum")
		}
		if n.ExclusiveMaximum != nil {
			tighterHi(*n.ExclusiveMaximum, true, "exclusiveMaximum")
		}
	}
	return lo, hi
}

func (c *checker) numbers(a alternative, b *jsonschema.Schema, pointer string, ints bool) {
	aLo, aHi := numberBounds(a.nodes, ints)
	bLo, bHi := numberBounds([]*jsonschema.Schema{b}, ints)
	kw := func(x, y bound) string { return first(y.keyword, x.keyword) }
	switch {
	case bLo.set && (!aLo.set || bLo.v > aLo.v || bLo.v == aLo.v && bLo.excl && !aLo.excl):
		c.changed(pointer+"/"+bLo.keyword, kw(aLo, bLo), Breaking, aLo.text(), bLo.text())
	case aLo.set && (!bLo.set || bLo.v < aLo.v || bLo.v == aLo.v && aLo.excl && !bLo.excl):
		c.changed(pointer+"/"+kw(aLo, bLo), kw(aLo, bLo), Compatible, aLo.text(), bLo.text())
	}
	switch {
	case bHi.set && (!aHi.set || bHi.v < aHi.v || bHi.v == aHi.v && bHi.excl && !aHi.excl):
		c.changed(pointer+"/"+bHi.keyword, kw(aHi, bHi), Breaking, aHi.text(), bHi.text())
	case aHi.set && (!bHi.set || bHi.v > aHi.v || bHi.v == aHi.v && aHi.excl && !bHi.excl):
		c.changed(pointer+"/"+kw(aHi, bHi), kw(aHi, bHi), Compatible, aHi.text(), bHi.text())
	}
	if b.MultipleOf != nil && *b.MultipleOf > 0 {
		m := *b.MultipleOf
		divides := func(x float64) bool { q := x / m; return math.Abs(q-math.Round(q)) <= 1e-9*math.Max(1, math.Abs(q)) }
		var found []float64
		for _, n := range a.nodes {
			if n.MultipleOf != nil {
				found = append(found, *n.MultipleOf)
			}
		}
		ok := ints && divides(1) || slices.ContainsFunc(found, divides)
		if !ok {
			from := "none"
			if len(found) > 0 {
				from = strconv.FormatFloat(found[0], 'g', -1, 64)
			}
			c.changed(pointer+"/multipleOf", "multipleOf", Breaking, from, strconv.FormatFloat(m, 'g', -1, 64))
		}
	}
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (c *checker) arrays(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	lo, hi := count(a, func(n *jsonschema.Schema) (*int, *int) { return n.MinItems, n.MaxItems })
	c.bounds(pointer, "minItems", "maxItems", lo, hi, b.MinItems, b.MaxItems)
	if b.UniqueItems && !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return n.UniqueItems }) && (hi < 0 || hi > 1) {
		c.changed(pointer+"/uniqueItems", "uniqueItems", Breaking, "false", "true")
	}
	bPrefix, bTail := tuple(b)
	n := len(bPrefix)
	for _, node := range a.nodes {
		p, _ := tuple(node)
		n = max(n, len(p))
	}
	items := func(i int) []*jsonschema.Schema {
		var out []*jsonschema.Schema
		for _, node := range a.nodes {
			p, t := tuple(node)
			switch {
			case i >= 0 && i < len(p):
				out = append(out, p[i])
			case t != nil:
				out = append(out, t)
			}
		}
		return out
	}
	prefixKw := "prefixItems"
	if b.ItemsArray != nil {
		prefixKw = "items"
	}
	for i := 0; i < n && (hi < 0 || i < hi); i++ {
		if !c.step(1) {
			return
		}
		if i < len(bPrefix) {
			c.inside(items(i), bPrefix[i], pointer+"/"+prefixKw+"/"+strconv.Itoa(i), depth+1)
		} else if bTail != nil {
			tailKw := "items"
			if b.ItemsArray != nil {
				tailKw = "additionalItems"
			}
			c.inside(items(i), bTail, pointer+"/"+tailKw, depth+1)
		}
	}
	if bTail != nil && (hi < 0 || hi > n) {
		tailKw := "items"
		if b.ItemsArray != nil {
			tailKw = "additionalItems"
		}
		c.inside(items(-1), bTail, pointer+"/"+tailKw, depth+1)
	}
	if b.Contains != nil && !isTrue(b.Contains) {
		ok := false
		for _, node := range a.nodes {
			if node.Contains == nil || derefOr(node.MinContains, 1) < derefOr(b.MinContains, 1) || b.MaxContains != nil {
				continue
			}
			if c.trial(func() { c.inside([]*jsonschema.Schema{node.Contains}, b.Contains, pointer+"/contains", depth+1) }) {
				ok = true
				break
			}
		}
		if !ok {
			c.report(pointer+"/contains", "contains", Unknown, "contains differs; cannot tell which arrays it still accepts")
		}
	}
	if b.UnevaluatedItems != nil && !isTrue(b.UnevaluatedItems) {
		c.report(pointer+"/unevaluatedItems", "unevaluatedItems", Unknown, "unevaluatedItems is not compared")
	}
}

func quoteName(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func (c *checker) objects(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	required := c.required(a)
	has := make(map[string]bool, len(required))
	for _, name := range required {
		has[name] = true
	}
	bRequired := slices.Compact(slices.Sorted(slices.Values(b.Required)))
	bHas := make(map[string]bool, len(bRequired))
	for _, name := range bRequired {
		bHas[name] = true
	}
	c.step(len(required) + len(bRequired))
	for _, name := range bRequired {
		if !has[name] {
			old, new := c.oldNew("optional", "required")
			c.report(pointer+"/required", "required", Breaking, "property %q: %s → %s", name, old, new)
		}
	}
	for _, name := range required {
		if !bHas[name] && (declares(a, name) || b.Properties[name] != nil) {
			old, new := c.oldNew("required", "optional")
			c.report(pointer+"/required", "required", Compatible, "property %q: %s → %s", name, old, new)
		}
	}
	names := map[string]bool{}
	for _, n := range a.nodes {
		for name := range n.Properties {
			names[name] = true
		}
	}
	for name := range b.Properties {
		names[name] = true
	}
	if !c.step(len(names)) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		c.property(a, b, name, pointer, depth)
	}
	c.undeclared(a, b, pointer, depth)

	lo, hi := count(a, func(n *jsonschema.Schema) (*int, *int) { return n.MinProperties, n.MaxProperties })
	bLo := b.MinProperties
	if bLo != nil && *bLo <= max(lo, len(required)) && lo < *bLo {
		bLo = nil // the required properties already make that many
	}
	c.bounds(pointer, "minProperties", "maxProperties", lo, hi, bLo, b.MaxProperties)

	if b.PropertyNames != nil && !isTrue(b.PropertyNames) {
		var from []*jsonschema.Schema
		for _, n := range a.nodes {
			if n.PropertyNames != nil {
				from = append(from, n.PropertyNames)
			}
		}
		if closed := c.closedNames(a); closed != nil {
			for _, name := range closed {
				if c.admits(c.to, b.PropertyNames, name, depth) != yes {
					c.report(pointer+"/propertyNames", "propertyNames", Breaking, "propertyNames: property name %q is not accepted", name)
				}
			}
		} else if from == nil {
			c.changed(pointer+"/propertyNames", "propertyNames", Breaking, "none", "set")
		} else {
			c.inside(append(from, typeNodes["string"]), b.PropertyNames, pointer+"/propertyNames", depth+1)
		}
	}
	for name, deps := range dependentRequired(b) {
		if slices.ContainsFunc(c.propSchemas(a, name), isFalse) {
			continue // no value has the property
		}
		for _, d := range deps {
			if has[d] || slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return slices.Contains(dependentRequired(n)[name], d) }) {
				continue
			}
			c.report(pointer+"/dependentRequired/"+quoteName(name), "dependentRequired", Breaking, "dependentRequired: property %q needs %q", name, d)
		}
	}
	for name, ds := range dependentSchemas(b) {
		from := slices.Clone(a.nodes)
		for _, n := range a.nodes {
			if s := dependentSchemas(n)[name]; s != nil {
				from = append(from, s)
			}
		}
		c.checkConj(from, ds, pointer+"/dependentSchemas/"+quoteName(name), depth+1)
	}
	if b.UnevaluatedProperties != nil && !isTrue(b.UnevaluatedProperties) {
		c.report(pointer+"/unevaluatedProperties", "unevaluatedProperties", Unknown, "unevaluatedProperties is not compared")
	}
}

// closedNames returns the only property names a's values may have, or nil
// when they may have others.
func (c *checker) closedNames(a alternative) []string {
	for _, n := range a.nodes {
		if isFalse(n.AdditionalProperties) && n.PatternProperties == nil {
			return slices.Sorted(maps.Keys(n.Properties))
		}
	}
	return nil
}

// property compares the schemas that apply to one named property.
func (c *checker) property(a alternative, b *jsonschema.Schema, name, pointer string, depth int) {
	at := pointer + "/properties/" + quoteName(name)
	from := c.propSchemas(a, name)
	if slices.ContainsFunc(from, isFalse) {
		if _, ok := b.Properties[name]; ok && !declares(a, name) {
			if c.forward {
				c.report(at, "properties", Compatible, "property %q removed", name)
			} else {
				c.report(at, "properties", Compatible, "property %q added", name)
			}
		}
		return // no value has it
	}
	var to []*jsonschema.Schema
	var tos []string
	if s, ok := b.Properties[name]; ok {
		to, tos = append(to, s), append(tos, at)
	}
	for p, s := range b.PatternProperties {
		if re := c.patterns.compile(p); re == nil {
			c.report(pointer+"/patternProperties", "patternProperties", Unknown, "pattern %q cannot be read", p)
		} else if re.MatchString(name) {
			to, tos = append(to, s), append(tos, pointer+"/patternProperties/"+quoteName(p))
		}
	}
	declared := declares(a, name)
	if to == nil {
		switch add := b.AdditionalProperties; {
		case add == nil:
			if declared {
				if c.forward {
					c.report(at, "properties", Compatible, "property %q added (it was accepted with any value)", name)
				} else {
					c.report(at, "properties", Compatible, "property %q removed (it is still accepted, with any value)", name)
				}
			}
		case isFalse(add):
			if c.forward {
				c.report(at, "properties", Breaking, "property %q added, but the old schema refuses undeclared properties", name)
			} else {
				c.report(at, "properties", Breaking, "property %q removed, and undeclared properties are refused", name)
			}
		default:
			c.inside(from, add, at, depth+1)
		}
		return
	}
	if !declared && len(from) == 0 {
		if c.declaredOnly {
			if c.forward {
				c.report(at, "properties", Compatible, "property %q removed", name)
			} else {
				c.report(at, "properties", Compatible, "property %q added", name)
			}
			return
		}
		ok := c.trial(func() {
			for i, s := range to {
				c.inside(nil, s, tos[i], depth+1)
			}
		})
		if !ok {
			if c.forward {
				c.report(at, "properties", Breaking, "property %q removed: the new schema accepts any value there (the object is open)", name)
			} else {
				c.report(at, "properties", Breaking, "property %q added to an open object: an old call may hold it with any value (close the object with additionalProperties: false)", name)
			}
		}
		return
	}
	if !declared {
		if c.forward {
			c.report(at, "properties", Compatible, "property %q removed", name)
		} else {
			c.report(at, "properties", Compatible, "property %q added", name)
		}
	}
	for i, s := range to {
		c.inside(from, s, tos[i], depth+1)
	}
}

// undeclared compares what the two schemas say of properties neither
// declares.
func (c *checker) undeclared(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	if c.declaredOnly {
		return
	}
	var adds []*jsonschema.Schema
	aPatterns := map[string][]*jsonschema.Schema{}
	for _, n := range a.nodes {
		if n.AdditionalProperties != nil {
			adds = append(adds, n.AdditionalProperties)
		}
		for p, s := range n.PatternProperties {
			aPatterns[p] = append(aPatterns[p], s)
		}
	}
	closed := slices.ContainsFunc(adds, isFalse)
	same := len(aPatterns) == len(b.PatternProperties)
	for p := range b.PatternProperties {
		if _, ok := aPatterns[p]; !ok {
			same = false
		}
	}
	for _, p := range slices.Sorted(maps.Keys(aPatterns)) {
		at := pointer + "/patternProperties/" + quoteName(p)
		switch s, ok := b.PatternProperties[p]; {
		case ok:
			c.inside(aPatterns[p], s, at, depth+1)
		case len(b.PatternProperties) == 0:
			if b.AdditionalProperties != nil {
				c.inside(aPatterns[p], b.AdditionalProperties, at, depth+1)
			}
		default:
			c.report(at, "patternProperties", Unknown, "patternProperties differ; cannot tell which properties each now covers")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(b.PatternProperties)) {
		if _, ok := aPatterns[p]; ok || closed && len(aPatterns) == 0 {
			continue
		}
		at := pointer + "/patternProperties/" + quoteName(p)
		if len(aPatterns) == 0 {
			c.inside(adds, b.PatternProperties[p], at, depth+1)
		} else if same {
			continue
		} else {
			c.report(at, "patternProperties", Unknown, "patternProperties differ; cannot tell which properties each now covers")
		}
	}
	add := b.AdditionalProperties
	if closed || add == nil || isTrue(add) {
		if closed && add != nil && !isFalse(add) && !isTrue(add) {
			return
		}
		if closed && (add == nil || isTrue(add)) {
			c.changed(pointer+"/additionalProperties", "additionalProperties", Compatible, "false", "any")
		}
		return
	}
	if !same && len(aPatterns) > 0 {
		return // reported above
	}
	if isFalse(add) {
		c.changed(pointer+"/additionalProperties", "additionalProperties", Breaking, "any", "false")
		return
	}
	c.inside(adds, add, pointer+"/additionalProperties", depth+1)
}

// annotations compares default and deprecated. A changed default changes
// what an input that leaves the property out means, so it breaks an input
// schema; an output's default is only documentation.
func (c *checker) annotations(a alternative, b *jsonschema.Schema, pointer string) {
	var from json.RawMessage
	deprecated := false
	for _, n := range a.nodes {
		if from == nil && n.Default != nil {
			from = n.Default
		}
		deprecated = deprecated || n.Deprecated
	}
	if !sameJSON(from, b.Default) {
		effect := Breaking
		if c.forward {
			effect = Compatible
		}
		c.changed(pointer+"/default", "default", effect, rawText(from), rawText(b.Default))
	}
	if b.Deprecated != deprecated && !c.forward {
		c.changed(pointer+"/deprecated", "deprecated", Compatible, strconv.FormatBool(deprecated), strconv.FormatBool(b.Deprecated))
	}
}

func sameJSON(x, y json.RawMessage) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	var vx, vy any
	if json.Unmarshal(x, &vx) != nil || json.Unmarshal(y, &vy) != nil {
		return string(x) == string(y)
	}
	return key(vx) == key(vy)
}

func rawText(raw json.RawMessage) string {
	if raw == nil {
		return "none"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return show(v)
}
