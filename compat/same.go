package compat

import (
	"maps"
	"math"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// An equivalence decides whether a from-side schema and a to-side schema
// accept the same values, by their structure: the same keywords with the
// same values (sets compared as sets, the order of properties ignored),
// and subschemas that are the same in turn. Annotations that do not change
// what a schema accepts (title, description, $comment, examples,
// readOnly, writeOnly) are ignored; default and deprecated are not, since
// compat reports them.
//
// A $ref is compared by its target: two references are the same when the
// schemas they lead to are, a pair met again while it is compared being
// assumed the same (a bisimulation: validation follows both alike, step by
// step). A reference to another document is the same only as the same
// URI. A $dynamicRef, whose target depends on the path that reached it,
// is the same only in a strict comparison.
//
// A strict comparison also compares $refs by their text, $defs and
// definitions, so that two strictly equal documents are the same document
// written twice: every keyword, $dynamicRef included, means the same in
// both.
type equivalence struct {
	c      *checker
	strict bool
	spend  func(n int) bool
	// Pairs shown the same or not; a pair being compared is active, at
	// its depth on the stack, and is assumed the same when met again.
	proven, refuted map[[2]*jsonschema.Schema]bool
	active          map[[2]*jsonschema.Schema]int
	stack           int
	low             int // the lowest active pair assumed since the pair on top began
}

func newEquivalence(c *checker, strict bool, spend func(int) bool) *equivalence {
	return &equivalence{c: c, strict: strict, spend: spend, proven: map[[2]*jsonschema.Schema]bool{},
		refuted: map[[2]*jsonschema.Schema]bool{}, active: map[[2]*jsonschema.Schema]int{}, low: math.MaxInt}
}

// same reports whether x (from side) and y (to side) accept the same
// values; false when it cannot tell within the budget. Its steps are the
// comparison's.
func (c *checker) same(x, y *jsonschema.Schema) bool {
	if c.equiv == nil {
		c.equiv = newEquivalence(c, false, c.step)
	}
	return c.equiv.schema(x, y, 0)
}

// identical reports whether from and to are the same document: strictly
// equal (see equivalence). It spends a budget of its own, of the same
// size as the comparison's, so that the check costs at most twice the
// steps it did.
func (c *checker) identical(from, to *jsonschema.Schema) bool {
	steps := 0
	return c.identicalWithin(from, to, func(n int) bool { steps += n; return steps <= c.budget.max })
}

// identicalWithin is identical spending steps through spend.
func (c *checker) identicalWithin(from, to *jsonschema.Schema, spend func(int) bool) bool {
	return newEquivalence(c, true, spend).schema(from, to, 0)
}

func (e *equivalence) schema(x, y *jsonschema.Schema, depth int) bool {
	if x == y && e.c.from.root == e.c.to.root {
		return true // the same schema of the same document
	}
	if isTrue(x) || isTrue(y) {
		return isTrue(x) && isTrue(y)
	}
	k := [2]*jsonschema.Schema{x, y}
	switch {
	case e.proven[k]:
		return true
	case e.refuted[k]:
		return false
	case depth > e.c.maxDepth || !e.spend(1):
		return false
	}
	if d, ok := e.active[k]; ok {
		e.low = min(e.low, d)
		return true
	}
	e.stack++
	d := e.stack
	e.active[k] = d
	outer := e.low
	e.low = math.MaxInt
	ok := e.keywords(x, y, depth+1)
	delete(e.active, k)
	e.stack--
	switch {
	case !ok:
		e.refuted[k] = true // shown even with what was assumed
	case e.low >= d:
		e.proven[k] = true // it assumed only itself, or pairs since shown
		e.low = outer
	default:
		e.low = min(outer, e.low) // true if the pairs it assumed are
	}
	return ok
}

func (e *equivalence) keywords(x, y *jsonschema.Schema, depth int) bool {
	c := e.c
	if x.ID != y.ID || x.Schema != y.Schema || x.Anchor != y.Anchor || x.DynamicAnchor != y.DynamicAnchor ||
		x.Pattern != y.Pattern || x.Format != y.Format || x.ContentEncoding != y.ContentEncoding || x.ContentMediaType != y.ContentMediaType ||
		x.UniqueItems != y.UniqueItems || x.Deprecated != y.Deprecated || declaredKinds(x) != declaredKinds(y) ||
		(x.Type == "" && x.Types == nil) != (y.Type == "" && y.Types == nil) {
		return false
	}
	if !sameFloat(x.MultipleOf, y.MultipleOf) || !sameFloat(x.Minimum, y.Minimum) || !sameFloat(x.Maximum, y.Maximum) ||
		!sameFloat(x.ExclusiveMinimum, y.ExclusiveMinimum) || !sameFloat(x.ExclusiveMaximum, y.ExclusiveMaximum) {
		return false
	}
	for _, p := range [][2]*int{{x.MinLength, y.MinLength}, {x.MaxLength, y.MaxLength}, {x.MinItems, y.MinItems}, {x.MaxItems, y.MaxItems},
		{x.MinContains, y.MinContains}, {x.MaxContains, y.MaxContains}, {x.MinProperties, y.MinProperties}, {x.MaxProperties, y.MaxProperties}} {
		if (p[0] == nil) != (p[1] == nil) || p[0] != nil && *p[0] != *p[1] {
			return false
		}
	}
	if !e.spend(len(x.Enum)+len(y.Enum)+len(x.Required)+len(y.Required)) || !sameValues(x.Enum, y.Enum) ||
		(x.Const == nil) != (y.Const == nil) || x.Const != nil && key(*x.Const) != key(*y.Const) ||
		!sameJSON(x.Default, y.Default) || !sameSet(x.Required, y.Required) || !sameExtra(x.Extra, y.Extra) {
		return false
	}
	xd, yd := dependentRequired(x), dependentRequired(y)
	if len(xd) != len(yd) {
		return false
	}
	for name, list := range xd {
		if other, ok := yd[name]; !ok || !sameSet(list, other) {
			return false
		}
	}
	if !e.ref(x, y, depth) {
		return false
	}
	if x.DynamicRef != y.DynamicRef || x.DynamicRef != "" && (!e.strict || c.from.base(x) != c.to.base(y)) {
		return false
	}
	for _, p := range [][2]*jsonschema.Schema{
		{x.Items, y.Items}, {x.AdditionalItems, y.AdditionalItems}, {x.Contains, y.Contains}, {x.UnevaluatedItems, y.UnevaluatedItems},
		{x.AdditionalProperties, y.AdditionalProperties}, {x.PropertyNames, y.PropertyNames}, {x.UnevaluatedProperties, y.UnevaluatedProperties},
		{x.Not, y.Not}, {x.If, y.If}, {x.Then, y.Then}, {x.Else, y.Else}, {x.ContentSchema, y.ContentSchema},
	} {
		if !e.schema(p[0], p[1], depth) {
			return false
		}
	}
	for _, p := range [][2][]*jsonschema.Schema{{x.PrefixItems, y.PrefixItems}, {x.ItemsArray, y.ItemsArray}, {x.AllOf, y.AllOf}, {x.AnyOf, y.AnyOf}, {x.OneOf, y.OneOf}} {
		if (p[0] == nil) != (p[1] == nil) || len(p[0]) != len(p[1]) {
			return false
		}
		for i := range p[0] {
			if !e.schema(p[0][i], p[1][i], depth) {
				return false
			}
		}
	}
	named := [][2]map[string]*jsonschema.Schema{{x.Properties, y.Properties}, {x.PatternProperties, y.PatternProperties}, {dependentSchemas(x), dependentSchemas(y)}}
	if e.strict {
		named = append(named, [2]map[string]*jsonschema.Schema{x.Defs, y.Defs}, [2]map[string]*jsonschema.Schema{x.Definitions, y.Definitions})
	}
	for _, p := range named {
		if len(p[0]) != len(p[1]) || !e.spend(len(p[0])) {
			return false
		}
		for name, xs := range p[0] {
			ys, ok := p[1][name]
			if !ok || !e.schema(xs, ys, depth) {
				return false
			}
		}
	}
	return true
}

// ref compares the $refs of x and y.
func (e *equivalence) ref(x, y *jsonschema.Schema, depth int) bool {
	c := e.c
	if x.Ref == "" || y.Ref == "" {
		return x.Ref == y.Ref
	}
	if e.strict {
		return x.Ref == y.Ref && c.from.base(x) == c.to.base(y)
	}
	xt, yt := c.from.resolve(x), c.to.resolve(y)
	switch {
	case xt != nil && yt != nil:
		return e.schema(xt, yt, depth)
	case xt == nil && yt == nil:
		// Both lead out of their documents: the same only to the same
		// place.
		return c.from.target(x, x.Ref) == c.to.target(y, y.Ref)
	}
	return false
}

func sameFloat(x, y *float64) bool {
	return x == nil && y == nil || x != nil && y != nil && *x == *y
}

// sameValues reports whether two lists of JSON values hold the same values,
// in any order.
func sameValues(x, y []any) bool {
	if (x == nil) != (y == nil) {
		return false
	}
	xs := make(map[string]bool, len(x))
	for _, v := range x {
		xs[key(v)] = true
	}
	ys := make(map[string]bool, len(y))
	for _, v := range y {
		if !xs[key(v)] {
			return false
		}
		ys[key(v)] = true
	}
	return len(xs) == len(ys)
}

func sameSet(x, y []string) bool {
	return slices.Equal(slices.Compact(slices.Sorted(slices.Values(x))), slices.Compact(slices.Sorted(slices.Values(y))))
}

// sameExtra compares the keywords jsonschema-go does not know, by value.
func sameExtra(x, y map[string]any) bool {
	if len(x) != len(y) {
		return false
	}
	for _, k := range slices.Sorted(maps.Keys(x)) {
		v, ok := y[k]
		if !ok || key(v) != key(x[k]) {
			return false
		}
	}
	return true
}
