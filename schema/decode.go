package schema

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
)

// A decoder validates and decodes one JSON document in a single pass over
// its bytes. Its scanner (scan.go) reads the syntax; the methods here read
// values as the nodes say and check their keywords. Decoders are pooled;
// each serves one document at a time.
type decoder struct {
	data       []byte // the document
	pos        int    // the offset of the next byte to read
	path       []segment
	names      []jsonString // member names of the objects skip is in
	issues     []Issue
	dropped    int // issues past maxIssues or maxPathBytes, counted but not kept
	pathBytes  int // the bytes of the paths of the issues kept
	maxIssues  int
	maxDepth   int
	nullAbsent bool     // a null for an optional field counts as absent
	nulls      []string // the paths of the nulls counted so
	fatal      bool     // the bytes are not JSON, or too deep: stop reading
	fatalIssue Issue    // why
	goValue    bool     // the document is encoding/json's encoding of a Go value (Validator.Check)
	scratch    []byte
	strs       []byte   // the chunk that kept strings are carved from; see keep
	strItems   []string // the items of the []string arrays being read
	defaults   int      // how many defaults deep this document is (see setDefault)
}

// A segment is one step of the path to the value being read: an array
// index, or an object member's name as the document writes it.
type segment struct {
	index int        // -1 for an object member
	name  jsonString // the member's name, when index is -1
}

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte, maxDepth, maxIssues int) *decoder {
	d := decoderPool.Get().(*decoder)
	d.data, d.pos = data, 0
	d.maxDepth, d.maxIssues = min(maxDepth, maxNesting), maxIssues
	return d
}

func putDecoder(d *decoder) {
	d.data = nil
	d.strs = nil // the decoded strings point into it: never reuse it
	d.path = d.path[:0]
	d.names = d.names[:0]
	clear(d.strItems)
	d.strItems = d.strItems[:0]
	clear(d.issues)
	d.issues = d.issues[:0]
	d.dropped = 0
	d.pathBytes = 0
	d.fatal = false
	d.fatalIssue = Issue{}
	d.nullAbsent = false
	d.goValue = false
	d.nulls = d.nulls[:0]
	d.defaults = 0
	if cap(d.scratch) > 1<<16 {
		d.scratch = nil
	}
	if cap(d.path) > 1<<10 {
		d.path = nil
	}
	if cap(d.names) > 1<<10 {
		d.names = nil
	}
	if cap(d.strItems) > 1<<10 {
		d.strItems = nil
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
		out = append(out, moreIssues(d.dropped))
	}
	return out
}

// decodeInto validates and decodes a whole document into v, which must be
// addressable, with no limits beyond the defaults; it serves values found at
// definition (defaults, enum values, examples).
func decodeInto(n *node, data []byte, v reflect.Value) []Issue {
	return decodeDefaultsDeep(n, data, v, 0)
}

// decodeDefaultsDeep is decodeInto for a document that is itself a default,
// defaults levels deep (see setDefault).
func decodeDefaultsDeep(n *node, data []byte, v reflect.Value, defaults int) []Issue {
	d := getDecoder(data, DefaultMaxDepth, DefaultMaxIssues)
	defer putDecoder(d)
	d.defaults = defaults
	d.document(n, v)
	return d.takeIssues()
}

// document reads one top-level value into v, which must be addressable, and
// checks that nothing follows it.
func (d *decoder) document(n *node, v reflect.Value) {
	if d.peek(); d.pos == len(d.data) {
		d.stop("", KeywordSyntax, "the arguments are empty; send a JSON object")
		return
	}
	d.value(n, v.Addr().UnsafePointer())
	if d.fatal {
		return
	}
	if d.peek(); d.pos < len(d.data) {
		d.badChar(d.pos, "after top-level value")
	}
}

