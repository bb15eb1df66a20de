package compat

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

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
	switch {
	case c.forward && c.output:
		c.report(pointer+"/enum", "enum", Compatible, "enum: values no longer produced: %s", strings.Join(added, ", "))
	case c.forward:
		c.report(pointer+"/enum", "enum", Compatible, "enum: values removed: %s", strings.Join(added, ", "))
	default:
		c.report(pointer+"/enum", "enum", Compatible, "enum: values added: %s", strings.Join(added, ", "))
	}
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
		if c.output {
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
