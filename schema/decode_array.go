package schema

import (
	"fmt"
	"reflect"
	"unsafe"
)

// array reads a JSON array, whose '[' is at d.pos, into the slice or fixed
// array at p.
func (d *decoder) array(n *node, p unsafe.Pointer) {
	if !d.open() {
		return
	}
	itemIssues := len(d.issues) + d.dropped
	var count int
	var ok bool
	switch {
	case n.kind == kindArray:
		count, ok = d.items(func(i int) {
			if i < n.length {
				d.value(n.elem, unsafe.Add(p, uintptr(i)*n.elem.size))
			} else {
				// An item past a fixed length is checked like the others,
				// as the schema's items keyword does, and then dropped.
				d.value(n.elem, reflect.New(n.elem.typ).UnsafePointer())
			}
		})
	case n.stringItems:
		count, ok = d.stringSlice(n, p)
	default:
		count, ok = d.sliceItems(n, p)
	}
	if !ok {
		return
	}
	switch {
	case n.kind == kindArray && count != n.length:
		keyword := KeywordMinItems
		if count > n.length {
			keyword = KeywordMaxItems
		}
		d.fail(keyword, fmt.Sprintf("must have exactly %d items, got %d", n.length, count))
	case n.minItems >= 0 && count < n.minItems:
		d.fail(KeywordMinItems, fmt.Sprintf("must have at least %d %s, got %d", n.minItems, plural(n.minItems, "item"), count))
	case n.maxItems >= 0 && count > n.maxItems:
		d.fail(KeywordMaxItems, fmt.Sprintf("must have at most %d %s, got %d", n.maxItems, plural(n.maxItems, "item"), count))
	}
	// Items that failed hold zero values, which would compare equal although
	// the JSON differs; uniqueness is judged once every item is valid.
	if n.uniqueItems && len(d.issues)+d.dropped == itemIssues {
		v := reflect.NewAt(n.typ, p).Elem()
		if i, j, dup := duplicate(n.elem, v, min(count, v.Len())); dup {
			d.fail(KeywordUniqueItems, fmt.Sprintf("items %d and %d are equal; every item must be unique", i, j))
		}
	}
}

// items reads the items of an array whose '[' was read, and its ']'. It
// calls item to read each, with d.pos at the item and its index on the
// path, and returns how many there were.
func (d *decoder) items(item func(i int)) (int, bool) {
	if d.peek() == ']' {
		d.pos++
		return 0, true
	}
	for i := 0; ; i++ {
		d.pushIndex(i)
		item(i)
		if d.fatal {
			return i, false
		}
		d.pop()
		if d.consume(',') {
			continue
		}
		if end, ok := d.arrayNext(); !ok || end {
			return i + 1, ok
		}
	}
}

// sliceItems reads the items of a slice into a buffer and then gives the
// slice at p exactly as many, in one allocation. An empty array is an empty
// slice, not nil.
func (d *decoder) sliceItems(n *node, p unsafe.Pointer) (int, bool) {
	buf := n.getItems()
	defer n.putItems(buf)
	count, ok := d.items(func(int) { d.value(n.elem, buf.next()) })
	if !ok {
		return count, false
	}
	v := reflect.NewAt(n.typ, p).Elem()
	if count == 0 {
		v.Set(reflect.MakeSlice(n.typ, 0, 0))
	} else {
		v.Grow(count)
		v.SetLen(count)
		reflect.Copy(v, buf.v)
	}
	return count, true
}

// stringSlice is sliceItems for a slice of strings, the common case, without
// reflect: the buffer is d.strItems, where each array's items go above those
// of the arrays it is in.
func (d *decoder) stringSlice(n *node, p unsafe.Pointer) (int, bool) {
	base := len(d.strItems)
	count, ok := d.items(func(int) { d.strItems = append(d.strItems, d.stringValue(n.elem, d.peek())) })
	if ok {
		// A slice type whose items are of type string is laid out as a
		// []string. (make, unlike slices.Clone, never returns nil.)
		items := make([]string, count)
		copy(items, d.strItems[base:])
		*(*[]string)(p) = items
	}
	clear(d.strItems[base:])
	d.strItems = d.strItems[:base]
	return count, ok
}

// An itemBuffer holds the items of a slice while they are read, so that the
// slice itself can be allocated once at its final length. Buffers are pooled
// per slice node; one serves one array at a time (an array nested in an item
// of the same type gets another).
type itemBuffer struct {
	v    reflect.Value // an addressable slice of the node's type
	size uintptr       // the size of an item
}

// maxPooledItems is the most items a pooled buffer keeps room for.
const maxPooledItems = 4096

func (n *node) getItems() *itemBuffer {
	if b, ok := n.items.Get().(*itemBuffer); ok {
		return b
	}
	return &itemBuffer{v: reflect.New(n.typ).Elem(), size: n.elem.size}
}

// putItems zeroes the buffer's items, which may hold pointers into the
// decoded value, and pools it.
func (n *node) putItems(b *itemBuffer) {
	if b.v.Cap() > maxPooledItems {
		return
	}
	b.v.Clear()
	b.v.SetLen(0)
	n.items.Put(b)
}

// next returns the address of a new zero item at the end of the buffer.
func (b *itemBuffer) next() unsafe.Pointer {
	i := b.v.Len()
	if i == b.v.Cap() {
		b.v.Grow(1)
	}
	b.v.SetLen(i + 1)
	return unsafe.Add(b.v.UnsafePointer(), uintptr(i)*b.size)
}
