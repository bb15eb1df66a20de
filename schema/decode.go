package schema

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A decoder validates and decodes one JSON document in a single pass over
// its bytes. Decoders are pooled; each serves one document at a time.
type decoder struct {
	dec        jsontext.Decoder
	in         bytes.Buffer
	path       []segment
	issues     []Issue
	dropped    int // issues past maxIssues, counted but not kept
	maxIssues  int
	maxDepth   int
	nullAbsent bool     // a null for an optional field counts as absent
	nulls      []string // the paths of the nulls counted so
	fatal      bool     // the bytes are not JSON, or too deep: stop reading
	fatalIssue Issue    // why
	scratch    []byte
}

// A segment is one step of the path to the value being read.
type segment struct {
	name  string
	index int // -1 for an object member
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte, maxDepth, maxIssues int) *decoder {
	d := decoderPool.Get().(*decoder)
	d.in = *bytes.NewBuffer(data)
	d.dec.Reset(&d.in)
	d.maxDepth, d.maxIssues = maxDepth, maxIssues
	return d
}

func putDecoder(d *decoder) {
	d.in = bytes.Buffer{}
	d.dec.Reset(&d.in)
	d.path = d.path[:0]
	clear(d.issues)
	d.issues = d.issues[:0]
	d.dropped = 0
	d.fatal = false
	d.fatalIssue = Issue{}
	d.nullAbsent = false
	d.nulls = d.nulls[:0]
	if cap(d.scratch) > 1<<16 {
		d.scratch = nil
	}
	decoderPool.Put(d)
}

// takeIssues returns the issues found, closed by a note of any dropped.
// When the bytes are not JSON, only that issue is returned: what was read
// before it is no basis for advice.
func (d *decoder) takeIssues() []Issue {
	if d.fatal {
		return []Issue{d.fatalIssue}
	}
	if len(d.issues) == 0 {
		return nil
	}
	out := make([]Issue, len(d.issues), len(d.issues)+1)
	copy(out, d.issues)
	if d.dropped > 0 {
		out = append(out, Issue{Keyword: "limit", Message: fmt.Sprintf("%d more issues not listed; fix these first", d.dropped)})
	}
	return out
}

// decodeInto validates and decodes a whole document into v with no limits
// beyond the defaults; it serves values found at definition (defaults, enum
// values, examples).
func decodeInto(n *node, data []byte, v reflect.Value) []Issue {
	d := getDecoder(data, DefaultMaxDepth, DefaultMaxIssues)
	defer putDecoder(d)
	d.document(n, v)
	return d.takeIssues()
}

// document reads one top-level value and checks that nothing follows it.
func (d *decoder) document(n *node, v reflect.Value) {
	if len(bytes.TrimLeft(d.in.Bytes(), " \t\r\n")) == 0 {
		d.stop("", "syntax", "the arguments are empty; send a JSON object")
		return
	}
	d.value(n, v)
	if d.fatal {
		return
	}
	if d.dec.PeekKind() != jsontext.KindInvalid {
		d.stop("", "syntax", fmt.Sprintf("invalid JSON: unexpected data after the top-level value at byte %d", d.dec.InputOffset()))
		return
	}
	if _, err := d.dec.ReadToken(); err != io.EOF {
		d.syntax(err)
	}
}

// pointer renders the current path as a JSON Pointer.
func (d *decoder) pointer() string {
	if len(d.path) == 0 {
		return ""
	}
	var b []byte
	for _, s := range d.path {
		if s.index >= 0 {
			b = strconv.AppendInt(append(b, '/'), int64(s.index), 10)
		} else {
			b = appendPointerToken(b, s.name)
		}
	}
	return string(b)
}

func (d *decoder) add(path, keyword, message string) {
	if len(d.issues) >= d.maxIssues {
		d.dropped++
		return
	}
	d.issues = append(d.issues, Issue{Path: path, Keyword: keyword, Message: message})
}

// stop records the issue that ends the document.
func (d *decoder) stop(path, keyword, message string) {
	if !d.fatal {
		d.fatal = true
		d.fatalIssue = Issue{Path: path, Keyword: keyword, Message: message}
	}
}

// fail records an issue at the current path.
func (d *decoder) fail(keyword, message string) {
	if len(d.issues) >= d.maxIssues {
		d.dropped++
		return
	}
	d.add(d.pointer(), keyword, message)
}

