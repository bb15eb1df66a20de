package compat

import (
	"math"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

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
			if t := c.from.resolve(s); t != nil {
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

// finite returns the values of an alternative when they are a known list:
// its enum or const, or the values of null and boolean, and with few set
// those of few.
func (c *checker) finite(a alternative, depth int, few bool) ([]any, bool) {
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
		switch {
		case k&^(nullKind|boolKind) == 0:
			vals = []any{nil, false, true}
		case !few:
			return nil, false
		default:
			var ok bool
			if vals, ok = c.few(a); !ok {
				return nil, false
			}
		}
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

// maxFew is how many integers a range may hold for few to list them.
const maxFew = 64

// few returns a list that holds every value of a, when a's type and
// bounds allow only a few: null, the booleans, the integers of a short
// range, and the empty string, array or object where a length of 0 is
// the most.
func (c *checker) few(a alternative) ([]any, bool) {
	k := c.kindsOf(a)
	var vals []any
	if k&nullKind != 0 {
		vals = append(vals, nil)
	}
	if k&boolKind != 0 {
		vals = append(vals, false, true)
	}
	if k&fracKind != 0 {
		return nil, false
	}
	if k&intKind != 0 {
		lo, hi := numberBounds(a.nodes, true)
		if !lo.set || !hi.set || hi.v-lo.v >= maxFew {
			return nil, false
		}
		for v := lo.v; v <= hi.v; v++ {
			vals = append(vals, v)
		}
	}
	zero := func(get func(*jsonschema.Schema) *int) bool {
		return slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { p := get(n); return p != nil && *p == 0 })
	}
	for _, e := range []struct {
		k     kinds
		get   func(*jsonschema.Schema) *int
		empty any
	}{
		{stringKind, func(n *jsonschema.Schema) *int { return n.MaxLength }, ""},
		{arrayKind, func(n *jsonschema.Schema) *int { return n.MaxItems }, []any{}},
		{objectKind, func(n *jsonschema.Schema) *int { return n.MaxProperties }, map[string]any{}},
	} {
		if k&e.k != 0 {
			if !zero(e.get) {
				return nil, false
			}
			vals = append(vals, e.empty)
		}
	}
	return vals, true
}

// kindsOf returns the kinds of value an alternative accepts.
func (c *checker) kindsOf(a alternative) kinds {
	k := allKinds
	for _, n := range a.nodes {
		k &= declaredKinds(n)
		if m := n.MultipleOf; m != nil && *m > 0 && *m == math.Trunc(*m) {
			k &^= fracKind // a multiple of an integer is an integer
		}
		if n.Not != nil && onlyType(n.Not) {
			k &^= declaredKinds(n.Not)
		}
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

// onlyType reports whether s says nothing but its type.
func onlyType(s *jsonschema.Schema) bool {
	if s.Type == "" && s.Types == nil {
		return false
	}
	t := *s
	t.Type, t.Types = "", nil
	return isTrue(&t)
}

func declares(a alternative, name string) bool {
	return slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { _, ok := n.Properties[name]; return ok })
}
