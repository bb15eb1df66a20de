package schema

import (
	"fmt"
	"reflect"
	"unsafe"
)

// mapValue reads a JSON object, whose '{' is at d.pos, into the map[string]T
// at p.
func (d *decoder) mapValue(n *node, p unsafe.Pointer) {
	if !d.open() {
		return
	}
	// The map is new, so a key already in it is a duplicate name. A
	// map[string]string, the common case, is filled directly; any other
	// through reflect.
	var m map[string]string
	var v, key, elem reflect.Value
	if n.stringItems {
		// A map type whose keys and values are of type string is laid out,
		// and hashed, as a map[string]string.
		m = make(map[string]string)
		*(*map[string]string)(p) = m
	} else {
		v = reflect.NewAt(n.typ, p).Elem()
		v.Set(reflect.MakeMap(n.typ))
		key = reflect.New(n.typ.Key()).Elem()
		elem = reflect.New(n.elem.typ).Elem()
	}
	count := 0
	for first := true; ; first = false {
		c := d.peek()
		if first && c == '}' {
			d.pos++
			break
		}
		name, ok := d.memberName(c, first)
		if !ok {
			return
		}
		d.pushName(name)
		k := d.keep(name)
		if m == nil {
			key.SetString(k)
			if v.MapIndex(key).IsValid() {
				d.duplicateName(name)
				return
			}
		}
		if !d.consume(':') && !d.colon() {
			return
		}
		if m != nil {
			s := d.stringValue(n.elem, d.peek())
			if d.fatal {
				return
			}
			// The map grows with every new key, so one that does not grow
			// found a duplicate: one hash of the key, not two. (The value
			// read last then stands, but the document is refused.)
			if m[k] = s; len(m) == count {
				d.duplicateName(name)
				return
			}
		} else {
			elem.SetZero()
			d.value(n.elem, elem.Addr().UnsafePointer())
			if d.fatal {
				return
			}
			v.SetMapIndex(key, elem)
		}
		d.pop()
		count++
		if d.consume(',') {
			continue
		}
		if end, ok := d.objectNext(); !ok {
			return
		} else if end {
			break
		}
	}
	switch {
	case n.minProps >= 0 && count < n.minProps:
		d.fail(KeywordMinProperties, fmt.Sprintf("must have at least %d %s, got %d", n.minProps, plural(n.minProps, "property"), count))
	case n.maxProps >= 0 && count > n.maxProps:
		d.fail(KeywordMaxProperties, fmt.Sprintf("must have at most %d %s, got %d", n.maxProps, plural(n.maxProps, "property"), count))
	}
}
