package compat

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

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

// children returns the schemas directly inside s, those in maps in no
// particular order.
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
		for _, sub := range m {
			add(sub)
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
		if len(n.Extra) == 0 {
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
