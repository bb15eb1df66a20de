package dialect

import (
	"strconv"
	"strings"
)

// walkSchemas calls fn for every schema object in the document, in
// document order, definitions included.
func walkSchemas(o *ordObject, path string, fn func(o *ordObject, path string)) {
	fn(o, path)
	eachSubschema(o, path, func(_, _ string, child any, childPath string) {
		if co, ok := child.(*ordObject); ok {
			walkSchemas(co, childPath, fn)
		}
	})
}

// eachSubschema calls fn for every schema directly inside o, with the
// keyword, the name (for keywords that hold a map of schemas) and path.
func eachSubschema(o *ordObject, path string, fn func(keyword, name string, child any, childPath string)) {
	for _, k := range o.keys {
		v := o.vals[k]
		kp := pointerJoin(path, k)
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			if m, ok := v.(*ordObject); ok {
				for _, name := range m.keys {
					fn(k, name, m.vals[name], pointerJoin(kp, name))
				}
			}
		case "prefixItems", "allOf", "anyOf", "oneOf":
			if a, ok := v.([]any); ok {
				for i, e := range a {
					fn(k, "", e, pointerJoin(kp, strconv.Itoa(i)))
				}
			}
		case "items":
			if a, ok := v.([]any); ok {
				for i, e := range a {
					fn(k, "", e, pointerJoin(kp, strconv.Itoa(i)))
				}
			} else {
				fn(k, "", v, kp)
			}
		case "additionalProperties", "not", "if", "then", "else", "propertyNames", "contains",
			"unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema":
			fn(k, "", v, kp)
		}
	}
}

// isObjectSchema reports whether a schema describes an object.
func isObjectSchema(o *ordObject) bool {
	if o.has("properties") {
		return true
	}
	switch t := o.vals["type"].(type) {
	case string:
		return strings.EqualFold(t, "object")
	case []any:
		for _, e := range t {
			if s, _ := e.(string); s == "object" {
				return true
			}
		}
	}
	return false
}

// hasTypeInfo reports whether a schema says what type its value has.
func hasTypeInfo(o *ordObject) bool {
	for _, k := range []string{"type", "anyOf", "allOf", "$ref", "enum", "const"} {
		if o.has(k) {
			return true
		}
	}
	return false
}

// isNullSchema reports whether a schema accepts only null.
func isNullSchema(v any) bool {
	o, ok := v.(*ordObject)
	return ok && len(o.keys) == 1 && o.vals["type"] == "null"
}

// nullableSchema widens a converted schema to accept null, as OpenAI's
// strict mode writes an optional property.
func nullableSchema(v any) any {
	o, ok := v.(*ordObject)
	if !ok {
		return v
	}
	null := func() *ordObject {
		n := newOrdObject()
		n.set("type", "null")
		return n
	}
	switch t := o.vals["type"].(type) {
	case string:
		if t != "null" {
			o.set("type", []any{t, "null"})
		}
	case []any:
		if !containsValue(t, "null") {
			o.set("type", append(append([]any(nil), t...), "null"))
		}
	default:
		if a, ok := o.vals["anyOf"].([]any); ok {
			for _, b := range a {
				if isNullSchema(b) {
					return o
				}
			}
			o.set("anyOf", append(append([]any(nil), a...), null()))
			return o
		}
		if o.has("$ref") {
			w := newOrdObject()
			w.set("anyOf", []any{null(), o})
			return w
		}
	}
	if e, ok := o.vals["enum"].([]any); ok && !containsValue(e, nil) {
		o.set("enum", append(append([]any(nil), e...), nil))
	}
	if v, ok := o.get("const"); ok && v != nil {
		o.setAfter("enum", []any{v, nil}, "const")
		o.del("const")
	}
	return o
}

// pointerJoin appends one token to a JSON Pointer.
func pointerJoin(path, tok string) string {
	tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	return path + "/" + tok
}

// refName names the target of a reference in a message.
func refName(ref string) string {
	if ref == "#" {
		return "the root"
	}
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return ref[i+1:]
	}
	return ref
}
