package compat

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tri is the answer of a check that may not know.
type tri int8

const (
	no tri = iota
	yes
	maybe
)

// and combines two answers that must both hold.
func (a tri) and(b tri) tri {
	switch {
	case a == no || b == no:
		return no
	case a == maybe || b == maybe:
		return maybe
	}
	return yes
}

// patterns caches compiled patterns. ECMA-262 patterns that RE2 does not
// read (lookahead, backreferences) give an error, and any check that needs
// one answers maybe.
type patterns map[string]*regexp.Regexp

func (p patterns) compile(s string) *regexp.Regexp {
	if re, ok := p[s]; ok {
		return re
	}
	re, err := regexp.Compile(s)
	if err != nil {
		re = nil
	}
	p[s] = re
	return re
}

// admits reports whether the value v is valid under s, whose $refs are
// resolved in root. It answers maybe where it cannot tell: a format, a
// pattern RE2 cannot read, a reference it cannot follow, unevaluated*,
// a depth or step limit.
func (c *checker) admits(r *resolver, s *jsonschema.Schema, v any, depth int) tri {
	return c.admitsAs(r, s, v, depth, false)
}

// admitsOwn is admits without following n's $ref, allOf, anyOf and oneOf,
// which an alternative has already flattened.
func (c *checker) admitsOwn(r *resolver, n *jsonschema.Schema, v any, depth int) tri {
	return c.admitsAs(r, n, v, depth, true)
}

func (c *checker) admitsAs(r *resolver, s *jsonschema.Schema, v any, depth int, own bool) tri {
	if s == nil {
		return yes
	}
	if !c.step(1) || depth > c.maxDepth {
		return maybe
	}
	depth++
	res := yes
	if own {
		res = c.keywordsAdmit(r, s, v, depth)
		return res
	}
	if s.Ref != "" {
		t := r.resolve(s)
		if t == nil {
			return maybe
		}
		res = res.and(c.admits(r, t, v, depth))
	}
	if s.DynamicRef != "" || s.UnevaluatedItems != nil || s.UnevaluatedProperties != nil {
		res = res.and(maybe)
	}
	for _, sub := range s.AllOf {
		res = res.and(c.admits(r, sub, v, depth))
	}
	if s.AnyOf != nil {
		any := no
		for _, sub := range s.AnyOf {
			switch c.admits(r, sub, v, depth) {
			case yes:
				any = yes
			case maybe:
				if any == no {
					any = maybe
				}
			}
			if any == yes {
				break
			}
		}
		res = res.and(any)
	}
	if s.OneOf != nil {
		matched, unsure := 0, false
		for _, sub := range s.OneOf {
			switch c.admits(r, sub, v, depth) {
			case yes:
				matched++
			case maybe:
				unsure = true
			}
		}
		switch {
		case matched > 1:
			res = no
		case unsure:
			res = res.and(maybe)
		case matched == 0:
			res = no
		}
	}
	if s.Not != nil {
		switch c.admits(r, s.Not, v, depth) {
		case yes:
			res = no
		case maybe:
			res = res.and(maybe)
		}
	}
	if s.If != nil {
		switch c.admits(r, s.If, v, depth) {
		case yes:
			res = res.and(c.admits(r, s.Then, v, depth))
		case no:
			res = res.and(c.admits(r, s.Else, v, depth))
		default:
			res = res.and(maybe)
		}
	}
	if res == no {
		return no
	}
	return res.and(c.keywordsAdmit(r, s, v, depth))
}

// keywordsAdmit checks v against the keywords of s other than $ref, allOf,
// anyOf, oneOf, not and if.
func (c *checker) keywordsAdmit(r *resolver, s *jsonschema.Schema, v any, depth int) tri {
	res := yes
	k := valueKind(v)
	if declaredKinds(s)&k == 0 {
		return no
	}
	if s.Enum != nil && !c.enumHas(s, v) {
		return no
	}
	if s.Const != nil && key(*s.Const) != key(v) {
		return no
	}
	switch v := v.(type) {
	case string:
		n := utf8.RuneCountInString(v)
		if s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
			return no
		}
		if s.Pattern != "" {
			re := c.patterns.compile(s.Pattern)
			switch {
			case re == nil:
				res = res.and(maybe)
			case !re.MatchString(v):
				return no
			}
		}
		if s.Format != "" {
			res = res.and(maybe)
		}
	case float64, json.Number:
		f, _ := asFloat(v)
		if s.Minimum != nil && f < *s.Minimum || s.Maximum != nil && f > *s.Maximum ||
			s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum || s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum {
			return no
		}
		if s.MultipleOf != nil && *s.MultipleOf > 0 {
			q := f / *s.MultipleOf
			if math.Abs(q-math.Round(q)) > 1e-9 {
				return no
			}
		}
	case []any:
		res = res.and(c.admitsArray(r, s, v, depth))
	case map[string]any:
		res = res.and(c.admitsObject(r, s, v, depth))
	}
	return res
}

