package schemadoc

import (
	"encoding/json"
	"strconv"
)

// Value returns the document as encoding/json decodes it into an any with
// UseNumber, as a validator such as santhosh-tekuri/jsonschema takes it:
// map[string]any, []any, json.Number, string, bool and nil. Each call
// returns a value of its own.
func (d *Document) Value() any { return d.root.value() }

func (n *node) value() any {
	switch n.kind {
	case 't':
		return true
	case 'f':
		return false
	case '"':
		return n.text
	case '0':
		return json.Number(n.text)
	case '{':
		m := make(map[string]any, len(n.members))
		for i := range n.members {
			m[n.members[i].name] = n.members[i].value.value()
		}
		return m
	case '[':
		s := make([]any, len(n.elems))
		for i := range n.elems {
			s[i] = n.elems[i].value()
		}
		return s
	}
	return nil
}

// Equal reports whether v is the document as encoding/json decodes it
// into an any: objects as map[string]any, arrays as []any, numbers as
// float64 (or json.Number, compared as written), strings, booleans and
// nil. It reads v once, and allocates nothing.
func (d *Document) Equal(v any) bool { return d.root.equal(v) }

func (n *node) equal(v any) bool {
	switch n.kind {
	case 'n':
		return v == nil
	case 't', 'f':
		b, ok := v.(bool)
		return ok && b == (n.kind == 't')
	case '"':
		s, ok := v.(string)
		return ok && s == n.text
	case '0':
		switch v := v.(type) {
		case float64:
			f, err := strconv.ParseFloat(n.text, 64)
			return err == nil && f == v
		case json.Number:
			return string(v) == n.text
		}
		return false
	case '{':
		m, ok := v.(map[string]any)
		if !ok || m == nil || len(m) != len(n.members) {
			return false
		}
		for i := range n.members {
			mv, ok := m[n.members[i].name]
			if !ok || !n.members[i].value.equal(mv) {
				return false
			}
		}
		return true
	case '[':
		s, ok := v.([]any)
		if !ok || s == nil || len(s) != len(n.elems) {
			return false
		}
		for i := range n.elems {
			if !n.elems[i].equal(s[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// Names returns the names of the members of the object at the JSON
// Pointer of the tokens given (unescaped), in the order the document
// lists them; nil when there is no object there, or it has none.
func (d *Document) Names(tokens []string) []string {
	n := &d.root
	for _, tok := range tokens {
		switch n.kind {
		case '{':
			n = n.member(tok)
		case '[':
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.elems) || strconv.Itoa(i) != tok {
				return nil
			}
			n = &n.elems[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	if n.kind != '{' || len(n.members) == 0 {
		return nil
	}
	names := make([]string, len(n.members))
	for i := range n.members {
		names[i] = n.members[i].name
	}
	return names
}
