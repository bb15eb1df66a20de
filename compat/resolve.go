package compat

import (
	"maps"
	"net/url"
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

// A resolver finds the targets of a schema's references within its
// document: JSON Pointers and anchors, resolved against the base URI that
// the $id of the schema or of those around it sets, so that a reference to
// an embedded resource ("int.json", "urn:…#/$defs/bar") is followed too.
type resolver struct {
	root  *jsonschema.Schema
	cache map[*jsonschema.Schema]*jsonschema.Schema
	index *docIndex
}

// A docIndex is what a resolver knows of its document, found by one walk
// the first time a reference is resolved.
type docIndex struct {
	bases     map[*jsonschema.Schema]string // the base URI of each schema holding a $ref or $dynamicRef
	rootBase  string
	resources map[string]*jsonschema.Schema // each resource by its absolute URI, fragment removed
	anchors   map[string]*jsonschema.Schema // each $anchor and $dynamicAnchor, as resource URI + "#" + name
}

func newResolver(root *jsonschema.Schema) *resolver {
	return &resolver{root: root, cache: map[*jsonschema.Schema]*jsonschema.Schema{}}
}

// resolve returns the schema that the $ref of s names within the root
// document, or nil for a reference it cannot follow (another document, a
// pointer to nothing).
func (r *resolver) resolve(s *jsonschema.Schema) *jsonschema.Schema {
	if t, ok := r.cache[s]; ok {
		return t
	}
	t := r.lookup(r.base(s), s.Ref)
	r.cache[s] = t
	return t
}

// base returns the base URI that applies to the references of s.
func (r *resolver) base(s *jsonschema.Schema) string {
	idx := r.indexed()
	if b, ok := idx.bases[s]; ok {
		return b
	}
	return idx.rootBase
}

// target returns the absolute URI, fragment included, that the reference
// ref of s names; for a reference that cannot be parsed, ref itself.
func (r *resolver) target(s *jsonschema.Schema, ref string) string {
	uri, frag, ok := splitRef(r.base(s), ref)
	if !ok {
		return ref
	}
	return uri + "#" + frag
}

// splitRef resolves ref against base and returns the resource's URI and
// the fragment, percent-decoded.
func splitRef(base, ref string) (uri, frag string, ok bool) {
	if strings.HasPrefix(ref, "#") {
		frag = ref[1:]
		if strings.Contains(frag, "%") {
			f, err := url.PathUnescape(frag)
			if err != nil {
				return "", "", false
			}
			frag = f
		}
		return base, frag, true
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", "", false
	}
	abs := b.ResolveReference(u)
	frag, abs.Fragment, abs.RawFragment = abs.Fragment, "", ""
	return abs.String(), frag, true
}

// indexed returns the document's index, walking it the first time.
func (r *resolver) indexed() *docIndex {
	if r.index != nil {
		return r.index
	}
	idx := &docIndex{bases: map[*jsonschema.Schema]string{}, resources: map[string]*jsonschema.Schema{}, anchors: map[string]*jsonschema.Schema{}}
	r.index = idx
	if r.root == nil {
		return idx
	}
	var visit func(s *jsonschema.Schema, base string, depth int)
	visit = func(s *jsonschema.Schema, base string, depth int) {
		if s == nil || depth > maxWalkDepth {
			return
		}
		if s.ID != "" {
			if uri, frag, ok := splitRef(base, s.ID); ok {
				if uri != base || depth == 0 {
					base = uri
					if _, dup := idx.resources[base]; !dup {
						idx.resources[base] = s
					}
				}
				if frag != "" && !strings.HasPrefix(frag, "/") { // draft 7's {"$id": "#name"}
					idx.anchors[base+"#"+frag] = s
				}
			}
		}
		if depth == 0 {
			idx.rootBase = base
			idx.resources[base] = s
		}
		for _, a := range []string{s.Anchor, s.DynamicAnchor} {
			if a != "" {
				if _, dup := idx.anchors[base+"#"+a]; !dup {
					idx.anchors[base+"#"+a] = s
				}
			}
		}
		if s.Ref != "" || s.DynamicRef != "" {
			idx.bases[s] = base
		}
		for _, sub := range children(s) {
			visit(sub, base, depth+1)
		}
	}
	visit(r.root, "", 0)
	return idx
}

func (r *resolver) lookup(base, ref string) *jsonschema.Schema {
	if r.root == nil {
		return nil
	}
	uri, frag, ok := splitRef(base, ref)
	if !ok {
		return nil
	}
	idx := r.indexed()
	res := idx.resources[uri]
	if res == nil {
		return nil
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return idx.anchors[uri+"#"+frag]
	}
	return pointer(res, frag)
}

// pointer returns the schema that the JSON Pointer frag names in s, or nil.
func pointer(s *jsonschema.Schema, frag string) *jsonschema.Schema {
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