// syntax records a syntactic error from jsontext and stops the document.
func (d *decoder) syntax(err error) {
	if d.fatal {
		return
	}
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			d.stop(d.pointer(), "syntax", "invalid JSON: the input ends before the value is complete")
			return
		}
		d.stop(d.pointer(), "syntax", "invalid JSON: "+err.Error())
		return
	}
	cause := strings.TrimPrefix(serr.Err.Error(), "jsontext: ")
	keyword := "syntax"
	switch {
	case strings.Contains(cause, "depth"):
		keyword, cause = "limit", "the value is nested too deeply"
	case errors.Is(serr.Err, io.ErrUnexpectedEOF):
		cause = "the input ends before the value is complete"
	}
	d.stop(string(serr.JSONPointer), keyword, fmt.Sprintf("invalid JSON at byte %d: %s", serr.ByteOffset, cause))
}

func (d *decoder) push(name string) { d.path = append(d.path, segment{name: name, index: -1}) }
func (d *decoder) pushIndex(i int)  { d.path = append(d.path, segment{index: i}) }
func (d *decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// read returns the next scalar value's bytes, valid until the next read.
func (d *decoder) read() (jsontext.Value, bool) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		d.syntax(err)
		return nil, false
	}
	return raw, true
}

// readNested reads a whole value that is kept or handed on as it is, after
// checking that its nesting stays within the depth limit.
func (d *decoder) readNested() (jsontext.Value, bool) {
	raw, ok := d.read()
	if ok && len(d.path)+nesting(raw) > d.maxDepth {
		d.tooDeep()
		return nil, false
	}
	return raw, ok
}

// nesting returns the deepest nesting of arrays and objects in a valid JSON
// value.
func nesting(raw []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// tooDeep records a value nested past the limit and stops the document.
func (d *decoder) tooDeep() {
	d.stop(d.pointer(), "limit", "the value is nested too deeply; the limit is "+strconv.Itoa(d.maxDepth)+" levels")
}

// unquote returns the contents of a JSON string value.
func (d *decoder) unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	d.scratch, _ = jsontext.AppendUnquote(d.scratch[:0], raw)
	return string(d.scratch)
}

// mismatch reads past a value of the wrong JSON type and records it.
func (d *decoder) mismatch(n *node, k jsontext.Kind) {
	raw, ok := d.read()
	if !ok {
		return
	}
	want := n.jsonType()
	article := "a "
	if want == "integer" || want == "array" || want == "object" {
		article = "an "
	}
	if want == "value" {
		article = ""
	}
	msg := "must be " + article + want
	if n.nullable {
		msg += " or null"
	}
	d.fail("type", msg+", got "+describeJSON(k, raw))
}

// describeJSON names a JSON value's type and, when short, the value.
func describeJSON(k jsontext.Kind, raw []byte) string {
	switch k {
	case jsontext.KindNull:
		return "null"
	case jsontext.KindTrue, jsontext.KindFalse:
		return "a boolean (" + string(raw) + ")"
	case jsontext.KindNumber:
		return "a number (" + shortRaw(raw) + ")"
	case jsontext.KindString:
		return "a string (" + shortRaw(raw) + ")"
	case jsontext.KindBeginArray:
		return "an array"
	case jsontext.KindBeginObject:
		return "an object"
	}
	return "a value"
}

