package schema

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/hands-go/hands/internal/msgtext"
)

// An Issue is one failure at one place in a JSON document.
type Issue struct {
	// Path is a JSON Pointer (RFC 6901) into the document, such as
	// "/items/2/name". The empty string is the document itself.
	Path string `json:"path"`
	// Keyword names what failed: one of the Keyword constants, such as
	// [KeywordRequired] ("required") or [KeywordMinLength] ("minLength").
	// The JSON Schema keywords are spelled as in the specification. The
	// failures that no keyword describes are [KeywordSyntax] (the bytes are
	// not JSON), [KeywordLimit] (a size, depth or issue limit),
	// [KeywordRange] (a number the Go type cannot hold), [KeywordUnmarshal]
	// (a type's own UnmarshalJSON or UnmarshalText refused the value),
	// [KeywordSchema] (a type's own JSONSchema refused it) and
	// [KeywordValidate] (a Validate method's error). An issue that a
	// Validate method returns in a *Error keeps the keyword it was given.
	Keyword string `json:"keyword"`
	// Message says what is wrong in words a person or a model can act on. It
	// never repeats a large value. Match on Path and Keyword, never on Message.
	Message string `json:"message"`
}

// Keywords name what an Issue failed: they are the values of Issue.Keyword
// that this package reports. Values that are JSON Schema keywords are
// spelled as in the specification.
const (
	KeywordType                 = "type"                 // the value has the wrong JSON type, or is a number that is not an integer
	KeywordEnum                 = "enum"                 // the value is not one of those allowed
	KeywordConst                = "const"                // the value is not the one allowed
	KeywordRequired             = "required"             // a required property is absent
	KeywordAdditionalProperties = "additionalProperties" // a property the type does not have
	KeywordMinProperties        = "minProperties"        // an object has too few properties
	KeywordMaxProperties        = "maxProperties"        // an object has too many properties
	KeywordMinItems             = "minItems"             // an array has too few items
	KeywordMaxItems             = "maxItems"             // an array has too many items
	KeywordUniqueItems          = "uniqueItems"          // two items of an array are equal
	KeywordMinLength            = "minLength"            // a string has too few characters
	KeywordMaxLength            = "maxLength"            // a string has too many characters
	KeywordPattern              = "pattern"              // a string does not match the pattern
	KeywordFormat               = "format"               // a string is not of its format, such as email
	KeywordContentEncoding      = "contentEncoding"      // a string that holds bytes is not base64
	KeywordMinimum              = "minimum"              // a number is too small
	KeywordMaximum              = "maximum"              // a number is too large
	KeywordExclusiveMinimum     = "exclusiveMinimum"     // a number is too small, or equal to the bound
	KeywordExclusiveMaximum     = "exclusiveMaximum"     // a number is too large, or equal to the bound
	KeywordMultipleOf           = "multipleOf"           // a number is not a multiple of the one given
	KeywordDefault              = "default"              // an absent property's default could not be given
	KeywordSyntax               = "syntax"               // the bytes are not JSON
	KeywordLimit                = "limit"                // a size, depth or issue limit
	KeywordRange                = "range"                // a number the Go type cannot hold
	KeywordUnmarshal            = "unmarshal"            // a type's UnmarshalJSON or UnmarshalText refused the value, or a time.Time cannot hold it
	KeywordSchema               = "schema"               // a type's own schema (its JSONSchema method) refused the value
	KeywordValidate             = "validate"             // a Validate method's error
)

// maxPathText is the longest path, in bytes, that String writes in full.
const maxPathText = 120

// String returns the issue as "path: message", with "(root)" for the empty
// path. A very long path is shortened in the middle. A limit on the whole
// document (its size, or how many issues are listed) is the message alone.
func (i Issue) String() string {
	return string(i.Append(make([]byte, 0, max(min(len(i.Path), maxPathText+4), len("(root)"))+len(": ")+len(i.Message))))
}

// Append appends the text String returns to b and returns the extended
// buffer. (It is not AppendText: that would make an Issue an
// encoding.TextAppender, which JSON encoders write as one string instead of
// an object.)
func (i Issue) Append(b []byte) []byte {
	path := i.Path
	switch {
	case path == "" && i.Keyword == KeywordLimit:
		return append(b, i.Message...)
	case path == "":
		b = append(b, "(root)"...)
	case len(path) > maxPathText:
		head, tail := path[:maxPathText/2], path[len(path)-maxPathText/2:]
		if cut := strings.LastIndexByte(head, '/'); cut > 0 {
			head = head[:cut]
		}
		if cut := strings.IndexByte(tail, '/'); cut >= 0 {
			tail = tail[cut:]
		}
		b = append(append(append(b, head...), "/…"...), tail...)
	default:
		b = append(b, path...)
	}
	b = append(b, ": "...)
	return append(b, i.Message...)
}

