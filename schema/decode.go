package schema

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/hands-go/hands/internal/msgtext"
)

// A decoder validates and decodes one JSON document in a single pass over
// its bytes. Its scanner (scan.go) reads the syntax; the methods here read
// values as the nodes say and check their keywords. Decoders are pooled;
// each serves one document at a time.
type decoder struct {
	data        []byte // the document
	pos         int    // the offset of the next byte to read
	path        []segment
	names       []jsonString // member names of the objects skip is in
	issues      []Issue
	dropped     int // issues past maxIssues or maxPathBytes, counted but not kept
	pathBytes   int // the bytes of the paths of the issues kept
	maxIssues   int
	maxDepth    int
	nullAbsent  bool     // a null for an optional field counts as absent
	nulls       []string // the paths of the nulls counted so
	fatal       bool     // the bytes are not JSON, or too deep: stop reading
	fatalIssue  Issue    // why
	goValue     bool     // the document is encoding/json's encoding of a Go value (Validator.Check)
	scratch     []byte
	strs        strings.Builder // the chunk that kept strings are carved from; see keep
	window      string          // a copy of d.data[windowStart:], or of its start, that kept strings without escapes are cut from; see keep
	windowStart int
	strItems    []string // the items of the []string arrays being read
	defaults    int      // how many defaults deep this document is (see setDefault)
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
	d.strs = strings.Builder{}      // the decoded strings point into it: never reuse it
	d.window, d.windowStart = "", 0 // likewise
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
	d.documentAt(n, v.Addr().UnsafePointer())
}

// documentAt is document into the value of n's type at p.
func (d *decoder) documentAt(n *node, p unsafe.Pointer) {
	if d.peek(); d.pos == len(d.data) {
		d.stop("", KeywordSyntax, "the arguments are empty; send a JSON object")
		return
	}
	d.value(n, p)
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
		var q unsafe.Pointer
		if n.newElem != nil {
			q = n.newElem()
		} else {
			q = reflect.New(n.elem.typ).UnsafePointer()
		}
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

// plural returns word, or its plural when n is not 1.
func plural(n int, word string) string { return msgtext.Plural(n, word) }

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
