package schema

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the decoder's scanner: it reads JSON syntax straight from the
// document's bytes, which are all in memory, and is exactly as strict as
// package jsontext (RFC 8259 with valid UTF-8, no duplicate object member
// names). FuzzScanner compares its verdicts with jsontext's and its values
// with encoding/json's.
//
// The invariants every method here keeps:
//
//   - d.data is the whole document and is never written; d.pos is the offset
//     of the next byte to read.
//   - A method that reads a value starts with d.pos at the value's first byte
//     (the caller has skipped whitespace, usually with peek) and returns with
//     d.pos just past the value's last byte. Whitespace after a value is left
//     to the caller, who knows what may follow it.
//   - A method that finds a syntax error records it with d.syntaxError (or
//     d.truncated, or d.tooDeep) and returns false. That sets d.fatal, and
//     every caller returns at once without reading further: after a syntax
//     error, nothing else in the document is reported.
//   - d.path names the value being read, so that a syntax error is reported
//     at the value it was found in: a member's value (and the ':' before it)
//     is read with the member's name pushed, an array's item with its index
//     pushed, and the delimiters between members or items with neither, so
//     an error there belongs to the object or array itself.
//   - Containers nest at most d.maxDepth deep: a container is opened only
//     while len(d.path) < d.maxDepth. The root is at depth 0.
//   - Object member names are unique within an object, compared after
//     unescaping. The readers of typed values check that with what they keep
//     anyway (a struct's seen-set and the unknown names it met, a map's
//     keys); skip, which keeps nothing, compares the names itself.

// maxNesting caps MaxDepth: it is the limit of jsontext, which the decoder
// used before it had its own scanner, and it bounds the recursion of the
// decoder's methods.
const maxNesting = 10000

// plainStringByte holds the bytes a string may hold as they are, with no
// further look: printable ASCII other than '"' and '\\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// specialBytes returns a mask of the bytes of w, read little-endian, that
// are not plain string bytes (plainStringByte): the high bit of each such
// byte is set, and the lowest set bit is always in the first such byte. (A
// byte after the first may be marked although it is plain; callers look at
// the first only.)
//
// It uses the classic test for a zero byte in a word, (x - 0x0101…) & ^x &
// 0x8080…, which marks the lowest zero byte of x exactly, and perhaps bytes
// above it through the borrow: applied to w ^ '"' and w ^ '\\' it finds
// those bytes; (w - 0x2020…) & ^w finds a byte below 0x20 the same way; and
// w & 0x8080… marks every byte of 0x80 or more.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (quote-ones)&^quote&highs | (backslash-ones)&^backslash&highs | (w-ones*0x20)&^w&highs | w&highs
}

// peek skips whitespace and returns the next byte, or 0 at the end of the
// input. (A 0 byte in the input is never valid JSON either; methods that
// report it check d.pos against the length to tell the two apart.)
func (d *decoder) peek() byte {
	// Most values follow their delimiter directly: one comparison tells a
	// byte that is not whitespace, which is all peek needs to inline.
	if d.pos < len(d.data) && d.data[d.pos] > ' ' {
		return d.data[d.pos]
	}
	return d.skipSpace()
}

// skipSpace is peek past whitespace.
func (d *decoder) skipSpace() byte {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return c
		}
	}
	return 0
}

// syntaxError records that the bytes are not JSON, found at byte off, and
// stops the document.
func (d *decoder) syntaxError(off int, cause string) {
	d.stop(d.pointer(), KeywordSyntax, "invalid JSON at byte "+strconv.Itoa(off)+": "+cause)
}

// truncated records that the input ends inside a value.
func (d *decoder) truncated() {
	d.syntaxError(len(d.data), "the input ends before the value is complete")
}

// badChar records an unexpected character at byte off; where says where it
// was found, as in "at start of value".
func (d *decoder) badChar(off int, where string) {
	if off >= len(d.data) {
		d.truncated()
		return
	}
	d.syntaxError(off, "invalid character "+quoteChar(d.data[off:])+" "+where)
}

