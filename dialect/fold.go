package dialect

import (
	"encoding/json"
	"strings"
)

// foldNotes collects the keywords of one schema that a dialect cannot
// carry, and writes them into its description in a compact, readable
// form: "3–20 characters; pattern ^[a-z]+$".
type foldNotes struct {
	vals map[string]any
}

func (f *foldNotes) add(k string, v any) {
	if f.vals == nil {
		f.vals = map[string]any{}
	}
	f.vals[k] = v
}

// apply appends the notes to the description of o, in parentheses after
// an existing description.
func (f *foldNotes) apply(o *ordObject) {
	note := f.text()
	if note == "" {
		return
	}
	if d := o.str("description"); d != "" {
		o.set("description", d+" ("+note+")")
		return
	}
	o.setAfter("description", note, "nullable", "type")
}

// text returns the notes joined with "; ", in a fixed order.
func (f *foldNotes) text() string {
	if len(f.vals) == 0 {
		return ""
	}
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(f.count("minLength", "maxLength", "character", "characters"))
	if p, ok := f.vals["pattern"].(string); ok {
		add("pattern " + p)
	}
	min, hasMin := f.number("minimum")
	max, hasMax := f.number("maximum")
	switch {
	case hasMin && hasMax:
		add("between " + min + " and " + max)
	case hasMin:
		add("at least " + min)
	case hasMax:
		add("at most " + max)
	}
	if n, ok := f.number("exclusiveMinimum"); ok {
		add("greater than " + n)
	}
	if n, ok := f.number("exclusiveMaximum"); ok {
		add("less than " + n)
	}
	if n, ok := f.number("multipleOf"); ok {
		add("multiple of " + n)
	}
	add(f.count("minItems", "maxItems", "item", "items"))
	if f.vals["uniqueItems"] == true {
		add("unique items")
	}
	add(f.count("minProperties", "maxProperties", "property", "properties"))
	if s, ok := f.vals["format"].(string); ok {
		add("format: " + s)
	}
	if s, ok := f.vals["contentEncoding"].(string); ok {
		if strings.EqualFold(s, "base64") {
			add("base64-encoded")
		} else {
			add("encoding: " + s)
		}
	}
	if s, ok := f.vals["contentMediaType"].(string); ok {
		add("media type: " + s)
	}
	if v, ok := f.vals["const"]; ok {
		add("must be " + shortJSON(v))
	}
	if a, ok := f.vals["enum"].([]any); ok {
		values := make([]string, len(a))
		for i, v := range a {
			values[i] = shortJSON(v)
		}
		add("one of " + strings.Join(values, ", "))
	}
	if _, ok := f.vals["oneOf"]; ok {
		add("exactly one of the alternatives")
	}
	if deps, ok := f.vals["dependentRequired"].(*ordObject); ok {
		for _, k := range deps.keys {
			var names []string
			if a, ok := deps.vals[k].([]any); ok {
				for _, n := range a {
					if s, ok := n.(string); ok {
						names = append(names, s)
					}
				}
			}
			if len(names) > 0 {
				add("with " + k + " also " + strings.Join(names, ", "))
			}
		}
	}
	if v, ok := f.vals["default"]; ok {
		add("default: " + shortJSON(v))
	}
	if a, ok := f.vals["examples"].([]any); ok && len(a) > 0 {
		values := make([]string, len(a))
		for i, v := range a {
			values[i] = shortJSON(v)
		}
		add("examples: " + strings.Join(values, ", "))
	}
	if f.vals["deprecated"] == true {
		add("deprecated")
	}
	return strings.Join(parts, "; ")
}

// number returns the text of a numeric keyword.
func (f *foldNotes) number(k string) (string, bool) {
	n, ok := f.vals[k].(json.Number)
	return string(n), ok
}

// count writes a pair of bounds on a count: "3–20 characters", "at least
// 1 item", "exactly 2 items".
func (f *foldNotes) count(minKey, maxKey, one, many string) string {
	min, hasMin := f.number(minKey)
	max, hasMax := f.number(maxKey)
	noun := func(n string) string {
		if n == "1" {
			return one
		}
		return many
	}
	switch {
	case hasMin && hasMax && min == max:
		return "exactly " + min + " " + noun(min)
	case hasMin && hasMax:
		return min + "–" + max + " " + many
	case hasMin:
		return "at least " + min + " " + noun(min)
	case hasMax:
		return "at most " + max + " " + noun(max)
	}
	return ""
}

// shortJSON returns the JSON of v for a message or a description, cut to
// a readable length.
func shortJSON(v any) string {
	s := ordJSONText(v)
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