// value reads one value into v as node n says.
func (d *decoder) value(n *node, v reflect.Value) {
	if d.fatal {
		return
	}
	k := d.dec.PeekKind()
	if k == jsontext.KindInvalid {
		_, err := d.dec.ReadValue()
		d.syntax(err)
		return
	}
	if len(d.path) >= d.maxDepth && (k == jsontext.KindBeginObject || k == jsontext.KindBeginArray) {
		d.tooDeep()
		return
	}
	if k == jsontext.KindNull && n.nullable {
		if _, ok := d.read(); ok {
			if n.kind == kindRaw {
				v.SetBytes([]byte("null"))
			} else {
				v.SetZero()
			}
		}
		return
	}
	switch n.kind {
	case kindBool:
		if k != jsontext.KindTrue && k != jsontext.KindFalse {
			d.mismatch(n, k)
			return
		}
		if _, ok := d.read(); ok {
			b := k == jsontext.KindTrue
			if n.enum != nil && !d.inEnum(n, b) {
				d.failEnum(n, strconv.FormatBool(b))
			}
			v.SetBool(b)
		}
	case kindInt, kindUint, kindFloat:
		if k != jsontext.KindNumber {
			d.mismatch(n, k)
			return
		}
		if raw, ok := d.read(); ok {
			d.number(n, raw, v)
		}
	case kindString:
		if k != jsontext.KindString {
			d.mismatch(n, k)
			return
		}
		if raw, ok := d.read(); ok {
			s := d.unquote(raw)
			d.checkString(n, s)
			v.SetString(s)
		}
	case kindText:
		if k != jsontext.KindString {
			d.mismatch(n, k)
			return
		}
		if raw, ok := d.read(); ok {
			s := d.unquote(raw)
			if d.checkString(n, s) {
				if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
					d.fail("unmarshal", err.Error())
				}
			}
		}
	case kindTime:
		if k != jsontext.KindString {
			d.mismatch(n, k)
			return
		}
		if raw, ok := d.read(); ok {
			s := d.unquote(raw)
			if !d.checkString(n, s) {
				return
			}
			// The format check passed, so s is a date-time: RFC 3339 allows
			// a lower-case t and z, which time.Parse does not.
			t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
			if err != nil {
				// A valid date-time that time.Time cannot hold, such as a
				// leap second (23:59:60); the schema accepts it.
				d.fail("unmarshal", "is a date-time that Go's time.Time cannot hold (no leap seconds, no signed fields); write it like 2024-05-01T12:00:00Z, got "+quote(s))
				return
			}
			*v.Addr().Interface().(*time.Time) = t
		}
	case kindBytes:
		if k != jsontext.KindString {
			d.mismatch(n, k)
			return
		}
		if raw, ok := d.read(); ok {
			s := d.unquote(raw)
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				d.fail("contentEncoding", "must be base64 (standard alphabet, padded)")
				return
			}
			v.SetBytes(b)
		}
	case kindStruct:
		if k != jsontext.KindBeginObject {
			d.mismatch(n, k)
			return
		}
		d.object(n, v)
	case kindSlice, kindArray:
		if k != jsontext.KindBeginArray {
			d.mismatch(n, k)
			return
		}
		d.array(n, v)
	case kindMap:
		if k != jsontext.KindBeginObject {
			d.mismatch(n, k)
			return
		}
		d.mapValue(n, v)
	case kindPointer:
		p := reflect.New(n.elem.typ)
		d.value(n.elem, p.Elem())
		v.Set(p)
	case kindAny:
		if raw, ok := d.readNested(); ok {
			var x any
			if err := jsonv2.Unmarshal(raw, &x); err != nil {
				d.outOfRange(err)
				return
			}
			if x != nil {
				v.Set(reflect.ValueOf(x))
			}
		}
	case kindRaw:
		if raw, ok := d.readNested(); ok {
			v.SetBytes(bytes.Clone(raw))
		}
	case kindCustom:
		if raw, ok := d.readNested(); ok {
			d.custom(n, raw, v)
		}
	}
}

// outOfRange records the error of decoding valid JSON into an any, which
// can only be a number too large for a float64, at the number's path.
func (d *decoder) outOfRange(err error) {
	path := d.pointer()
	if serr, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		path += string(serr.JSONPointer)
	}
	d.add(path, "range", "is a number too large for a 64-bit float")
}