// quoteChar quotes the character at the start of b for a message.
func quoteChar(b []byte) string {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size == 1 {
		return "byte 0x" + strconv.FormatUint(uint64(b[0]), 16)
	}
	return strconv.QuoteRune(r)
}

// A jsonString is a string value as it appears in the document: its body,
// between the quotes, and whether the body holds escapes.
type jsonString struct {
	start, end int // d.data[start:end] is the body
	escaped    bool
}

// scanString reads a string value and checks it: valid UTF-8, no control
// characters, and only valid escapes, with UTF-16 surrogates in pairs.
func (d *decoder) scanString() (jsonString, bool) {
	data := d.data
	s := jsonString{start: d.pos + 1}
	i := s.start
	for {
		// The fast loops: printable ASCII other than '"' and '\\' needs no
		// further look. Eight bytes at a time while there are eight, up to
		// the first byte that does; then one at a time.
		for i+8 <= len(data) {
			if special := specialBytes(binary.LittleEndian.Uint64(data[i:])); special != 0 {
				i += bits.TrailingZeros64(special) / 8
				goto special // data[i] is the first byte that is not plain
			}
			i += 8
		}
		for i < len(data) && plainStringByte[data[i]] {
			i++
		}
		if i >= len(data) {
			d.truncated()
			return s, false
		}
	special:
		switch c := data[i]; {
		case c == '"':
			s.end = i
			d.pos = i + 1
			return s, true
		case c == '\\':
			s.escaped = true
			n, ok := d.scanEscape(i)
			if !ok {
				return s, false
			}
			i += n
		case c < 0x20:
			d.badChar(i, "in string (expecting non-control character)")
			return s, false
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(data[i:]) {
					d.truncated()
				} else {
					d.syntaxError(i, "invalid UTF-8 in string")
				}
				return s, false
			}
			i += size
		}
	}
}

// scanEscape checks the escape sequence at d.data[i], a backslash, and
// returns its length.
func (d *decoder) scanEscape(i int) (int, bool) {
	data := d.data
	if i+1 >= len(data) {
		d.truncated()
		return 0, false
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
	default:
		d.syntaxError(i, "invalid escape sequence "+strconv.Quote(string(data[i:i+2]))+" in string")
		return 0, false
	}
	r, ok := d.scanHex4(i)
	if !ok {
		return 0, false
	}
	switch {
	case !utf16.IsSurrogate(r):
		return 6, true
	case r < 0xdc00:
		// The high half of a surrogate pair: the low half must follow at
		// once, as another \u escape.
		switch {
		case i+6 >= len(data) || data[i+6] == '\\' && i+7 >= len(data):
			d.truncated()
			return 0, false
		case data[i+6] == '\\' && data[i+7] == 'u':
			r2, ok := d.scanHex4(i + 6)
			if !ok {
				return 0, false
			}
			if utf16.DecodeRune(r, r2) != utf8.RuneError {
				return 12, true
			}
		}
	}
	d.syntaxError(i, "invalid surrogate pair "+strconv.Quote(string(data[i:min(i+12, len(data))]))+" in string")
	return 0, false
}

// scanHex4 reads the four hex digits of the \u escape at d.data[i].
func (d *decoder) scanHex4(i int) (rune, bool) {
	data := d.data
	var r rune
	for j := i + 2; j < i+6; j++ {
		if j >= len(data) {
			d.truncated()
			return 0, false
		}
		c := data[j]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			d.syntaxError(i, "invalid escape sequence "+strconv.Quote(string(data[i:j+1]))+" in string")
			return 0, false
		}
	}
	return r, true
}

// appendUnquoted appends the value of a string body that scanString
// accepted, with its escapes decoded.
func appendUnquoted(dst, body []byte) []byte {
	for {
		i := bytes.IndexByte(body, '\\')
		if i < 0 {
			return append(dst, body...)
		}
		dst = append(dst, body[:i]...)
		body = body[i:]
		switch c := body[1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(body[2:6])
			if utf16.IsSurrogate(r) {
				// scanString made sure that the low half follows.
				r = utf16.DecodeRune(r, hex4(body[8:12]))
				body = body[6:]
			}
			dst = utf8.AppendRune(dst, r)
			body = body[6:]
			continue
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
		body = body[2:]
	}
}

// hex4 decodes four hex digits that scanHex4 accepted.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a':
			r = r<<4 | rune(c-'a'+10)
		default:
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
}

