package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unsafe"
)

// readSelf reads a value, whose first byte c is at d.pos, of a type that
// reads itself with UnmarshalJSON and is described by its kind (see
// compiler.selfReadNode). The value is read as its kind into a scratch value,
// which checks it against the schema; only when that finds no issue does
// UnmarshalJSON read the same bytes into p.
func (d *decoder) readSelf(n *node, c byte, p unsafe.Pointer) {
	start := d.pos
	before := len(d.issues) + d.dropped
	d.valueOfKind(n, c, reflect.New(n.typ).UnsafePointer())
	if d.fatal || len(d.issues)+d.dropped > before {
		return
	}
	raw := bytes.Clone(d.data[start:d.pos])
	if err := reflect.NewAt(n.typ, p).Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		d.fail(KeywordUnmarshal, errorText(err))
	}
}
