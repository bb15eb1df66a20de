package compat

import (
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

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
		if t := c.to.resolve(s); t != nil {
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
	if vals, ok := c.finite(a, depth, true); ok {
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
		if t = c.to.resolve(t); t == nil {
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
			vals, ok := c.finite(pa, depth, true)
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
