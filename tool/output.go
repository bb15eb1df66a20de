package tool

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/jsonname"
)

// An encoder writes a value of one Go type as JSON, byte for byte as
// encoding/json's Marshal writes it, built once per type rather than looked
// up on every call, and writing straight into the buffer whose text becomes
// the call's content (Marshal copies its result, which content then copies
// again into a string). It reports false when it cannot, which happens only
// where Marshal fails (a NaN, a time outside years 0 to 9999); the caller
// then asks Marshal, which says why.
//
// newEncoder covers plain data: booleans, numbers, strings, time.Time,
// structs without embedded fields, pointers, slices, arrays and maps with
// string keys, of these. For any other type (one with its own MarshalJSON or
// MarshalText, an interface, a recursive type, a field with the ",string"
// option or a name two fields share) it returns nil and the output goes to
// encoding/json. TestOutputEncoding and FuzzOutputEncoding compare the two.
type encoder func(b []byte, v reflect.Value) ([]byte, bool)

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
	timeType          = reflect.TypeFor[time.Time]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

// newEncoder returns the encoder of type t, or nil.
func newEncoder(t reflect.Type) encoder {
	return newEncoderIn(t, map[reflect.Type]bool{})
}

// isText reports whether values of t are given to the model as plain text:
// t is a string type that encoding/json would write as a plain JSON string.
// (A method with a pointer receiver does not count: encoding/json does not
// call it on an output value, which is not addressable.)
func isText(t reflect.Type) bool {
	return t.Kind() == reflect.String && !t.Implements(marshalerType) && !t.Implements(textMarshalerType)
}

// newEncoderIn is newEncoder for a type reached from the types in open,
// whose encoders are being built: reaching one again means a recursive
// type.
func newEncoderIn(t reflect.Type, open map[reflect.Type]bool) encoder {
	if t == timeType {
		return encodeTime
	}
	if open[t] || t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return nil
	}
	open[t] = true
	defer delete(open, t)
	switch t.Kind() {
	case reflect.Bool:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendBool(b, v.Bool()), true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendInt(b, v.Int(), 10), true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return strconv.AppendUint(b, v.Uint(), 10), true
		}
	case reflect.Float32:
		return func(b []byte, v reflect.Value) ([]byte, bool) { return appendFloat(b, v.Float(), 32) }
	case reflect.Float64:
		return func(b []byte, v reflect.Value) ([]byte, bool) { return appendFloat(b, v.Float(), 64) }
	case reflect.String:
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			return appendString(b, v.String()), true
		}
	case reflect.Pointer:
		elem := newEncoderIn(t.Elem(), open)
		if elem == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			if v.IsNil() {
				return append(b, "null"...), true
			}
			return elem(b, v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if t.Elem() != reflect.TypeFor[byte]() {
				return nil // a named byte type, whose methods encoding/json consults
			}
			return func(b []byte, v reflect.Value) ([]byte, bool) {
				if v.IsNil() {
					return append(b, "null"...), true
				}
				b = append(b, '"')
				b = base64.StdEncoding.AppendEncode(b, v.Bytes())
				return append(b, '"'), true
			}
		}
		items := newArrayEncoder(t, open)
		if items == nil {
			return nil
		}
		return func(b []byte, v reflect.Value) ([]byte, bool) {
			if v.IsNil() {
				return append(b, "null"...), true
			}
			return items(b, v)
		}
	case reflect.Array:
		return newArrayEncoder(t, open)
	case reflect.Map:
		return newMapEncoder(t, open)
	case reflect.Struct:
		return newStructEncoder(t, open)
	}
	return nil // interfaces, whose encoding depends on the value, and kinds JSON has no form for
}