func (c *checker) admitsArray(r *resolver, s *jsonschema.Schema, v []any, depth int) tri {
	if s.MinItems != nil && len(v) < *s.MinItems || s.MaxItems != nil && len(v) > *s.MaxItems {
		return no
	}
	res := yes
	prefix, tail := tuple(s)
	for i, e := range v {
		item := tail
		if i < len(prefix) {
			item = prefix[i]
		}
		res = res.and(c.admits(r, item, e, depth))
		if res == no {
			return no
		}
	}
	if s.UniqueItems {
		seen := make(map[string]bool, len(v))
		for _, e := range v {
			k := key(e)
			if seen[k] {
				return no
			}
			seen[k] = true
		}
	}
	if s.Contains != nil {
		n := 0
		for _, e := range v {
			switch c.admits(r, s.Contains, e, depth) {
			case yes:
				n++
			case maybe:
				res = res.and(maybe)
			}
		}
		lo := 1
		if s.MinContains != nil {
			lo = *s.MinContains
		}
		if res == yes && (n < lo || s.MaxContains != nil && n > *s.MaxContains) {
			return no
		}
	}
	return res
}

func (c *checker) admitsObject(r *resolver, s *jsonschema.Schema, v map[string]any, depth int) tri {
	if s.MinProperties != nil && len(v) < *s.MinProperties || s.MaxProperties != nil && len(v) > *s.MaxProperties {
		return no
	}
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			return no
		}
	}
	for name, deps := range dependentRequired(s) {
		if _, ok := v[name]; ok {
			for _, d := range deps {
				if _, ok := v[d]; !ok {
					return no
				}
			}
		}
	}
	res := yes
	for name, sub := range dependentSchemas(s) {
		if _, ok := v[name]; ok {
			res = res.and(c.admits(r, sub, v, depth))
		}
	}
	for name, e := range v {
		if s.PropertyNames != nil {
			res = res.and(c.admits(r, s.PropertyNames, name, depth))
		}
		matched := false
		if sub, ok := s.Properties[name]; ok {
			matched = true
			res = res.and(c.admits(r, sub, e, depth))
		}
		for p, sub := range s.PatternProperties {
			re := c.patterns.compile(p)
			if re == nil {
				res = res.and(maybe)
				continue
			}
			if re.MatchString(name) {
				matched = true
				res = res.and(c.admits(r, sub, e, depth))
			}
		}
		if !matched && s.AdditionalProperties != nil {
			res = res.and(c.admits(r, s.AdditionalProperties, e, depth))
		}
		if res == no {
			return no
		}
	}
	return res
}

// tuple returns the schemas of an array's leading items and of the items
// after them (nil: any), in draft 2020-12 (prefixItems, items) or draft 7
// (items as an array, additionalItems) form.
func tuple(s *jsonschema.Schema) (prefix []*jsonschema.Schema, tail *jsonschema.Schema) {
	if s.ItemsArray != nil {
		return s.ItemsArray, s.AdditionalItems
	}
	return s.PrefixItems, s.Items
}

// dependentRequired merges draft 2020-12's dependentRequired with draft 7's
// dependencies of string lists.
func dependentRequired(s *jsonschema.Schema) map[string][]string {
	if s.DependencyStrings == nil {
		return s.DependentRequired
	}
	m := make(map[string][]string, len(s.DependentRequired)+len(s.DependencyStrings))
	for k, v := range s.DependencyStrings {
		m[k] = v
	}
	for k, v := range s.DependentRequired {
		m[k] = append(slices.Clone(m[k]), v...)
	}
	return m
}

// dependentSchemas merges dependentSchemas with draft 7's dependencies of
// schemas; a name with both keeps dependentSchemas'.
func dependentSchemas(s *jsonschema.Schema) map[string]*jsonschema.Schema {
	if s.DependencySchemas == nil {
		return s.DependentSchemas
	}
	m := make(map[string]*jsonschema.Schema, len(s.DependentSchemas)+len(s.DependencySchemas))
	for k, v := range s.DependencySchemas {
		m[k] = v
	}
	for k, v := range s.DependentSchemas {
		m[k] = v
	}
	return m
}

// enumHas reports whether v is among the values of s's enum, with a set
// made once per schema so that a long enum is read once.
func (c *checker) enumHas(s *jsonschema.Schema, v any) bool {
	set, ok := c.enums[s]
	if !ok {
		c.step(len(s.Enum))
		set = make(map[string]bool, len(s.Enum))
		for _, e := range s.Enum {
			set[key(e)] = true
		}
		c.enums[s] = set
	}
	return set[key(v)]
}