// custom checks a value against a type's own schema, then lets the type read
// it.
func (d *decoder) custom(n *node, raw []byte, v reflect.Value) {
	if n.resolved != nil {
		var inst any
		if err := jsonv2.Unmarshal(raw, &inst); err != nil {
			// Valid JSON, so a number beyond a float64, which the schema
			// check cannot read: the value as a whole is refused.
			d.fail("range", "holds a number too large for a 64-bit float")
			return
		}
		if err := n.resolved.Validate(inst); err != nil {
			d.fail("schema", err.Error())
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
		d.fail("unmarshal", err.Error())
	}
}

// object reads a JSON object into a struct.
func (d *decoder) object(n *node, v reflect.Value) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	var seenSmall uint64
	var seenLarge []bool
	if len(n.fields) > 64 {
		seenLarge = make([]bool, len(n.fields))
	}
	for {
		k := d.dec.PeekKind()
		if k == jsontext.KindEndObject {
			break
		}
		if k != jsontext.KindString {
			_, err := d.dec.ReadToken()
			d.syntax(err)
			return
		}
		rawName, ok := d.read()
		if !ok {
			return
		}
		var f *field
		if body := rawName[1 : len(rawName)-1]; bytes.IndexByte(body, '\\') < 0 {
			f = n.byName[string(body)]
		} else {
			f = n.byName[d.unquote(rawName)]
		}
		if f == nil {
			d.unknown(n, d.unquote(rawName))
			if err := d.dec.SkipValue(); err != nil {
				d.syntax(err)
				return
			}
			continue
		}
		if d.nullAbsent && d.dec.PeekKind() == jsontext.KindNull && !f.required && !f.nullTagged && (!f.node.nullable || f.dflt != nil) {
			// A null for an optional field means "absent" (the OpenAI
			// strict-mode convention): skip it, leave the field unseen so
			// its default applies, and say so.
			if _, ok := d.read(); !ok {
				return
			}
			d.push(f.name)
			d.nulls = append(d.nulls, d.pointer())
			d.pop()
			continue
		}
		if seenLarge != nil {
			seenLarge[f.bit] = true
		} else {
			seenSmall |= 1 << f.bit
		}
		fv := fieldValue(v, f)
		d.push(f.name)
		if f.nullable && d.dec.PeekKind() == jsontext.KindNull {
			if _, ok := d.read(); ok {
				fv.SetZero()
			}
		} else {
			d.value(f.node, fv)
		}
		d.pop()
		if d.fatal {
			return
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	for _, f := range n.fields {
		seen := false
		if seenLarge != nil {
			seen = seenLarge[f.bit]
		} else {
			seen = seenSmall&(1<<f.bit) != 0
		}
		switch {
		case seen:
		case f.required:
			d.fail("required", "missing required property "+strconv.Quote(f.name)+" ("+describeNode(f.node)+")")
		case f.dflt != nil:
			fv := fieldValue(v, f)
			if f.dfltShared {
				fv.Set(f.dfltValue)
			} else {
				decodeInto(f.node, f.dflt, fv)
			}
		}
	}
}

// describeNode names what a missing property should hold, for messages.
func describeNode(n *node) string {
	n = n.deref()
	t := n.jsonType()
	switch {
	case n.kind == kindAny || n.kind == kindRaw || n.kind == kindCustom:
		return "any JSON value"
	case len(n.enumText) > 0 && !n.isConst:
		return "one of " + strings.Join(n.enumText, ", ")
	case t == "integer" || t == "array" || t == "object":
		return "an " + t
	}
	return "a " + t
}

// unknown records a property the struct does not have, naming the closest.
func (d *decoder) unknown(n *node, name string) {
	msg := "unknown property " + quote(name)
	best, bestDist := "", 4
	for _, f := range n.fields {
		if dist := editDistance(strings.ToLower(name), strings.ToLower(f.name)); dist < bestDist {
			best, bestDist = f.name, dist
		}
	}
	if best != "" {
		msg += "; did you mean " + strconv.Quote(best) + "?"
	} else if len(n.fields) == 0 {
		msg += "; this object takes no properties"
	} else {
		names := make([]string, 0, min(len(n.fields), 12))
		for _, f := range n.fields[:min(len(n.fields), 12)] {
			names = append(names, strconv.Quote(f.name))
		}
		msg += "; the properties are " + strings.Join(names, ", ")
		if len(n.fields) > 12 {
			msg += ", …"
		}
	}
	d.fail("additionalProperties", msg)
}

// fieldValue returns the struct field f of v, allocating embedded pointers on
// the way.
func fieldValue(v reflect.Value, f *field) reflect.Value {
	if !f.throughPtr {
		if len(f.index) == 1 {
			return v.Field(f.index[0])
		}
		return v.FieldByIndex(f.index)
	}
	for i, x := range f.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// array reads a JSON array into a slice or a fixed array.
func (d *decoder) array(n *node, v reflect.Value) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	count := 0
	itemIssues := len(d.issues) + d.dropped
	for d.dec.PeekKind() != jsontext.KindEndArray {
		if d.fatal {
			return
		}
		if n.kind == kindSlice {
			if count == v.Len() {
				v.Grow(1)
				v.SetLen(count + 1)
			}
			d.pushIndex(count)
			d.value(n.elem, v.Index(count))
			d.pop()
		} else if count < n.length {
			d.pushIndex(count)
			d.value(n.elem, v.Index(count))
			d.pop()
		} else {
			// An item past a fixed length is checked like the others, as
			// the schema's items keyword does, and then dropped.
			d.pushIndex(count)
			d.value(n.elem, reflect.New(n.elem.typ).Elem())
			d.pop()
		}
		count++
	}
	if d.fatal {
		return
	}
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	if n.kind == kindSlice && v.IsNil() {
		v.Set(reflect.MakeSlice(n.typ, 0, 0))
	}
	switch {
	case n.kind == kindArray && count != n.length:
		keyword := "minItems"
		if count > n.length {
			keyword = "maxItems"
		}
		d.fail(keyword, fmt.Sprintf("must have exactly %d items, got %d", n.length, count))
	case n.minItems >= 0 && count < n.minItems:
		d.fail("minItems", fmt.Sprintf("must have at least %d %s, got %d", n.minItems, plural(n.minItems, "item"), count))
	case n.maxItems >= 0 && count > n.maxItems:
		d.fail("maxItems", fmt.Sprintf("must have at most %d %s, got %d", n.maxItems, plural(n.maxItems, "item"), count))
	}
	// Items that failed hold zero values, which would compare equal although
	// the JSON differs; uniqueness is judged once every item is valid.
	if n.uniqueItems && len(d.issues)+d.dropped == itemIssues {
		if i, j, dup := duplicate(v, min(count, v.Len())); dup {
			d.fail("uniqueItems", fmt.Sprintf("items %d and %d are equal; every item must be unique", i, j))
		}
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// duplicate finds two equal items among the first n of v. Items compare by
// the values they hold: pointers are followed, and a json.RawMessage
// compares the JSON value it holds, not its bytes (1 and 1.0, or the same
// object with its keys in another order, are equal).
func duplicate(v reflect.Value, n int) (int, int, bool) {
	if v.Type().Elem() == rawMessageType {
		items := make([]any, n)
		for i := range n {
			if json.Unmarshal(v.Index(i).Bytes(), &items[i]) != nil {
				items[i] = string(v.Index(i).Bytes())
			}
		}
		v, n = reflect.ValueOf(items), len(items)
	}
	if et := v.Type().Elem(); plainComparable(et) || et.Kind() == reflect.Pointer && plainComparable(et.Elem()) {
		seen := make(map[any]int, n)
		for i := range n {
			var key any = nilItem{}
			switch item := v.Index(i); {
			case item.Kind() != reflect.Pointer:
				key = item.Interface()
			case !item.IsNil():
				key = item.Elem().Interface()
			}
			if j, ok := seen[key]; ok {
				return j, i, true
			}
			seen[key] = i
		}
		return 0, 0, false
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if reflect.DeepEqual(v.Index(i).Interface(), v.Index(j).Interface()) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// nilItem is the key of a nil pointer item in duplicate.
type nilItem struct{}

// plainComparable reports whether == on values of type t compares the
// values they hold: t is comparable and holds no pointer or interface, whose
// == would compare addresses or dynamic types.
func plainComparable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.UnsafePointer, reflect.Chan,
		reflect.Map, reflect.Slice, reflect.Func:
		return false
	case reflect.Array:
		return plainComparable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainComparable(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}

// mapValue reads a JSON object into a map[string]T.
func (d *decoder) mapValue(n *node, v reflect.Value) {
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(n.typ))
	}
	key := reflect.New(n.typ.Key()).Elem()
	elem := reflect.New(n.elem.typ).Elem()
	count := 0
	for {
		k := d.dec.PeekKind()
		if k == jsontext.KindEndObject {
			break
		}
		if k != jsontext.KindString {
			_, err := d.dec.ReadToken()
			d.syntax(err)
			return
		}
		rawName, ok := d.read()
		if !ok {
			return
		}
		name := d.unquote(rawName)
		elem.SetZero()
		d.push(name)
		d.value(n.elem, elem)
		d.pop()
		if d.fatal {
			return
		}
		key.SetString(name)
		v.SetMapIndex(key, elem)
		count++
	}
	if _, err := d.dec.ReadToken(); err != nil {
		d.syntax(err)
		return
	}
	switch {
	case n.minProps >= 0 && count < n.minProps:
		d.fail("minProperties", fmt.Sprintf("must have at least %d %s, got %d", n.minProps, plural(n.minProps, "property"), count))
	case n.maxProps >= 0 && count > n.maxProps:
		d.fail("maxProperties", fmt.Sprintf("must have at most %d %s, got %d", n.maxProps, plural(n.maxProps, "property"), count))
	}
}

// checkString checks the string keywords and reports whether all passed.
func (d *decoder) checkString(n *node, s string) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		count := len(s)
		if count >= n.minLength || (n.maxLength >= 0 && count > n.maxLength) {
			count = utf8.RuneCountInString(s)
		}
		if n.minLength >= 0 && count < n.minLength {
			d.fail("minLength", fmt.Sprintf("must be at least %d %s, got %d", n.minLength, plural(n.minLength, "character"), count))
			ok = false
		}
		if n.maxLength >= 0 && count > n.maxLength {
			d.fail("maxLength", fmt.Sprintf("must be at most %d %s, got %d", n.maxLength, plural(n.maxLength, "character"), count))
			ok = false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		d.fail("pattern", "must match the pattern "+n.pattern.String()+", got "+quote(s))
		ok = false
	}
	if n.formatCheck != nil && !n.formatCheck(s) {
		d.fail("format", "must be "+formatNoun(n.format)+", got "+quote(s))
		ok = false
	}
	if n.enum != nil && !d.inEnum(n, s) {
		d.failEnum(n, quote(s))
		ok = false
	}
	return ok
}

// formatNoun describes a format for messages.
func formatNoun(format string) string {
	switch format {
	case "date-time":
		return "an RFC 3339 date-time such as 2024-05-01T12:00:00Z"
	case "date":
		return "a date such as 2024-05-01"
	case "time":
		return "a time with an offset such as 12:00:00Z"
	case "duration":
		return "an ISO 8601 duration such as P3DT4H"
	case "email":
		return "an email address"
	case "hostname":
		return "a hostname"
	case "ipv4":
		return "an IPv4 address"
	case "ipv6":
		return "an IPv6 address"
	case "uri":
		return "an absolute URI such as https://example.com/page"
	case "uri-reference":
		return "a URI reference"
	case "uuid":
		return "a UUID such as 123e4567-e89b-12d3-a456-426614174000"
	}
	return "a valid " + format
}

// inEnum reports whether v is one of the node's allowed values.
func (d *decoder) inEnum(n *node, v any) bool {
	if s, ok := v.(string); ok && n.enumIndex != nil {
		_, found := n.enumIndex[s]
		return found
	}
	for _, e := range n.enum {
		if e == v {
			return true
		}
	}
	return false
}

func (d *decoder) failEnum(n *node, got string) {
	if n.isConst {
		d.fail("const", "must be "+n.enumText[0]+", got "+got)
		return
	}
	list := n.enumText
	more := ""
	if len(list) > 20 {
		list, more = list[:20], ", …"
	}
	d.fail("enum", "must be one of "+strings.Join(list, ", ")+more+"; got "+got)
}

// number reads a JSON number into an integer or float field and checks it.
// The schema keywords are checked first, so that a value outside a small
// integer's range is reported as the minimum or maximum the schema shows.
func (d *decoder) number(n *node, raw []byte, v reflect.Value) {
	switch n.kind {
	case kindInt:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if !exact.IsInt64() {
				d.fail("range", "is too large for a 64-bit integer: "+shortRaw(raw))
				return
			}
			i = exact.Int64()
		} else if !d.checkNumber(n, float64(i), raw) {
			return
		}
		if n.bits < 64 && (i < -1<<(n.bits-1) || i > 1<<(n.bits-1)-1) {
			d.fail("range", "is out of range for a "+strconv.Itoa(n.bits)+"-bit integer")
			return
		}
		v.SetInt(i)
	case kindUint:
		u, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if !exact.IsUint64() {
				d.fail("range", "is out of range for a 64-bit unsigned integer: "+shortRaw(raw))
				return
			}
			u = exact.Uint64()
		} else if !d.checkNumber(n, float64(u), raw) {
			return
		}
		if n.bits < 64 && u > 1<<n.bits-1 {
			d.fail("range", "is out of range for a "+strconv.Itoa(n.bits)+"-bit unsigned integer")
			return
		}
		v.SetUint(u)
	case kindFloat:
		// The keywords judge the JSON number, read as a float64 as the
		// schema's bounds are; a float32 holds it rounded, and the rounding
		// must not move it across a bound (0.1 against maximum=0.1).
		f, err := strconv.ParseFloat(string(raw), 64)
		held := f
		if err == nil && n.bits < 64 {
			held, err = strconv.ParseFloat(string(raw), n.bits)
		}
		if err != nil {
			d.fail("range", "is too large for a "+strconv.Itoa(n.bits)+"-bit number: "+shortRaw(raw))
			return
		}
		if d.checkNumber(n, f, raw) {
			v.SetFloat(held)
		}
	}
}

// integral reads a number that strconv refused as an integer: one written
// with a fraction or an exponent (1.0, 1e3), or one beyond 64 bits. It
// returns the number as a float64, for the keywords, and exactly, for the
// value. Whether it is an integer is decided exactly, as JSON Schema does:
// 1.0000000000000000001 and 1e-400 are not integers, although their
// float64 values are.
func (d *decoder) integral(raw []byte) (float64, *big.Int, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		d.fail("range", "is too large for a 64-bit integer: "+shortRaw(raw))
		return 0, nil, false
	}
	switch {
	case f == 0:
		// Zero, or a fraction that underflowed. (Told apart without
		// big.Rat, which 1e-999999 would make slow.)
		if zeroLiteral(raw) {
			return 0, new(big.Int), true
		}
	case f == math.Trunc(f):
		// At least 1 in magnitude, so the exact value costs no more than
		// the digits written.
		if r, ok := new(big.Rat).SetString(string(raw)); ok && r.IsInt() {
			return f, r.Num(), true
		}
	}
	d.fail("type", "must be an integer, got "+shortRaw(raw))
	return 0, nil, false
}