// pointer renders the current path as a JSON Pointer.
//
// A path may hold a name megabytes long, and each issue under it repeats
// it, so the pointer is written into one buffer of about its final size,
// which becomes the string without a copy: no byte of it is written after.
func (d *decoder) pointer() string {
	if len(d.path) == 0 {
		return ""
	}
	size := 0
	for _, s := range d.path {
		if s.index >= 0 {
			size += 1 + 20
		} else {
			size += 1 + s.name.end - s.name.start // at least the token, unescaped, without '~' and '/' written as two bytes
		}
	}
	b := make([]byte, 0, size)
	for _, s := range d.path {
		if s.index >= 0 {
			b = strconv.AppendInt(append(b, '/'), int64(s.index), 10)
		} else if !s.name.escaped {
			b = appendPointerToken(b, s.name.raw(d.data))
		} else {
			d.scratch = appendUnquoted(d.scratch[:0], s.name.raw(d.data))
			b = appendPointerToken(b, d.scratch)
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (d *decoder) add(path, keyword, message string) {
	if d.full() {
		d.dropped++
		return
	}
	d.pathBytes += len(path)
	d.issues = append(d.issues, Issue{Path: path, Keyword: keyword, Message: message})
}

// maxPathBytes bounds the bytes of the paths of the issues a document
// lists, past the first issue: further issues are counted, not listed. A
// path repeats the names it runs through, so without it a few hundred issues
// under one long name would cost memory hundreds of times the document's
// size; with it, what a document's issues hold is linear in its size.
const maxPathBytes = 64 << 10

// full reports whether no more issues are listed: the issue limit, or the
// bytes of their paths, is reached.
func (d *decoder) full() bool {
	return len(d.issues) >= d.maxIssues || len(d.issues) > 0 && d.pathBytes >= maxPathBytes
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
	if d.full() {
		d.dropped++
		return
	}
	d.add(d.pointer(), keyword, message)
}

func (d *decoder) pushName(name jsonString) { d.path = append(d.path, segment{index: -1, name: name}) }
func (d *decoder) pushIndex(i int)          { d.path = append(d.path, segment{index: i}) }
func (d *decoder) pop()                     { d.path = d.path[:len(d.path)-1] }

// tooDeep records a value nested past the limit and stops the document.
func (d *decoder) tooDeep() {
	d.stop(d.pointer(), KeywordLimit, "the value is nested too deeply; the limit is "+strconv.Itoa(d.maxDepth)+" levels")
}

// unquote returns the value of a string that scanString read.
func (d *decoder) unquote(s jsonString) string {
	if !s.escaped {
		return string(s.raw(d.data))
	}
	d.scratch = appendUnquoted(d.scratch[:0], s.raw(d.data))
	return string(d.scratch)
}

// readString reads a string value, whose '"' is at d.pos, for a moment's
// use.
func (d *decoder) readString() (string, bool) {
	s, ok := d.scanString()
	if !ok {
		return "", false
	}
	return d.unquote(s), true
}

// maxStringChunk is the largest chunk keep allocates for several strings.
const maxStringChunk = 8 << 10

// keep returns the value of a string that scanString read, for the decoded
// value to keep.
//
// Rather than allocate each string on its own, keep copies the strings of a
// document one after another into a chunk of memory and makes each a string
// that points into the chunk (unsafe.String). That is safe because a byte of
// a chunk is written once, before the string that holds it is made, and
// never again: keep only appends to d.strs within its capacity, and when a
// chunk is full, or the document is done (putDecoder), the decoder lets go of
// it instead of reusing it. Unescaping never makes a string longer, so the
// strings still to come fit in the rest of the document's length; a chunk is
// that long, or maxStringChunk if that is less, so that one string kept
// alive keeps at most a few KiB of others with it. A string longer than that
// gets a chunk of its own.
func (d *decoder) keep(s jsonString) string {
	n := s.end - s.start
	if n == 0 {
		return ""
	}
	if cap(d.strs)-len(d.strs) < n {
		d.strs = make([]byte, 0, max(n, min(len(d.data)-s.start, maxStringChunk)))
	}
	start := len(d.strs)
	if s.escaped {
		d.strs = appendUnquoted(d.strs, s.raw(d.data))
	} else {
		d.strs = append(d.strs, s.raw(d.data)...)
	}
	b := d.strs[start:]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// mismatch reads past a value of the wrong JSON type, whose first byte is
// c, and records it.
func (d *decoder) mismatch(n *node, c byte) {
	raw, ok := d.skip()
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
	d.fail(KeywordType, msg+", got "+describeJSON(c, raw))
}

// describeJSON names a JSON value's type, from its first byte c, and, when
// short, the value.
func describeJSON(c byte, raw []byte) string {
	switch c {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean (" + string(raw) + ")"
	case '"':
		return "a string (" + shortRaw(raw) + ")"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number (" + shortRaw(raw) + ")"
}

// isNumberStart reports whether c can start a JSON number.
func isNumberStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }

// value reads one value, into the value of n's type at p.
//
// Values are stored through unsafe pointers rather than through
// reflect.Value, which checks its flags on every access. The rules that keep
// this safe:
//
//   - p always points at a live value of type n.typ: the caller's (from an
//     addressable reflect.Value), a new one from reflect.New, a struct field
//     at the offset compile.go took from reflect (fieldOffset), or an item
//     of an array or slice at a multiple of the item's size.
//   - A value is written only as the type that the node's kind guarantees
//     (a kindString node's type has kind string, a kindTime node's is
//     time.Time, and so on; see typeNode), with an ordinary typed store, so
//     the garbage collector's write barriers apply.
//   - Anything beyond those plain shapes (maps, custom types, zeroing) goes
//     through reflect.NewAt(n.typ, p), which allocates nothing.
func (d *decoder) value(n *node, p unsafe.Pointer) {
	c := d.peek()
	if c == 'n' && n.nullable {
		if d.scanLiteral("null") {
			if n.kind == kindRaw {
				*(*[]byte)(p) = []byte("null")
			} else {
				reflect.NewAt(n.typ, p).Elem().SetZero()
			}
		}
		return
	}
	if c == 'n' && d.goValue && d.nilContainer(n, p) {
		return
	}
	if n.selfRead {
		d.readSelf(n, c, p)
		return
	}
	d.valueOfKind(n, c, p)
}

// valueOfKind is value for a value that is not null, read as its node's
// kind says, whose first byte is c.
func (d *decoder) valueOfKind(n *node, c byte, p unsafe.Pointer) {
	switch n.kind {
	case kindBool:
		if c != 't' && c != 'f' {
			d.mismatch(n, c)
			return
		}
		b := c == 't'
		if !d.scanLiteral(strconv.FormatBool(b)) {
			return
		}
		if n.enum != nil && !d.inEnum(n, b) {
			d.failEnum(n, strconv.FormatBool(b))
		}
		*(*bool)(p) = b
	case kindInt, kindUint, kindFloat:
		if !isNumberStart(c) {
			d.mismatch(n, c)
			return
		}
		start := d.pos
		if d.scanNumber() {
			d.number(n, d.data[start:d.pos], p)
		}
	case kindString:
		*(*string)(p) = d.stringValue(n, c)
	case kindText:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		if s, ok := d.readString(); ok {
			if d.checkString(n, s) {
				if err := reflect.NewAt(n.typ, p).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
					d.fail(KeywordUnmarshal, errorText(err))
				}
			}
		}
	case kindDuration:
		d.duration(n, c, p)
	case kindTime:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		if s, ok := d.readString(); ok {
			if !d.checkString(n, s) {
				return
			}
			// The format check passed, so s is a date-time: RFC 3339 allows
			// a lower-case t and z, which time.Parse does not.
			t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
			if err != nil {
				// A valid date-time that time.Time cannot hold, such as a
				// leap second (23:59:60); the schema accepts it.
				d.fail(KeywordUnmarshal, "is a date-time that Go's time.Time cannot hold (no leap seconds, no signed fields); write it like 2024-05-01T12:00:00Z, got "+quote(s))
				return
			}
			*(*time.Time)(p) = t
		}
	case kindBytes:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		if s, ok := d.readString(); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				d.fail(KeywordContentEncoding, "must be base64 (standard alphabet, padded)")
				return
			}
			*(*[]byte)(p) = b
		}
	case kindStruct:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.object(n, p)
	case kindSlice, kindArray:
		if c != '[' {
			d.mismatch(n, c)
			return
		}
		d.array(n, p)
	case kindMap:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.mapValue(n, p)
	case kindPointer:
		q := reflect.New(n.elem.typ).UnsafePointer()
		d.value(n.elem, q)
		*(*unsafe.Pointer)(p) = q
	case kindAny:
		if raw, ok := d.skip(); ok {
			var x any
			if err := jsonv2.Unmarshal(raw, &x); err != nil {
				d.outOfRange(err)
				return
			}
			// Every interface type without methods is laid out as any.
			*(*any)(p) = x
		}
	case kindRaw:
		if raw, ok := d.skip(); ok {
			*(*[]byte)(p) = bytes.Clone(raw)
		}
	case kindCustom:
		if raw, ok := d.skip(); ok {
			d.custom(n, raw, reflect.NewAt(n.typ, p).Elem())
		}
	}
}

// stringValue reads a string value for a kindString node whose first byte
// is c, checks it, and returns it; it returns "" for a value that is not a
// string.
func (d *decoder) stringValue(n *node, c byte) string {
	if c != '"' {
		d.mismatch(n, c)
		return ""
	}
	js, ok := d.scanString()
	if !ok {
		return ""
	}
	s := d.keep(js)
	d.checkString(n, s)
	return s
}

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

// A fieldSet is a set of a struct's fields, by their bits. Most structs have
// at most 64 fields, which fit in one word with no allocation.
type fieldSet struct {
	word uint64
	more []uint64 // the words for bits 64 and up, allocated when needed
}

func (s *fieldSet) has(bit int) bool {
	if bit < 64 {
		return s.word&(1<<bit) != 0
	}
	i := bit/64 - 1
	return i < len(s.more) && s.more[i]&(1<<(bit%64)) != 0
}

func (s *fieldSet) add(bit int) {
	if bit < 64 {
		s.word |= 1 << bit
		return
	}
	i := bit/64 - 1
	for len(s.more) <= i {
		s.more = append(s.more, 0)
	}
	s.more[i] |= 1 << (bit % 64)
}

// duplicateName records a member name that appeared before in its object;
// the name is on top of the path. (encoding/json keeps the last value;
// jsontext, and so hands, refuses the document.)
func (d *decoder) duplicateName(name jsonString) {
	d.syntaxError(name.start-1, "duplicate object member name "+quote(d.unquote(name)))
}

// object reads a JSON object, whose '{' is at d.pos, into the struct at p.
func (d *decoder) object(n *node, p unsafe.Pointer) {
	if !d.open() {
		return
	}
	// present holds the fields whose names appeared, which is how a
	// duplicate name is found; nulled those of them whose null counted as
	// absent (Options.NullAsAbsent), which still get their default.
	var present, nulled fieldSet
	// The names the struct does not have go on d.names, above base, and
	// into many once there are more than a few, as in skipObject: a
	// duplicate among them is found in constant time.
	base := len(d.names)
	var many *nameSet
	next := 0 // the field after the last one found, where the next is likely
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
		var f *field
		if !name.escaped {
			f = n.field(name.raw(d.data), next)
		} else {
			f = n.field([]byte(d.unquote(name)), next)
		}
		if f == nil {
			if d.seenName(base, &many, name) {
				d.pushName(name)
				d.duplicateName(name)
				return
			}
			d.unknown(n, name)
			d.pushName(name)
			if !d.colon() || !d.skipValue(d.peek()) {
				return
			}
			d.pop()
		} else {
			next = f.bit + 1
			d.pushName(name)
			if present.has(f.bit) {
				d.duplicateName(name)
				return
			}
			present.add(f.bit)
			if !d.colon() {
				return
			}
			c := d.peek()
			switch {
			case c == 'n' && d.nullAbsent && !f.required && !f.nullTagged && (!f.node.nullable || f.dflt != nil):
				// A null for an optional field means "absent" (the OpenAI
				// strict-mode convention): skip it, leave the field unset
				// so its default applies, and say so.
				if !d.scanLiteral("null") {
					return
				}
				nulled.add(f.bit)
				d.nulls = append(d.nulls, d.pointer())
			case c == 'n' && f.nullable:
				if !d.scanLiteral("null") {
					return
				}
				reflect.NewAt(f.node.typ, fieldPointer(n, p, f)).Elem().SetZero()
			default:
				d.value(f.node, fieldPointer(n, p, f))
				if d.fatal {
					return
				}
			}
			d.pop()
		}
		if end, ok := d.objectNext(); !ok {
			return
		} else if end {
			break
		}
	}
	d.names = d.names[:base]
	for _, f := range n.fields {
		switch {
		case present.has(f.bit) && !nulled.has(f.bit):
		case f.required:
			d.fail(KeywordRequired, "missing required property "+strconv.Quote(f.name)+" ("+describeNode(f.node)+")")
		case f.dflt != nil:
			d.setDefault(f, fieldPointer(n, p, f))
		}
	}
}

