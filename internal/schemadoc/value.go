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

// MemberOrders returns the names of the members of every object of the
// document that is the value of a member named name (every "properties"
// object of a schema, say), in the order the document lists them, by the
// object's JSON Pointer; an object with no members is left out. It reads
// the tree once: a reader that keeps what it returns, and not the
// Document, keeps the names alone.
func (d *Document) MemberOrders(name string) map[string][]string {
	orders := map[string][]string{}
	var path []byte // the JSON Pointer of n, escaped
	var walk func(n *node)
	walk = func(n *node) {
		mark := len(path)
		switch n.kind {
		case '{':
			for i := range n.members {
				m := &n.members[i]
				path = append(path, '/')
				path = appendEscaped(path, m.name)
				if m.name == name && m.value.kind == '{' && len(m.value.members) > 0 {
					names := make([]string, len(m.value.members))
					for j := range m.value.members {
						names[j] = m.value.members[j].name
					}
					orders[string(path)] = names
				}
				walk(&m.value)
				path = path[:mark]
			}
		case '[':
			for i := range n.elems {
				path = strconv.AppendInt(append(path, '/'), int64(i), 10)
				walk(&n.elems[i])
				path = path[:mark]
			}
		}
	}
	walk(&d.root)
	return orders
}

// appendEscaped appends tok to a JSON Pointer, "~" as "~0" and "/" as "~1".
func appendEscaped(p []byte, tok string) []byte {
	for i := 0; i < len(tok); i++ {
		switch tok[i] {
		case '~':
			p = append(p, "~0"...)
		case '/':
			p = append(p, "~1"...)
		default:
			p = append(p, tok[i])
		}
	}
	return p
}
