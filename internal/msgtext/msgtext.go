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