// maxFieldScan is the most fields a struct may have for field to look a
// name up by comparing it with each field's; a struct with more uses its
// byName map, which exists only then.
const maxFieldScan = 16

// field returns the field named name, or nil. Documents usually list the
// properties in the order of the struct's fields, so the search starts at
// next, the field after the one found last, where it usually ends at once.
func (n *node) field(name []byte, next int) *field {
	if n.byName != nil { // a large struct, and its fields are all compiled
		return n.byName[string(name)]
	}
	for i := range n.fields {
		f := n.fields[(next+i)%len(n.fields)]
		if len(f.name) == len(name) && f.name == string(name) {
			return f
		}
	}
	return nil
}

// maxDefaults bounds defaults within defaults: a default that holds a value
// whose absent fields take defaults of their own, and so on. Definition
// rejects a chain this long, which is one that never ends (a recursive type
// whose default leaves its own recursive field absent).
const maxDefaults = 32

// setDefault gives field f, at p, its default value.
func (d *decoder) setDefault(f *field, p unsafe.Pointer) {
	v := reflect.NewAt(f.node.typ, p).Elem()
	switch {
	case f.dfltShared:
		v.Set(f.dfltValue)
	case f.dfltItems && f.node.stringItems:
		// As in stringSlice: a slice of type-string items is a []string.
		*(*[]string)(p) = slices.Clone(*(*[]string)(f.dfltValue.Addr().UnsafePointer()))
	case f.dfltItems:
		// A new slice, so that a handler that changes it changes no other
		// call's value (and not nil when the default is []); its items are
		// plain values, copied.
		n := f.dfltValue.Len()
		v.Set(reflect.MakeSlice(f.node.typ, n, n))
		reflect.Copy(v, f.dfltValue)
	case f.nullable && string(f.dflt) == "null":
		v.SetZero()
	case d.defaults >= maxDefaults:
		d.fail(KeywordDefault, "the default of "+strconv.Quote(f.name)+" takes defaults within itself without end")
	default:
		if issues := decodeDefaultsDeep(f.node, f.dflt, v, d.defaults+1); len(issues) > 0 {
			d.fail(KeywordDefault, "the default of "+strconv.Quote(f.name)+" fails: "+issues[0].String())
		}
	}
}

