package compat

import (
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// kinds of JSON value, as bits; "number" is intKind|fracKind.
type kinds uint8

const (
	nullKind kinds = 1 << iota
	boolKind
	objectKind
	arrayKind
	stringKind
	intKind        // a number with no fractional part
	fracKind       // any other number
	allKinds kinds = 1<<iota - 1
)

// kindNames lists the kinds in the order messages name them.
var kindNames = []struct {
	k    kinds
	name string
}{{nullKind, "null"}, {boolKind, "boolean"}, {objectKind, "object"}, {arrayKind, "array"}, {stringKind, "string"}, {intKind, "integer"}, {fracKind, "fractional number"}}

func kindOf(name string) kinds {
	switch name {
	case "null":
		return nullKind
	case "boolean":
		return boolKind
	case "object":
		return objectKind
	case "array":
		return arrayKind
	case "string":
		return stringKind
	case "integer":
		return intKind
	case "number":
		return intKind | fracKind
	}
	return 0 // an unknown type name accepts nothing, as validators do
}

// declaredKinds returns the kinds the type keyword of s admits: all of
// them when s has none.
func declaredKinds(s *jsonschema.Schema) kinds {
	switch {
	case s.Type != "":
		return kindOf(s.Type)
	case s.Types != nil:
		var k kinds
		for _, t := range s.Types {
			k |= kindOf(t)
		}
		return k
	}
	return allKinds
}

func (k kinds) String() string {
	if k&(intKind|fracKind) == intKind|fracKind {
		k = k&^(intKind|fracKind) | fracKind // printed as "number" below
	}
	var names []string
	for _, n := range kindNames {
		if k&n.k != 0 {
			if n.k == fracKind {
				names = append(names, "number")
				continue
			}
			names = append(names, n.name)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return "[" + strings.Join(names, ",") + "]"
}

// valueKind returns the kind of a decoded JSON value.
func valueKind(v any) kinds {
	switch v := v.(type) {
	case nil:
		return nullKind
	case bool:
		return boolKind
	case map[string]any:
		return objectKind
	case []any:
		return arrayKind
	case string:
		return stringKind
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return intKind
		}
		return fracKind
	case json.Number:
		f, err := v.Float64()
		if err == nil {
			return valueKind(f)
		}
	}
	return 0
}

// key returns v as canonical JSON, for comparing values; numbers compare
// by value.
func key(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			v = f
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "\x00" + err.Error() // never equal to a JSON text
	}
	return string(data)
}

func show(v any) string {
	s := key(v)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

func asFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
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
		t := r.resolve(s.Ref)
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

// isTrue reports whether s accepts every value: nil, true or {}.
func isTrue(s *jsonschema.Schema) bool {
	return s == nil || s.Ref == "" && s.Type == "" && s.Types == nil && s.Enum == nil && s.Const == nil &&
		s.MultipleOf == nil && s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil &&
		s.MinLength == nil && s.MaxLength == nil && s.Pattern == "" && s.Format == "" &&
		s.PrefixItems == nil && s.Items == nil && s.ItemsArray == nil && s.MinItems == nil && s.MaxItems == nil &&
		s.AdditionalItems == nil && !s.UniqueItems && s.Contains == nil && s.UnevaluatedItems == nil &&
		s.MinProperties == nil && s.MaxProperties == nil && s.Required == nil && s.DependentRequired == nil &&
		s.Properties == nil && s.PatternProperties == nil && s.AdditionalProperties == nil && s.PropertyNames == nil &&
		s.UnevaluatedProperties == nil && s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.Not == nil &&
		s.If == nil && s.DependentSchemas == nil && s.DependencySchemas == nil && s.DependencyStrings == nil && s.DynamicRef == ""
}

// isFalse reports whether s is the schema false ({"not": {}}).
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && isTrue(s.Not)
}

// A resolver finds the targets of a schema's local $refs.
type resolver struct {
	root    *jsonschema.Schema
	cache   map[string]*jsonschema.Schema
	anchors map[string]*jsonschema.Schema
}

func newResolver(root *jsonschema.Schema) *resolver {
	return &resolver{root: root, cache: map[string]*jsonschema.Schema{}}
}

// resolve returns the schema a $ref names within the root document, or nil
// for a reference it cannot follow (another document, a dynamic anchor).
func (r *resolver) resolve(ref string) *jsonschema.Schema {
	if s, ok := r.cache[ref]; ok {
		return s
	}
	s := r.lookup(ref)
	r.cache[ref] = s
	return s
}

func (r *resolver) lookup(ref string) *jsonschema.Schema {
	if r.root == nil || !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag := ref[1:]
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if r.anchors == nil {
			r.anchors = map[string]*jsonschema.Schema{}
			walk(r.root, 0, func(s *jsonschema.Schema) {
				if s.Anchor != "" {
					r.anchors[s.Anchor] = s
				}
			})
		}
		return r.anchors[frag]
	}
	s := r.root
	tokens := strings.Split(frag, "/")[1:]
	for i := 0; i < len(tokens); i++ {
		tok := strings.ReplaceAll(strings.ReplaceAll(tokens[i], "~1", "/"), "~0", "~")
		var next *jsonschema.Schema
		named := func(m map[string]*jsonschema.Schema) {
			if i+1 < len(tokens) {
				i++
				next = m[strings.ReplaceAll(strings.ReplaceAll(tokens[i], "~1", "/"), "~0", "~")]
			}
		}
		indexed := func(list []*jsonschema.Schema) {
			if i+1 < len(tokens) {
				i++
				if n, err := strconv.Atoi(tokens[i]); err == nil && n >= 0 && n < len(list) {
					next = list[n]
				}
			}
		}
		switch tok {
		case "$defs":
			named(s.Defs)
		case "definitions":
			named(s.Definitions)
		case "properties":
			named(s.Properties)
		case "patternProperties":
			named(s.PatternProperties)
		case "dependentSchemas":
			named(s.DependentSchemas)
		case "prefixItems":
			indexed(s.PrefixItems)
		case "allOf":
			indexed(s.AllOf)
		case "anyOf":
			indexed(s.AnyOf)
		case "oneOf":
			indexed(s.OneOf)
		case "items":
			if s.ItemsArray != nil {
				indexed(s.ItemsArray)
			} else {
				next = s.Items
			}
		case "additionalProperties":
			next = s.AdditionalProperties
		case "additionalItems":
			next = s.AdditionalItems
		case "propertyNames":
			next = s.PropertyNames
		case "contains":
			next = s.Contains
		case "not":
			next = s.Not
		case "if":
			next = s.If
		case "then":
			next = s.Then
		case "else":
			next = s.Else
		}
		if next == nil {
			return nil
		}
		s = next
	}
	return s
}

