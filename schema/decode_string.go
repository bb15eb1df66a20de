package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/msgtext"
)

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
// Rather than allocate each string on its own, keep copies a window of the
// document, up to maxStringChunk bytes from the string's start, into one
// string, d.window, and returns the strings that lie in it, unescaped, as
// slices of it: one copy serves every such string that follows in the
// window, and no string's bytes are copied twice. A string with escapes is
// unescaped into a chunk of its own kind, d.strs, a strings.Builder that only
// ever appends within its capacity (keep checks it first), so the bytes a
// string returned holds are never written again; when a chunk is full, or
// the document is done (putDecoder), the decoder starts a new one rather
// than reuse it. Unescaping never makes a string longer, so the strings
// still to come fit in the rest of the document's length; a chunk is that
// long, or maxStringChunk if that is less. Either way one string kept alive
// keeps at most a few KiB of the document with it; a string longer than
// that gets a window or a chunk of its own.
func (d *decoder) keep(s jsonString) string {
	n := s.end - s.start
	if n == 0 {
		return ""
	}
	if !s.escaped {
		if s.start < d.windowStart || s.end-d.windowStart > len(d.window) {
			d.window = string(d.data[s.start:max(s.end, min(len(d.data), s.start+maxStringChunk))])
			d.windowStart = s.start
		}
		return d.window[s.start-d.windowStart : s.end-d.windowStart]
	}
	if d.strs.Cap()-d.strs.Len() < n {
		d.strs = strings.Builder{}
		d.strs.Grow(max(n, min(len(d.data)-s.start, maxStringChunk)))
	}
	start := d.strs.Len()
	d.scratch = appendUnquoted(d.scratch[:0], s.raw(d.data))
	d.strs.Write(d.scratch)
	return d.strs.String()[start:]
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
	var s string
	if !js.escaped && js.start >= d.windowStart && js.end-d.windowStart <= len(d.window) {
		// keep's common case, without the call: the string lies in the
		// window already copied.
		s = d.window[js.start-d.windowStart : js.end-d.windowStart]
	} else {
		s = d.keep(js)
	}
	d.checkString(n, s)
	return s
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
func formatNoun(format string) string { return msgtext.FormatNoun(format) }