// checkDefaults decodes the defaults of the fields of structs that are not
// copied in but decoded on use, and reports the first that fails: checked
// when the plan is complete, a default that would take defaults within
// itself without end is found here, not when a call leaves it out.
func checkDefaults(structs map[reflect.Type]*node) (*node, *field, []Issue) {
	for _, n := range structs {
		for _, f := range n.fields {
			if f.dflt == nil || f.dfltShared || f.dfltItems || f.nullable && string(f.dflt) == "null" {
				continue // no default, or one setDefault copies in
			}
			if issues := decodeDefaultsDeep(f.node, f.dflt, reflect.New(f.node.typ).Elem(), 1); len(issues) > 0 {
				return n, f, issues
			}
		}
	}
	return nil, nil, nil
}

// describeNode names what a missing property should hold, for messages.
func describeNode(n *node) string {
	n = n.deref()
	t := n.jsonType()
	switch {
	case n.kind == kindAny || n.kind == kindRaw || n.kind == kindCustom:
		return "any JSON value"
	case n.kind == kindDuration:
		return durationNoun
	case n.enum != nil && !n.enum.isConst:
		return "one of " + strings.Join(n.enum.text, ", ")
	case t == "integer" || t == "array" || t == "object":
		return "an " + t
	}
	return "a " + t
}

