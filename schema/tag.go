package schema

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hands-go/hands/internal/editdist"
	"github.com/hands-go/hands/internal/tagvalue"
)

// tagKeys lists every key the tool tag accepts, in the order the package doc
// gives them.
var tagKeys = []string{
	"minLength", "maxLength", "pattern", "format", "enum",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
	"default", "const", "examples", "title", "deprecated",
	"required", "optional", "nullable",
}

// flagKeys are the keys that may stand alone; "uniqueItems" means
// "uniqueItems=true".
var flagKeys = map[string]bool{
	"uniqueItems": true, "deprecated": true, "required": true, "optional": true, "nullable": true,
}

// jsonKeys are the keys whose value may be JSON.
var jsonKeys = map[string]bool{"default": true, "const": true, "enum": true, "examples": true}

// listKeys are the keys whose value is a list separated by '|'.
var listKeys = map[string]bool{"enum": true, "examples": true}

// A tagEntry is one key and its raw value from a tool tag.
type tagEntry struct {
	key   string
	value string   // the raw value; "true" for a bare flag
	list  []string // the '|'-separated items, for enum and examples
}

// parseToolTag splits a tool tag into its entries. The grammar is
//
//	tag     = entry *( "," entry )
//	entry   = key [ "=" value ]
//	value   = quoted / json / plain
//	quoted  = "'" *( any character but "'" / "''" ) "'"
//	json    = a JSON array, object or string, which may hold commas
//	plain   = *( any character but "," )
//
// where json is read only for the keys that take JSON (default, const, enum
// and examples), and only when the value is a whole JSON array, object or
// string followed by a comma or the end; anything else is plain, so
// pattern=[a-z]+ is the pattern [a-z]+ and default={x is the string "{x".
// A plain value ends at a comma outside brackets, braces and double quotes
// (see plainEnd).
// The values of enum and examples are further split on '|' (inside a quoted
// value, '|' splits too; a JSON value is never split).
//
// The entries are appended to entries, which may be a buffer to reuse.
func parseToolTag(tag string, entries []tagEntry) ([]tagEntry, error) {
	var seen uint64 // bit i: tagKeys[i] has been read
	rest := tag
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			if len(entries) > 0 || tag != "" {
				if strings.HasSuffix(strings.TrimRight(tag, " "), ",") {
					return nil, errors.New("empty entry after the last comma")
				}
			}
			return entries, nil
		}
		end := strings.IndexAny(rest, "=,")
		var key string
		if end < 0 {
			key, rest = rest, ""
		} else {
			key, rest = rest[:end], rest[end:]
		}
		key = strings.TrimSpace(key)
		if key == "" {
			return nil, errors.New("empty key")
		}
		k := slices.Index(tagKeys, key)
		if k < 0 {
			// A word with no value after another entry is most likely the
			// tail of that entry's value.
			return nil, unknownKeyError(key, len(entries) > 0 && !strings.HasPrefix(rest, "="))
		}
		if seen&(1<<k) != 0 {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen |= 1 << k
		e := tagEntry{key: key}
		if strings.HasPrefix(rest, "=") {
			value, tail, form, err := cutValue(rest[1:], jsonKeys[key])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			e.value, rest = value, tail
			if listKeys[key] {
				if form == jsonValue {
					e.list = []string{value}
				} else {
					e.list = strings.Split(value, "|")
				}
			}
		} else {
			if !flagKeys[key] {
				return nil, fmt.Errorf("%s needs a value (%s=…)", key, key)
			}
			e.value = "true"
		}
		entries = append(entries, e)
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return entries, nil
		}
		if rest[0] != ',' {
			return nil, fmt.Errorf("%s: expected a comma after the value, found %q", key, rest)
		}
		rest = rest[1:]
		if strings.TrimSpace(rest) == "" {
			return nil, errors.New("empty entry after the last comma")
		}
	}
}

// A valueForm is how a tag value was written.
type valueForm uint8

const (
	plainValue  valueForm = iota // text
	quotedValue                  // 'text', which may hold commas
	jsonValue                    // a whole JSON array, object or string
)

// cutValue reads one value from the start of s and returns it with the rest
// of s, which is empty or starts with a comma. json says that the key takes
// JSON values.
func cutValue(s string, json bool) (value, rest string, form valueForm, err error) {
	if strings.HasPrefix(s, "'") {
		value, rest, ok := tagvalue.CutQuoted(s)
		if !ok {
			return "", "", plainValue, errors.New("unterminated single quote")
		}
		return value, rest, quotedValue, nil
	}
	if json && isJSONComposite(s) {
		n, err := scanJSONComposite(s)
		if err == nil {
			if tail := strings.TrimLeft(s[n:], " "); tail == "" || tail[0] == ',' {
				return s[:n], s[n:], jsonValue, nil
			}
		} else if strings.IndexByte(s, ',') >= 0 {
			// An unclosed JSON value that runs past a comma was meant as
			// JSON: say so, rather than read the rest as more entries.
			return "", "", plainValue, err
		}
	}
	end := plainEnd(s)
	return strings.TrimRight(s[:end], " "), s[end:], plainValue, nil
}

