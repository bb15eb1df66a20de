package dialect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// An ordObject is a JSON object that keeps its keys in order, so that a
// converted schema lists its properties in the order of the Go fields. Its
// values are nil, bool, json.Number, string, []any and *ordObject.
type ordObject struct {
	keys []string
	vals map[string]any
}

func newOrdObject() *ordObject { return &ordObject{vals: map[string]any{}} }

func (o *ordObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *ordObject) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// set sets k to v, keeping the position of an existing key.
func (o *ordObject) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ordObject) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			return
		}
	}
}

func (o *ordObject) str(k string) string {
	s, _ := o.vals[k].(string)
	return s
}

func (o *ordObject) obj(k string) *ordObject {
	m, _ := o.vals[k].(*ordObject)
	return m
}

// parseOrdJSON decodes one JSON value into ordered values, numbers as
// json.Number.
func parseOrdJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseOrdValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseOrdValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newOrdObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseOrdValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseOrdValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// appendOrdJSON appends the compact JSON of v, keeping the order of keys.
func appendOrdJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case json.Number:
		return append(b, v...), nil
	case string:
		return appendOrdString(b, v), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendOrdJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []string:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOrdString(b, e)
		}
		return append(b, ']'), nil
	case *ordObject:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOrdString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendOrdJSON(b, v.vals[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// appendOrdString appends s as a JSON string without escaping HTML
// characters, which a schema's patterns and descriptions often hold.
func appendOrdString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// ordJSONText returns the compact JSON of v, for messages and folded text.
func ordJSONText(v any) string {
	b, err := appendOrdJSON(nil, v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// plainJSON turns ordered values into the values encoding/json decodes
// into: map[string]any, []any, float64, string, bool and nil.
func plainJSON(v any) any {
	switch v := v.(type) {
	case *ordObject:
		m := make(map[string]any, len(v.keys))
		for _, k := range v.keys {
			m[k] = plainJSON(v.vals[k])
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = plainJSON(e)
		}
		return a
	case []string:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = e
		}
		return a
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
		return v
	}
	return v
}

// cloneOrd returns a deep copy of an ordered value.
func cloneOrd(v any) any {
	switch v := v.(type) {
	case *ordObject:
		o := &ordObject{keys: append([]string(nil), v.keys...), vals: make(map[string]any, len(v.vals))}
		for k, e := range v.vals {
			o.vals[k] = cloneOrd(e)
		}
		return o
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = cloneOrd(e)
		}
		return a
	case []string:
		return append([]string(nil), v...)
	}
	return v
}

// setAfter sets k to v. A new key goes right after the first of after that
// the object has, or at the end.
func (o *ordObject) setAfter(k string, v any, after ...string) {
	if o.has(k) {
		o.vals[k] = v
		return
	}
	for _, a := range after {
		for i, key := range o.keys {
			if key == a {
				o.vals[k] = v
				o.keys = append(o.keys[:i+1], append([]string{k}, o.keys[i+1:]...)...)
				return
			}
		}
	}
	o.set(k, v)
}

// setBefore sets k to v. A new key goes right before before, or at the end.
func (o *ordObject) setBefore(k string, v any, before string) {
	if o.has(k) {
		o.vals[k] = v
		return
	}
	for i, key := range o.keys {
		if key == before {
			o.vals[k] = v
			o.keys = append(o.keys[:i], append([]string{k}, o.keys[i:]...)...)
			return
		}
	}
	o.set(k, v)
}