// unknown records a property the struct does not have, naming the closest.
//
// A document may hold many unknown names, and some very long ones, so the
// work is bounded: nothing is done for an issue past the limit, which would
// be dropped, and a name is compared only with the fields whose names are
// close to it in length, since the edit distance between two names is at
// least the difference of their lengths. The cost of an unknown name is so
// at most that of reading it, plus a bound that depends on the type only.
func (d *decoder) unknown(n *node, js jsonString) {
	if d.full() {
		d.dropped++
		return
	}
	name := d.unquote(js)
	msg := "unknown property " + quote(name)
	lower := strings.ToLower(name)
	best, bestDist := "", 4
	for _, f := range n.fields {
		field := strings.ToLower(f.name)
		if len(field) <= len(lower)-bestDist || len(field) >= len(lower)+bestDist {
			continue
		}
		if dist := editDistance(lower, field); dist < bestDist {
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
	d.fail(KeywordAdditionalProperties, msg)
}

// fieldPointer returns the address of field f of the struct of node n at p,
// allocating embedded pointers on the way.
func fieldPointer(n *node, p unsafe.Pointer, f *field) unsafe.Pointer {
	if !f.throughPtr {
		return unsafe.Add(p, f.offset)
	}
	return fieldValue(reflect.NewAt(n.typ, p).Elem(), f).Addr().UnsafePointer()
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

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// duplicate finds two equal items among the first n of v, whose items
// node elem reads. Items compare by the values they hold: pointers are
// followed, and a json.RawMessage compares the JSON value it holds, not its
// bytes (1 and 1.0, or the same object with its keys in another order, are
// equal). Of several pairs, it reports the one whose later item comes first.
func duplicate(elem *node, v reflect.Value, n int) (int, int, bool) {
	if v.Type().Elem() == rawMessageType {
		items := make([]any, n)
		for i := range n {
			if json.Unmarshal(v.Index(i).Bytes(), &items[i]) != nil {
				items[i] = string(v.Index(i).Bytes())
			}
		}
		v, n, elem = reflect.ValueOf(items), len(items), nil
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
	// Items that == cannot compare are grouped by a hash of the values they
	// hold, which equal items share (hashValue), and compared with
	// reflect.DeepEqual only within their group: n different items cost n
	// hashes rather than n²/2 comparisons. An item that cannot be hashed
	// (see maxHashSteps) is compared with every other.
	equal := func(i, j int) bool {
		return reflect.DeepEqual(v.Index(i).Interface(), v.Index(j).Interface())
	}
	groups := make(map[uint64][]int)
	var unhashed []int
	var h maphash.Hash
	for i := range n {
		h.Reset()
		if !hashValue(&h, elem, v.Index(i), nil) {
			for j := range i {
				if equal(j, i) {
					return j, i, true
				}
			}
			unhashed = append(unhashed, i)
			continue
		}
		sum := h.Sum64()
		first := i
		for _, j := range groups[sum] {
			if equal(j, i) {
				first = j
				break
			}
		}
		for _, j := range unhashed {
			if j < first && equal(j, i) {
				first = j
				break
			}
		}
		if first < i {
			return first, i, true
		}
		groups[sum] = append(groups[sum], i)
	}
	return 0, 0, false
}

// maxHashSteps bounds the values hashValue walks inside a value of a type
// that reads itself (UnmarshalJSON, UnmarshalText): such a value may be
// cyclic, or share parts, and its walk never end. The decoder's own values
// are trees no larger than the JSON they were read from.
const maxHashSteps = 1 << 12

// hashValue writes to h a hash of v, which node n read (nil for a value
// decoded into an any), such that values that reflect.DeepEqual finds equal
// have equal hashes: it hashes part of what DeepEqual compares (the JSON
// fields of a struct, not the others), or all of it, and nothing else. It
// reports false when v cannot be hashed within budget steps; a nil budget
// means maxHashSteps for each value of a type that reads itself and no
// limit elsewhere.
func hashValue(h *maphash.Hash, n *node, v reflect.Value, budget *int) bool {
	if budget != nil {
		if *budget <= 0 {
			return false
		}
		*budget--
	}
	if n != nil {
		switch n.kind {
		case kindStruct:
			for _, f := range n.fields {
				fv, ok := fieldValueNoAlloc(v, f)
				if !ok {
					h.WriteByte(0)
					continue
				}
				h.WriteByte(1)
				if !hashValue(h, f.node, fv, budget) {
					return false
				}
			}
			return true
		case kindPointer:
			if v.IsNil() {
				h.WriteByte(0)
				return true
			}
			h.WriteByte(1)
			return hashValue(h, n.elem, v.Elem(), budget)
		case kindSlice, kindArray:
			hashInt(h, uint64(v.Len()))
			for i := range v.Len() {
				if !hashValue(h, n.elem, v.Index(i), budget) {
					return false
				}
			}
			return true
		case kindMap:
			return hashMap(h, n.elem, v, budget)
		case kindTime:
			// DeepEqual compares the fields of a time.Time, and equal
			// fields make the same instant. (Its *Location may be Local,
			// which is large to walk.)
			if v.CanInterface() {
				t := v.Interface().(time.Time)
				hashInt(h, uint64(t.Unix()))
				hashInt(h, uint64(t.Nanosecond()))
				return true
			}
		case kindText, kindCustom:
			if budget == nil {
				steps := maxHashSteps
				budget = &steps
			}
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		hashInt(h, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		hashInt(h, v.Uint())
	case reflect.Float32, reflect.Float64:
		hashFloat(h, v.Float())
	case reflect.Complex64, reflect.Complex128:
		hashFloat(h, real(v.Complex()))
		hashFloat(h, imag(v.Complex()))
	case reflect.String:
		hashInt(h, uint64(v.Len()))
		h.WriteString(v.String())
	case reflect.Slice, reflect.Array:
		hashInt(h, uint64(v.Len()))
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			h.Write(v.Bytes())
			break
		}
		for i := range v.Len() {
			if !hashValue(h, nil, v.Index(i), budget) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !hashValue(h, nil, v.Field(i), budget) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			h.WriteByte(0)
			break
		}
		h.WriteByte(1)
		return hashValue(h, nil, v.Elem(), budget)
	case reflect.Map:
		return hashMap(h, nil, v, budget)
	}
	// Channels, functions and unsafe pointers: DeepEqual compares them by
	// identity, which the hash may leave out.
	return true
}

// hashMap hashes a map for hashValue, whose elements node elem reads: the
// sum of the hashes of its entries, which does not depend on their order.
func hashMap(h *maphash.Hash, elem *node, v reflect.Value, budget *int) bool {
	var entry maphash.Hash
	entry.SetSeed(h.Seed())
	var sum uint64
	for it := v.MapRange(); it.Next(); {
		entry.Reset()
		if !hashValue(&entry, nil, it.Key(), budget) || !hashValue(&entry, elem, it.Value(), budget) {
			return false
		}
		sum += entry.Sum64()
	}
	hashInt(h, uint64(v.Len()))
	hashInt(h, sum)
	return true
}

func hashInt(h *maphash.Hash, x uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	h.Write(b[:])
}

// hashFloat hashes a float as == compares it: -0 is 0.
func hashFloat(h *maphash.Hash, f float64) {
	if f == 0 {
		f = 0
	}
	hashInt(h, math.Float64bits(f))
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
		if m != nil {
			if _, dup := m[k]; dup {
				d.duplicateName(name)
				return
			}
		} else {
			key.SetString(k)
			if v.MapIndex(key).IsValid() {
				d.duplicateName(name)
				return
			}
		}
		if !d.colon() {
			return
		}
		if m != nil {
			s := d.stringValue(n.elem, d.peek())
			if d.fatal {
				return
			}
			m[k] = s
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

// checkString checks the string keywords and reports whether all passed.
func (d *decoder) checkString(n *node, s string) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		// len(s) bounds the count of runes from above and len(s)/UTFMax
		// from below: the runes are counted only when the bounds cannot
		// decide.
		count := len(s)
		if n.minLength >= 0 && len(s)/utf8.UTFMax < n.minLength || n.maxLength >= 0 && len(s) > n.maxLength {
			count = utf8.RuneCountInString(s)
		}
		if n.minLength >= 0 && count < n.minLength {
			d.fail(KeywordMinLength, fmt.Sprintf("must be at least %d %s, got %d", n.minLength, plural(n.minLength, "character"), count))
			ok = false
		}
		if n.maxLength >= 0 && count > n.maxLength {
			d.fail(KeywordMaxLength, fmt.Sprintf("must be at most %d %s, got %d", n.maxLength, plural(n.maxLength, "character"), count))
			ok = false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		d.fail(KeywordPattern, "must match the pattern "+n.pattern.String()+", got "+quote(s))
		ok = false
	}
	if n.format != nil && !n.format.check(s) {
		d.fail(KeywordFormat, "must be "+formatNoun(n.format.name)+", got "+quote(s))
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
	if s, ok := v.(string); ok && n.enum.index != nil {
		_, found := n.enum.index[s]
		return found
	}
	for _, e := range n.enum.values {
		if e == v {
			return true
		}
	}
	return false
}

func (d *decoder) failEnum(n *node, got string) {
	if n.enum.isConst {
		d.fail(KeywordConst, "must be "+n.enum.text[0]+", got "+got)
		return
	}
	list := n.enum.text
	more := ""
	if len(list) > 20 {
		list, more = list[:20], ", …"
	}
	d.fail(KeywordEnum, "must be one of "+strings.Join(list, ", ")+more+"; got "+got)
}

// number reads a JSON number into an integer or float field and checks it.
// The schema keywords are checked first, so that a value outside a small
// integer's range is reported as the minimum or maximum the schema shows.
func (d *decoder) number(n *node, raw []byte, p unsafe.Pointer) {
	switch n.kind {
	case kindInt:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if exact == nil || !exact.IsInt64() {
				d.fail(KeywordRange, "is too large for a 64-bit integer: "+shortRaw(raw))
				return
			}
			i = exact.Int64()
		} else if !d.checkNumber(n, float64(i), raw) {
			return
		}
		if n.bits < 64 && (i < -1<<(n.bits-1) || i > 1<<(n.bits-1)-1) {
			d.fail(KeywordRange, "is out of range for a "+strconv.Itoa(n.bits)+"-bit integer")
			return
		}
		// n.bits is the size of the type (reflect's Bits), so these are
		// stores of the type's own size.
		switch n.bits {
		case 8:
			*(*int8)(p) = int8(i)
		case 16:
			*(*int16)(p) = int16(i)
		case 32:
			*(*int32)(p) = int32(i)
		default:
			*(*int64)(p) = i
		}
	case kindUint:
		u, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			f, exact, ok := d.integral(raw)
			if !ok || !d.checkNumber(n, f, raw) {
				return
			}
			if exact == nil || !exact.IsUint64() {
				d.fail(KeywordRange, "is out of range for a 64-bit unsigned integer: "+shortRaw(raw))
				return
			}
			u = exact.Uint64()
		} else if !d.checkNumber(n, float64(u), raw) {
			return
		}
		if n.bits < 64 && u > 1<<n.bits-1 {
			d.fail(KeywordRange, "is out of range for a "+strconv.Itoa(n.bits)+"-bit unsigned integer")
			return
		}
		switch n.bits {
		case 8:
			*(*uint8)(p) = uint8(u)
		case 16:
			*(*uint16)(p) = uint16(u)
		case 32:
			*(*uint32)(p) = uint32(u)
		default:
			*(*uint64)(p) = u
		}
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
			d.fail(KeywordRange, "is too large for a "+strconv.Itoa(n.bits)+"-bit number: "+shortRaw(raw))
			return
		}
		if d.checkNumber(n, f, raw) {
			if n.bits == 32 {
				*(*float32)(p) = float32(held)
			} else {
				*(*float64)(p) = held
			}
		}
	}
}

// integral reads a number that strconv refused as an integer: one written
// with a fraction or an exponent (1.0, 1e3), or one beyond 64 bits. It
// returns the number as a float64, for the keywords, and exactly, for the
// value, or nil for an integer beyond 64 bits. Whether it is an integer is
// decided exactly, as JSON Schema does: 1.0000000000000000001 and 1e-400
// are not integers, although their float64 values are.
func (d *decoder) integral(raw []byte) (float64, *big.Int, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		d.fail(KeywordRange, "is too large for a 64-bit integer: "+shortRaw(raw))
		return 0, nil, false
	}
	x := readDecimal(raw)
	switch {
	case len(x.digits) == 0:
		return 0, new(big.Int), true
	case x.exp < 0:
		d.fail(KeywordType, "must be an integer, got "+shortRaw(raw))
		return 0, nil, false
	case len(x.digits)+x.exp > 20:
		return f, nil, true // at least 10^20, beyond 64 bits
	}
	exact, _ := new(big.Int).SetString(string(x.digits), 10)
	exact.Mul(exact, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.exp)), nil))
	if x.neg {
		exact.Neg(exact)
	}
	return f, exact, true
}