// plainEnd returns where a plain value at the start of s ends: at the first
// comma that is outside brackets and braces (so pattern=[^,]+ and
// pattern=^[0-9]{1,3}$ need no quotes) and outside double quotes that open
// outside brackets; a backslash escapes the next byte. When the
// brackets or quotes do not balance, the value ends at the first comma.
func plainEnd(s string) int {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"' && depth == 0:
			inString = true
		case c == '[' || c == '{':
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			return i
		}
	}
	if depth == 0 && !inString {
		return len(s)
	}
	if i := strings.IndexByte(s, ','); i >= 0 {
		return i
	}
	return len(s)
}

// scanJSONComposite returns the length of the JSON array, object or string at
// the start of s, tracking brackets and string escapes; it does not check the
// rest of the JSON grammar, which is checked when the value is used.
func scanJSONComposite(s string) (int, error) {
	depth := 0
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i + 1, nil
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
			if depth < 0 {
				return 0, fmt.Errorf("unbalanced %q", c)
			}
		}
	}
	return 0, fmt.Errorf("unterminated JSON value %q", s)
}

func isJSONComposite(s string) bool {
	return strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") || strings.HasPrefix(s, `"`)
}

// unknownKeyError names the closest known key, which catches the common
// misspellings (minlength, min, max_length). A "key" that is the tail of a
// value cut at a comma says how to quote it.
func unknownKeyError(key string, bare bool) error {
	valueLike := strings.ContainsAny(key, " []{}()\"'\\|^$*+?.:;/")
	if !valueLike {
		best, bestDist := "", len(key)
		for _, k := range tagKeys {
			if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestDist {
				best, bestDist = k, d
			}
		}
		if best != "" && bestDist <= 3 {
			return fmt.Errorf("unknown key %q (did you mean %q?)", key, best)
		}
	}
	if valueLike || bare {
		return fmt.Errorf("unknown key %q: it looks like the rest of a value cut at a comma; a value that holds a comma is quoted, as in title='Hello, world'", key)
	}
	return fmt.Errorf("unknown key %q; the keys are %s", key, strings.Join(tagKeys, ", "))
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int { return editdist.Distance(a, b) }

// invopopKeys are the keys of the `jsonschema:"key=value,…"` tag language of
// github.com/invopop/jsonschema, which hands reads differently.
var invopopKeys = []string{
	"title", "description", "type", "enum", "default", "example", "examples",
	"required", "nullable", "oneof_required", "anyof_required", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
	"pattern", "format", "minItems", "maxItems", "uniqueItems", "const", "readOnly",
	"writeOnly", "minProperties", "maxProperties", "deprecated", "oneof_type", "anyof_type",
}

// invopopFlags are the invopop keys that stand alone.
var invopopFlags = []string{"required", "nullable", "deprecated", "readOnly", "writeOnly", "uniqueItems"}

// checkDescriptionTag rejects a jsonschema tag written in the invopop style:
// hands takes the whole tag as the description, so "description=…" would
// reach the model verbatim. The style is recognised by its first entry being
// an invopop key with a value (description=…, enum=…), or by every entry
// being an invopop flag (required, nullable, …) or key with a value. A
// description that only mentions key=value later on ("the output format,
// default=json") is left alone.
func checkDescriptionTag(tag string) error {
	first, rest, _ := strings.Cut(tag, ",")
	if !invopopEntry(first) {
		return nil
	}
	if !strings.Contains(first, "=") {
		for rest != "" {
			var e string
			e, rest, _ = strings.Cut(rest, ",")
			if !invopopEntry(e) {
				return nil
			}
		}
	}
	return fmt.Errorf(`this is the key=value style of invopop/jsonschema; here the whole jsonschema tag is the description, and constraints go in the tool tag: write jsonschema:"the description" tool:"enum=a|b,minimum=1"`)
}

// invopopEntry reports whether e is an invopop key with a value, or an
// invopop flag.
func invopopEntry(e string) bool {
	key, _, hasValue := strings.Cut(strings.TrimSpace(e), "=")
	key = strings.TrimSpace(key)
	if hasValue {
		return !strings.Contains(key, " ") && slices.Contains(invopopKeys, key)
	}
	return slices.Contains(invopopFlags, key)
}