// checkNumber checks the number keywords and reports whether all passed.
func (d *decoder) checkNumber(n *node, f float64, raw []byte) bool {
	ok := true
	if n.minimum != nil && f < *n.minimum {
		d.fail("minimum", "must be at least "+formatFloat(*n.minimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.maximum != nil && f > *n.maximum {
		d.fail("maximum", "must be at most "+formatFloat(*n.maximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMinimum != nil && f <= *n.exclusiveMinimum {
		d.fail("exclusiveMinimum", "must be greater than "+formatFloat(*n.exclusiveMinimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMaximum != nil && f >= *n.exclusiveMaximum {
		d.fail("exclusiveMaximum", "must be less than "+formatFloat(*n.exclusiveMaximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.multipleOf != nil && !multipleOf(raw, n.multipleOf) {
		d.fail("multipleOf", "must be a multiple of "+n.multipleOfText+", got "+shortRaw(raw))
		ok = false
	}
	if n.enum != nil && !d.inEnum(n, f) {
		d.failEnum(n, shortRaw(raw))
		ok = false
	}
	return ok
}

// multipleOf reports whether the JSON number raw is an exact multiple of m.
func multipleOf(raw []byte, m *big.Rat) bool {
	if m.IsInt() && m.Num().IsInt64() {
		if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return i%m.Num().Int64() == 0
		}
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f == 0 {
		// Zero is a multiple of anything; a fraction too small for a
		// float64 is smaller than m, so a multiple of nothing. (Decided
		// without big.Rat, which 1e-999999 would make slow.)
		if mf, _ := m.Float64(); mf > 1e-300 {
			return zeroLiteral(raw)
		}
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok {
		return false
	}
	return r.Quo(r, m).IsInt()
}

// zeroLiteral reports whether the JSON number raw is zero: its digits before
// any exponent are all zeros.
func zeroLiteral(raw []byte) bool {
	mantissa := raw
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		mantissa = raw[:i]
	}
	return len(bytes.Trim(mantissa, "-0.")) == 0
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