// checkNumber checks the number keywords and reports whether all passed.
func (d *decoder) checkNumber(n *node, f float64, raw []byte) bool {
	ok := true
	if n.minimum != nil && f < *n.minimum {
		d.fail(KeywordMinimum, "must be at least "+formatFloat(*n.minimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.maximum != nil && f > *n.maximum {
		d.fail(KeywordMaximum, "must be at most "+formatFloat(*n.maximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMinimum != nil && f <= *n.exclusiveMinimum {
		d.fail(KeywordExclusiveMinimum, "must be greater than "+formatFloat(*n.exclusiveMinimum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.exclusiveMaximum != nil && f >= *n.exclusiveMaximum {
		d.fail(KeywordExclusiveMaximum, "must be less than "+formatFloat(*n.exclusiveMaximum)+", got "+shortRaw(raw))
		ok = false
	}
	if n.multipleOf != nil && !multipleOf(raw, n.multipleOf.rat) {
		d.fail(KeywordMultipleOf, "must be a multiple of "+n.multipleOf.text+", got "+shortRaw(raw))
		ok = false
	}
	if n.enum != nil && !d.inEnum(n, f) {
		d.failEnum(n, shortRaw(raw))
		ok = false
	}
	return ok
}

// multipleOf reports whether the JSON number raw, which a float64 holds
// (the caller parsed it), is an exact multiple of m, which is positive. It
// takes time linear in the length of raw: a number may be written with
// millions of digits, which big.Rat would take quadratic time to read.
func multipleOf(raw []byte, m *big.Rat) bool {
	if m.IsInt() && m.Num().IsInt64() {
		if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return i%m.Num().Int64() == 0
		}
	}
	x := readDecimal(raw)
	if len(x.digits) == 0 {
		return true // zero is a multiple of anything
	}
	// With m = p/q in lowest terms, raw/m = digits × 10^exp × q / p.
	p, q := m.Num(), m.Denom()
	if x.exp >= 0 {
		r := digitsMod(x.digits, p)
		r.Mul(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.exp)), p))
		r.Mul(r, q)
		return r.Mod(r, p).Sign() == 0
	}
	// raw/m is an integer when 10^k × p divides digits × q, k = -exp.
	// digits has no factor 10, so it lacks either every factor 2 or every
	// factor 5, and q must supply k of them: k is at most q's bit length.
	k := -x.exp
	if k > q.BitLen() {
		return false
	}
	mod := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
	mod.Mul(mod, p)
	r := digitsMod(x.digits, mod)
	r.Mul(r, q)
	return r.Mod(r, mod).Sign() == 0
}

// A decimal is a JSON number as ±digits × 10^exp, where digits, decimal
// digits in ASCII, has no leading or trailing zeros; it is empty for zero.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// maxExponent bounds the exponents readDecimal reads, so that adding the
// count of digits to one cannot overflow an int. A number whose exponent
// reaches it is far beyond a float64, or, negative, far below the smallest
// fraction one holds: its sign, and whether it is an integer, are still
// exact, but not its value.
const maxExponent = 1 << 59

// readDecimal reads a number that scanNumber accepted, in one pass.
func readDecimal(raw []byte) decimal {
	var x decimal
	if raw[0] == '-' {
		x.neg = true
		raw = raw[1:]
	}
	mantissa, exponent := raw, []byte(nil)
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		mantissa, exponent = raw[:i], raw[i+1:]
	}
	whole, fraction, _ := bytes.Cut(mantissa, []byte("."))
	if len(fraction) == 0 {
		x.digits = whole
	} else {
		x.digits = append(slices.Clip(whole), fraction...)
	}
	x.digits = bytes.TrimLeft(x.digits, "0")
	trimmed := bytes.TrimRight(x.digits, "0")
	if len(trimmed) == 0 {
		return decimal{}
	}
	x.exp = len(x.digits) - len(trimmed) - len(fraction)
	x.digits = trimmed
	e, sign := 0, 1
	if len(exponent) > 0 && (exponent[0] == '-' || exponent[0] == '+') {
		if exponent[0] == '-' {
			sign = -1
		}
		exponent = exponent[1:]
	}
	for _, c := range exponent {
		if e < maxExponent {
			e = e*10 + int(c-'0')
		}
	}
	x.exp += sign * e
	return x
}

// digitsMod returns the number that decimal digits spell, modulo m, in
// time linear in their count: 18 digits at a time, each step on numbers no
// larger than m × 10^18.
func digitsMod(digits []byte, m *big.Int) *big.Int {
	r, scale, part := new(big.Int), new(big.Int).SetUint64(1e18), new(big.Int)
	for len(digits) > 0 {
		n := min(len(digits), 18)
		var v uint64
		for _, c := range digits[:n] {
			v = v*10 + uint64(c-'0')
		}
		if n < 18 {
			scale.Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
		}
		r.Mul(r, scale).Add(r, part.SetUint64(v)).Mod(r, m)
		digits = digits[n:]
	}
	return r
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
