package msgtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quote returns s as a Go-quoted string, as [strconv.Quote] writes it. When
// s is longer than n runes, it quotes the first n-1 runes and appends "…"
// after the closing quote.
func Quote(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return strconv.Quote(s)
	}
	i := 0
	for at := range s {
		if i == n-1 {
			return strconv.Quote(s[:at]) + "…"
		}
		i++
	}
	return strconv.Quote(s)
}

// Line makes s fit one line of a list a model reads: line breaks (as
// errors.Join writes them) become "; ", and text past n bytes is cut, at a
// rune boundary, with "…" in place of the rest.
func Line(s string, n int) string {
	if strings.IndexFunc(s, isLineBreak) >= 0 {
		s = strings.Join(strings.FieldsFunc(s, isLineBreak), "; ")
	}
	if len(s) <= n {
		return s
	}
	cut := max(n-len("…"), 0)
	for back := 0; back < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); back++ {
		cut-- // into the rune it would split, not past stray bytes
	}
	return s[:cut] + "…"
}

// isLineBreak reports whether r ends a line.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// Definition returns the text of a definition error, in the one form the
// definition errors of schema, bind and tool share: the package, where the
// mistake is (such as "type main.Args", "field Address.Zip", a tag), then
// what is wrong:
//
//	schema: type main.Args, field Zip, tag `tool:"minLength=x"`: ...
func Definition(pkg string, where []string, err error) string {
	var b strings.Builder
	b.WriteString(pkg)
	b.WriteString(": ")
	for i, w := range where {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	if len(where) > 0 {
		b.WriteString(": ")
	}
	if err != nil {
		b.WriteString(err.Error())
	} else {
		b.WriteString("invalid definition")
	}
	return b.String()
}

// MaxValue is the longest value, in runes (or bytes, for raw JSON), that a
// message about a value repeats in full.
const MaxValue = 40

// Raw returns raw JSON for a message, cut to n bytes at a rune boundary,
// with "…" in place of the rest.
func Raw(raw []byte, n int) string {
	if len(raw) <= n {
		return string(raw)
	}
	cut := n - 1
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + "…"
}

// Plural returns word, or its plural when n is not 1.
func Plural(n int, word string) string {
	switch {
	case n == 1:
		return word
	case strings.HasSuffix(word, "y"):
		return word[:len(word)-1] + "ies"
	}
	return word + "s"
}

// FormatNoun describes a value of a JSON Schema format, for a message that
// says what a value must be.
func FormatNoun(format string) string {
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