// raw returns the body of s, still escaped.
func (s jsonString) raw(data []byte) []byte { return data[s.start:s.end] }

// scanNumber reads a number value:
// -? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?
func (d *decoder) scanNumber() bool {
	data := d.data
	i := d.pos
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i+1)
	default:
		d.badChar(i, "in number (expecting digit)")
		return false
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.badChar(i, "in number (expecting digit)")
			return false
		}
		i = skipDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			d.badChar(i, "in number (expecting digit)")
			return false
		}
		i = skipDigits(data, i+1)
	}
	d.pos = i
	return true
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// scanLiteral reads the literal true, false or null, whose first byte is at
// d.pos.
func (d *decoder) scanLiteral(lit string) bool {
	for j := 1; j < len(lit); j++ {
		i := d.pos + j
		if i >= len(d.data) || d.data[i] != lit[j] {
			d.badChar(i, "in literal "+lit+" (expecting "+strconv.QuoteRune(rune(lit[j]))+")")
			return false
		}
	}
	d.pos += len(lit)
	return true
}

// scanScalar reads a string, number or literal whose first byte is c.
func (d *decoder) scanScalar(c byte) bool {
	switch c {
	case '"':
		_, ok := d.scanString()
		return ok
	case 't':
		return d.scanLiteral("true")
	case 'f':
		return d.scanLiteral("false")
	case 'n':
		return d.scanLiteral("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return d.scanNumber()
	}
	d.badChar(d.pos, "at start of value")
	return false
}

// skip reads one value of any type, as strictly as the rest of the document,
// and returns its bytes.
func (d *decoder) skip() ([]byte, bool) {
	start := d.pos
	if !d.skipValue(d.peek()) {
		return nil, false
	}
	return d.data[start:d.pos], true
}

// skipValue reads one value whose first byte, c, is at d.pos.
func (d *decoder) skipValue(c byte) bool {
	switch c {
	case '{':
		return d.skipObject()
	case '[':
		return d.skipArray()
	}
	return d.scanScalar(c)
}

// open checks the depth limit before a container is read and steps into it.
func (d *decoder) open() bool {
	if len(d.path) >= d.maxDepth {
		d.tooDeep()
		return false
	}
	d.pos++
	return true
}

// skipObject reads an object, checking that its member names are unique.
// The names of the objects being read are kept on d.names, each object's
// above those of the objects it is in; an object with many members keeps a
// set of them instead, to compare in constant time.
func (d *decoder) skipObject() bool {
	if !d.open() {
		return false
	}
	base := len(d.names)
	defer func() { d.names = d.names[:base] }()
	var many *nameSet
	for first := true; ; first = false {
		c := d.peek()
		if first && c == '}' {
			d.pos++
			return true
		}
		name, ok := d.memberName(c, first)
		if !ok {
			return false
		}
		d.pushName(name)
		if d.seenName(base, &many, name) {
			d.duplicateName(name)
			return false
		}
		if !d.colon() || !d.skipValue(d.peek()) {
			return false
		}
		d.pop()
		if end, ok := d.objectNext(); !ok || end {
			return ok
		}
	}
}

// seenName reports whether name was seen before in the object whose names
// start at d.names[base], and adds it. Past a few names, they go in *many,
// which it makes.
func (d *decoder) seenName(base int, many **nameSet, name jsonString) bool {
	const maxList = 16 // past this many names, a set is cheaper than the list
	if *many == nil {
		for _, prev := range d.names[base:] {
			if d.sameName(prev, name) {
				return true
			}
		}
		if len(d.names)-base < maxList {
			d.names = append(d.names, name)
			return false
		}
		*many = new(nameSet)
		for _, prev := range d.names[base:] {
			d.addName(*many, prev)
		}
	}
	return d.addName(*many, name)
}

// A nameSet is the set of the member names of an object with many members.
// It is a hash table, with open addressing, of where the names are in the
// document: it copies no name and holds no pointer, so that a set of a
// million names is one block of memory that the garbage collector does not
// scan.
type nameSet struct {
	slots []nameSlot // a power of two of them, at most half used
	count int        // the slots used
}

type nameSlot struct {
	hash  uint64 // of the name, unescaped
	start int    // 1 + the offset of the name's body in the document; 0 is a free slot
}

// nameSeed seeds the hashes of names, so that a document cannot be made of
// names whose hashes collide.
var nameSeed = maphash.MakeSeed()

// addName adds a member name to s and reports whether an equal name was
// there already.
func (d *decoder) addName(s *nameSet, name jsonString) bool {
	var h uint64
	if name.escaped {
		d.scratch = appendUnquoted(d.scratch[:0], name.raw(d.data))
		h = maphash.Bytes(nameSeed, d.scratch)
	} else {
		h = maphash.Bytes(nameSeed, name.raw(d.data))
	}
	if 2*(s.count+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch slot := s.slots[i]; {
		case slot.start == 0:
			s.slots[i] = nameSlot{hash: h, start: name.start + 1}
			s.count++
			return false
		case slot.hash == h && d.sameName(d.nameAt(slot.start-1), name):
			return true
		}
	}
}

// grow doubles the slots of s.
func (s *nameSet) grow() {
	old := s.slots
	s.slots = make([]nameSlot, max(64, 2*len(old)))
	mask := len(s.slots) - 1
	for _, slot := range old {
		if slot.start == 0 {
			continue
		}
		i := int(slot.hash) & mask
		for s.slots[i].start != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = slot
	}
}

// nameAt returns the member name whose body starts at d.data[start], one
// that scanString accepted.
func (d *decoder) nameAt(start int) jsonString {
	s := jsonString{start: start}
	i := start
	for d.data[i] != '"' {
		if d.data[i] == '\\' {
			s.escaped = true
			i++ // past the escaped byte, which may be a '"'
		}
		i++
	}
	s.end = i
	return s
}

// sameName reports whether two member names are equal once unescaped.
func (d *decoder) sameName(a, b jsonString) bool {
	if !a.escaped && !b.escaped {
		return bytes.Equal(a.raw(d.data), b.raw(d.data))
	}
	return d.unquote(a) == d.unquote(b)
}

// memberName reads the name of an object member; c is the byte at d.pos and
// first says whether it follows the '{'.
func (d *decoder) memberName(c byte, first bool) (jsonString, bool) {
	if c != '"' {
		if first {
			d.badChar(d.pos, "at start of object member name (expecting '\"' or '}')")
		} else {
			d.badChar(d.pos, "after ',' in object (expecting '\"')")
		}
		return jsonString{}, false
	}
	return d.scanString()
}

// consume reports whether the byte at d.pos is c, and steps past it if so:
// the delimiter that usually comes next, checked inline before the call
// that reads whatever comes (colon, objectNext, arrayNext).
func (d *decoder) consume(c byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// colon reads the ':' after a member name.
func (d *decoder) colon() bool {
	if d.peek() != ':' {
		d.badChar(d.pos, "after object member name (expecting ':')")
		return false
	}
	d.pos++
	return true
}

// objectNext reads what follows a member's value: a ',' (end false) or the
// closing '}' (end true).
func (d *decoder) objectNext() (end, ok bool) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, true
	case '}':
		d.pos++
		return true, true
	}
	d.badChar(d.pos, "after object value (expecting ',' or '}')")
	return false, false
}

// skipArray reads an array.
func (d *decoder) skipArray() bool {
	if !d.open() {
		return false
	}
	if d.peek() == ']' {
		d.pos++
		return true
	}
	for i := 0; ; i++ {
		d.pushIndex(i)
		if !d.skipValue(d.peek()) {
			return false
		}
		d.pop()
		if end, ok := d.arrayNext(); !ok || end {
			return ok
		}
	}
}

// arrayNext reads what follows an item: a ',' (end false) or the closing
// ']' (end true).
func (d *decoder) arrayNext() (end, ok bool) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, true
	case ']':
		d.pos++
		return true, true
	}
	d.badChar(d.pos, "after array item (expecting ',' or ']')")
	return false, false
}