// ErrInvalidDocument is matched by an *Error: a document that does not
// satisfy its schema.
var ErrInvalidDocument = errors.New("schema: invalid document")

// An Error reports every issue found in one JSON document, in document
// order. Validators return it as a *Error. A Validate method may return one
// to report issues at paths below its value; its Err may then be left nil.
type Error struct {
	Issues []Issue // every issue, in document order, cut to the issue limit
	Err    error   // ErrInvalidDocument
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error returns the issues, one per line after a count.
func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Issues) == 1 {
		b.WriteString("schema: 1 issue")
	} else {
		fmt.Fprintf(&b, "schema: %d issues", len(e.Issues))
	}
	for _, is := range e.Issues {
		b.WriteString("\n")
		b.WriteString(is.String())
	}
	return b.String()
}

// A DefinitionError reports a Go type that cannot describe a tool's input or
// output: an unsupported field type, a malformed tag, a constraint that does
// not fit its field, or a default that breaks its own constraints. It is a
// mistake in the program, found once when the type is first compiled.
type DefinitionError struct {
	// Type is the type being compiled (the top-level input or output type).
	Type reflect.Type
	// Field is the Go path of the offending field, such as "Address.Zip";
	// empty when the type itself is at fault.
	Field string
	// Tag is the offending struct tag, such as `tool:"minLength=x"`; empty
	// when no tag is at fault.
	Tag string
	// Err says what is wrong.
	Err error
}

// Error names the type, the field and the tag, then the problem.
func (e *DefinitionError) Error() string {
	return msgtext.Definition("schema", definitionPlace(e.Type, e.Field, e.Tag), e.Err)
}

// definitionPlace says where a definition mistake is: the type, the field
// and the tag, those that are known.
func definitionPlace(t reflect.Type, field, tag string) []string {
	where := []string{"type <nil>"}
	if t != nil {
		where[0] = "type " + t.String()
	}
	if field != "" {
		where = append(where, "field "+field)
	}
	if tag != "" {
		where = append(where, "tag `"+tag+"`")
	}
	return where
}

// Unwrap returns e.Err.
func (e *DefinitionError) Unwrap() error { return e.Err }

// issuesOf returns the issues an error carries: those of a *Error anywhere in
// its chain, or a single issue with the error's text.
func issuesOf(err error, path, keyword string) []Issue {
	if e, ok := errors.AsType[*Error](err); ok && len(e.Issues) > 0 {
		out := make([]Issue, len(e.Issues))
		for i, is := range e.Issues {
			is.Path = path + is.Path
			is.Message = oneLine(is.Message)
			out[i] = is
		}
		return out
	}
	return []Issue{{Path: path, Keyword: keyword, Message: errorText(err)}}
}

// maxMessage is the longest message, in bytes, that an issue takes from an
// error of code outside this package (UnmarshalJSON, UnmarshalText, a
// Validate method, a type's own schema): such text may repeat a whole value.
const maxMessage = 300

// errorText is err's text as an issue's message: see oneLine.
func errorText(err error) string { return oneLine(err.Error()) }

// oneLine makes s fit one line of the list a model reads, at most
// maxMessage bytes (see msgtext.Line).
func oneLine(s string) string { return msgtext.Line(s, maxMessage) }

// maxQuoted is the longest value, in runes, that a message repeats in full.
const maxQuoted = msgtext.MaxValue

// quote returns s as a Go-quoted string for a message, cut to maxQuoted
// runes.
func quote(s string) string { return msgtext.Quote(s, maxQuoted) }

// shortRaw returns raw JSON for a message, cut to maxQuoted bytes.
func shortRaw(raw []byte) string { return msgtext.Raw(raw, maxQuoted) }

// appendPointerToken appends one JSON Pointer reference token, escaped.
func appendPointerToken[T string | []byte](b []byte, tok T) []byte {
	b = append(b, '/')
	if !containsPointerSpecial(tok) {
		return append(b, tok...)
	}
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, c)
		}
	}
	return b
}

// containsPointerSpecial reports whether tok holds a '~' or a '/', which a
// JSON Pointer escapes.
func containsPointerSpecial[T string | []byte](tok T) bool {
	for i := 0; i < len(tok); i++ {
		if tok[i] == '~' || tok[i] == '/' {
			return true
		}
	}
	return false
}