// maxWalkDepth bounds walk's recursion: anchors deeper than that are not
// found, and a $ref to one answers maybe.
const maxWalkDepth = 1000

// walk calls f on s and every schema inside it, in document order.
func walk(s *jsonschema.Schema, depth int, f func(*jsonschema.Schema)) {
	if s == nil || depth > maxWalkDepth {
		return
	}
	f(s)
	for _, sub := range children(s) {
		walk(sub, depth+1, f)
	}
}

// children returns the schemas directly inside s.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(list ...*jsonschema.Schema) {
		for _, c := range list {
			if c != nil {
				out = append(out, c)
			}
		}
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas, s.DependencySchemas} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			add(m[k])
		}
	}
	add(s.PrefixItems...)
	add(s.ItemsArray...)
	add(s.AllOf...)
	add(s.AnyOf...)
	add(s.OneOf...)
	add(s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems, s.AdditionalProperties, s.PropertyNames,
		s.UnevaluatedProperties, s.Not, s.If, s.Then, s.Else, s.ContentSchema)
	return out
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

// keywords maps each JSON Schema keyword, lower-cased, to its spelling.
var keywords = func() map[string]string {
	m := map[string]string{"type": "type", "items": "items", "dependencies": "dependencies"}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[strings.ToLower(name)] = name
		}
	}
	return m
}()

// caseVariant finds, within the first maxWalkDepth levels of s, a key
// that differs from a keyword only in case ("tYpe"). Validators ignore
// such a key, but encoding/json, which jsonschema-go decodes with, matches
// names without regard to case and may have read it as the keyword.
func caseVariant(s *jsonschema.Schema) (keyword, key string) {
	walk(s, 0, func(n *jsonschema.Schema) {
		if key != "" {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(n.Extra)) {
			if kw, ok := keywords[strings.ToLower(k)]; ok && kw != k {
				keyword, key = kw, k
				return
			}
		}
	})
	return keyword, key
}
