package schema

import (
	"math"
	"strconv"
)

// Limits bound what one document may cost to read. The zero value selects
// every default; each field's doc says what its zero and negative values
// mean.
type Limits struct {
	// MaxBytes is the largest document accepted, in bytes, checked before
	// anything else is read. Zero selects DefaultMaxBytes; a negative value
	// removes the limit.
	MaxBytes int
	// MaxDepth is the deepest nesting of arrays and objects accepted. Zero
	// or a negative value selects DefaultMaxDepth; values above 10000 are
	// taken as 10000.
	MaxDepth int
	// MaxIssues is how many issues an Error lists before a last one says how
	// many more there are. Zero selects DefaultMaxIssues; a negative value
	// lists every issue (MaxBytes still bounds how many there can be).
	MaxIssues int
}

// resolved returns l with its defaults filled in: MaxBytes positive or
// negative (no limit), MaxDepth and MaxIssues positive.
func (l Limits) resolved() Limits {
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	switch {
	case l.MaxIssues == 0:
		l.MaxIssues = DefaultMaxIssues
	case l.MaxIssues < 0:
		l.MaxIssues = math.MaxInt
	}
	return l
}

// TooLarge reports whether a document of n bytes is over the size limit.
func (l Limits) TooLarge(n int) bool {
	l = l.resolved()
	return l.MaxBytes > 0 && n > l.MaxBytes
}

// sizeIssue is the issue of a document over the size limit of maxBytes.
func sizeIssue(n, maxBytes int) Issue {
	return Issue{Keyword: KeywordLimit, Message: "the arguments are " + strconv.Itoa(n) + " bytes; the limit is " + strconv.Itoa(maxBytes)}
}

// CheckJSON reports whether data is exactly one JSON object, read as
// strictly as Validator.Decode reads a document (UTF-8, escapes, surrogate
// pairs, numbers, duplicate member names, nothing after the value) and
// within l's size and depth limits. It returns nil or a *Error with the one
// issue that stopped it. Its cost is linear in len(data).
//
// It serves tools whose schema is checked by other code (a raw or dynamic
// tool): the limits and the syntax hold for them too.
func (l Limits) CheckJSON(data []byte) error {
	l = l.resolved()
	if l.MaxBytes > 0 && len(data) > l.MaxBytes {
		return &Error{Issues: []Issue{sizeIssue(len(data), l.MaxBytes)}, Err: ErrInvalidDocument}
	}
	d := getDecoder(data, l.MaxDepth, 1)
	defer putDecoder(d)
	c := d.peek()
	switch {
	case d.pos == len(d.data):
		d.stop("", KeywordSyntax, "the arguments are empty; send a JSON object")
	case c != '{':
		if raw, ok := d.skip(); ok {
			d.stop("", KeywordType, "must be an object, got "+describeJSON(c, raw))
		}
	case d.skipObject():
		if d.peek(); d.pos < len(d.data) {
			d.badChar(d.pos, "after top-level value")
		}
	}
	if issues := d.takeIssues(); issues != nil {
		return &Error{Issues: issues, Err: ErrInvalidDocument}
	}
	return nil
}

// CutIssues returns issues cut to l's issue limit, closed by an issue that
// says how many more there are, as a validator's Error lists them. It serves
// issues found by other code (a raw tool's validator).
func (l Limits) CutIssues(issues []Issue) []Issue {
	limit := l.resolved().MaxIssues
	if len(issues) <= limit {
		return issues
	}
	return append(issues[:limit:limit], moreIssues(len(issues)-limit))
}

// moreIssues is the issue that closes a list cut n issues short.
func moreIssues(n int) Issue {
	return Issue{Keyword: KeywordLimit, Message: strconv.Itoa(n) + " more issues not listed; fix these first"}
}