func newArrayEncoder(t reflect.Type, open map[reflect.Type]bool) encoder {
	elem := newEncoderIn(t.Elem(), open)
	if elem == nil {
		return nil
	}
	return func(b []byte, v reflect.Value) ([]byte, bool) {
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = elem(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
}

// newMapEncoder writes a map with string keys, sorted, as encoding/json
// does.
func newMapEncoder(t reflect.Type, open map[reflect.Type]bool) encoder {
	k := t.Key()
	if k.Kind() != reflect.String || k.Implements(textMarshalerType) || reflect.PointerTo(k).Implements(textMarshalerType) {
		return nil
	}
	elem := newEncoderIn(t.Elem(), open)
	if elem == nil {
		return nil
	}
	return func(b []byte, v reflect.Value) ([]byte, bool) {
		if v.IsNil() {
			return append(b, "null"...), true
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		b = append(b, '{')
		for i, key := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, key.String())
			b = append(b, ':')
			var ok bool
			if b, ok = elem(b, v.MapIndex(key)); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
}

// An encodedField is one field of a struct encoder.
type encodedField struct {
	index     int
	key       []byte // the name, quoted and escaped, and the ':'
	omitEmpty bool
	omitZero  bool
	enc       encoder
}

// newStructEncoder writes a struct as encoding/json does: its exported
// fields in order, named by their json tags. Embedded fields, whose rules of
// promotion are encoding/json's own business, and the ",string" option make
// it give up.
func newStructEncoder(t reflect.Type, open map[reflect.Type]bool) encoder {
	var fields []encodedField
	var names []string
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !jsonname.Valid(name) {
			name = sf.Name
		}
		f := encodedField{index: i}
		for opts != "" {
			var opt string
			opt, opts, _ = strings.Cut(opts, ",")
			switch opt {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				return nil
			}
		}
		ft := sf.Type
		if f.omitZero && (ft.Implements(isZeroerType) || reflect.PointerTo(ft).Implements(isZeroerType)) {
			return nil // encoding/json asks the type's IsZero method
		}
		if slices.Contains(names, name) {
			return nil // two fields of one name, which encoding/json both drops
		}
		names = append(names, name)
		f.key = append(appendString(nil, name), ':')
		if f.enc = newEncoderIn(ft, open); f.enc == nil {
			return nil
		}
		fields = append(fields, f)
	}
	return func(b []byte, v reflect.Value) ([]byte, bool) {
		b = append(b, '{')
		first := true
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && isEmptyValue(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, f.key...)
			var ok bool
			if b, ok = f.enc(b, fv); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// appendFloat writes a float as encoding/json does: like ES6, plain
// notation from 1e-6 up to 1e21 and exponent notation outside, with the
// bounds compared in the float's own size.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// encodeTime writes a time.Time as its MarshalJSON does: RFC 3339 with
// nanoseconds, refusing what RFC 3339 cannot say.
func encodeTime(b []byte, v reflect.Value) ([]byte, bool) {
	t, _ := reflect.TypeAssert[time.Time](v)
	b = append(b, '"')
	start := len(b)
	b = t.AppendFormat(b, time.RFC3339Nano)
	if b[start+len("9999")] != '-' {
		return b, false // a year outside 0 to 9999
	}
	if b[len(b)-1] != 'Z' {
		zone := b[len(b)-len("Z07:00"):]
		if '0' <= zone[0] && zone[0] <= '9' || 10*(zone[1]-'0')+zone[2]-'0' >= 24 {
			return b, false // a zone offset of 24 hours or more
		}
	}
	return append(b, '"'), true
}

const hexDigits = "0123456789abcdef"

// plainOutputByte holds the ASCII bytes encoding/json writes in a string as
// they are: printable, and none of '"', '\\', '<', '>' and '&'.
var plainOutputByte = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// outputSpecial reports whether any of the eight bytes of w is not a plain
// output byte (plainOutputByte): below 0x20, 0x80 or above, or one of
// " \\ < > &. It tests each with the classic test for a zero byte in a
// word, (x - 0x0101…) & ^x & 0x8080…, which is exact as to whether there is
// one; FuzzAppendString checks it against the table.
func outputSpecial(w string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	zero := func(y uint64) uint64 { return (y - ones) &^ y & highs }
	return zero(x^(ones*'"'))|zero(x^(ones*'\\'))|zero(x^(ones*'<'))|zero(x^(ones*'>'))|zero(x^(ones*'&'))|
		(x-ones*0x20)&^x&highs|x&highs != 0
}

// appendString writes s as a JSON string as encoding/json does, with HTML
// escaping: <, > and & as \u003c, \u003e and \u0026, U+2028 and U+2029
// escaped, and invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time while there are eight, up to the
		// first word that holds a byte that is not; then one at a time.
		for i+8 <= len(s) && !outputSpecial(s[i:i+8]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if plainOutputByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// outputBuffers holds the buffers that outputs are encoded in.
var outputBuffers = sync.Pool{New: func() any { return new([]byte) }}

// encodeOutput returns v, of the type enc was built for, as JSON text, or
// false when enc cannot encode it.
func encodeOutput(enc encoder, v any) (string, bool) {
	buf := outputBuffers.Get().(*[]byte)
	b, ok := enc((*buf)[:0], reflect.ValueOf(v))
	text := string(b)
	if cap(b) <= 64<<10 {
		*buf = b
		outputBuffers.Put(buf)
	}
	return text, ok
}

// encodeStructured returns v, of the type enc was built for, as JSON in
// bytes of its own, for a result's Structured, or false when enc cannot
// encode it. The bytes are allocated once, at the size of the previous
// output (size), which it then updates: outputs of one tool tend to be of
// one size.
func encodeStructured(enc encoder, v any, size *atomic.Int64) ([]byte, bool) {
	n := size.Load()
	if n == 0 {
		n = 64 // the first output: a guess
	}
	b, ok := enc(make([]byte, 0, n), reflect.ValueOf(v))
	if !ok {
		return nil, false
	}
	if m := int64(len(b)); m != size.Load() && m <= 64<<10 {
		size.Store(m)
	}
	return b[:len(b):len(b)], true
}
