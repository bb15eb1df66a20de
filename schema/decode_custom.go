package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	jsonv2 "github.com/go-json-experiment/json"
)

// outOfRange records the error of decoding valid JSON into an any, which
// can only be a number too large for a float64, at the number's path.
func (d *decoder) outOfRange(err error) {
	path := d.pointer()
	if serr, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		path += string(serr.JSONPointer)
	}
	d.add(path, KeywordRange, "is a number too large for a 64-bit float")
}

// custom checks a value against a type's own schema, then lets the type read
// it.
func (d *decoder) custom(n *node, raw []byte, v reflect.Value) {
	if n.custom != nil {
		var inst any
		if err := jsonv2.Unmarshal(raw, &inst); err != nil {
			// Valid JSON, so a number beyond a float64, which the schema
			// check cannot read: the value as a whole is refused.
			d.fail(KeywordRange, "holds a number too large for a 64-bit float")
			return
		}
		if err := n.custom.resolved.Validate(inst); err != nil {
			d.fail(KeywordSchema, errorText(err))
			return
		}
	}
	target := v.Addr().Interface()
	var err error
	if u, ok := target.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(bytes.Clone(raw))
	} else {
		err = json.Unmarshal(raw, target)
	}
	if err != nil {
		d.fail(KeywordUnmarshal, errorText(err))
	}
}
