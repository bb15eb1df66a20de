package schema

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Validator.Check reads what encoding/json writes for a Go value, which is
// not always what a model is asked to send: encoding/json writes a nil
// slice or map as null, and a Go value has no other way to say "empty".
// Check judges such a null as the empty slice or map, so that a nil slice
// in a required field is an empty one (and fails minItems=1 as such), never
// a null. The methods here serve only that mode (decoder.goValue).

// nilContainer reads a null, whose 'n' is at d.pos, for a slice, map or
// []byte node, as the empty value, and reports whether it did: for any other
// node it reads nothing and returns false.
func (d *decoder) nilContainer(n *node, p unsafe.Pointer) bool {
	switch n.kind {
	case kindSlice, kindMap, kindBytes:
	default:
		return false
	}
	if !d.scanLiteral("null") {
		return true
	}
	reflect.NewAt(n.typ, p).Elem().SetZero()
	switch {
	case n.minItems > 0:
		d.fail(KeywordMinItems, fmt.Sprintf("must have at least %d %s, got 0", n.minItems, plural(n.minItems, "item")))
	case n.minProps > 0:
		d.fail(KeywordMinProperties, fmt.Sprintf("must have at least %d %s, got 0", n.minProps, plural(n.minProps, "property")))
	}
	return true
}
