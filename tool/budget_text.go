package tool

import (
	"strings"
	"unicode/utf8"
)

// runeStart returns the largest i ≤ n at which s may be cut without
// splitting a character: i is len(s), or s[i] starts a character. A byte
// that is not UTF-8 counts as a character of its own.
func runeStart(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	// A character is at most utf8.UTFMax bytes: look that far back for the
	// start of the one that holds s[n].
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if i == n {
			return n
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); !(r == utf8.RuneError && size <= 1) && i+size > n {
			return i // the character at i ends past n
		}
		return n
	}
	return n
}

// cutText returns the longest prefix of s of at most n bytes that ends at
// a line boundary (after a newline) in the last half of those n bytes,
// else at a word boundary (after a space or a tab) there, else at a
// character boundary: the reader sees whole lines, or whole words, and
// never half a character.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := runeStart(s, n)
	head := s[:end]
	floor := end / 2
	if i := strings.LastIndexByte(head, '\n'); i >= 0 && i+1 > floor {
		return head[:i+1]
	}
	if i := strings.LastIndexAny(head, " \t"); i >= 0 && i+1 > floor {
		return head[:i+1]
	}
	return head
}

// partBytes is what one part costs a budget: its text and its data, and
// the URI and names that describe it.
func partBytes(p *Part) int {
	return len(p.Text) + len(p.Data) + len(p.URI) + len(p.Name) + len(p.Title) + len(p.Description) + len(p.MIME)
}

// partsBytes is what parts cost a budget.
func partsBytes(parts []Part) int {
	n := 0
	for i := range parts {
		n += partBytes(&parts[i])
	}
	return n
}

// cutParts returns the parts, in order, that fit n bytes, and how many
// were left out. The parts are kept whole while they fit; the first that
// does not is cut if it is a text part (at a boundary, as cutText cuts)
// and left out whole otherwise — an image, audio or a resource is never
// half-sent — and every part after it is left out. The parts are copied,
// never changed.
func cutParts(parts []Part, n int) ([]Part, int) {
	out := make([]Part, 0, len(parts)+1)
	left := n
	for i, p := range parts {
		cost := partBytes(&p)
		if cost <= left {
			out = append(out, p)
			left -= cost
			continue
		}
		if p.Kind == PartText && left > 0 {
			p.Text = cutText(p.Text, left)
			if p.Text != "" {
				out = append(out, p)
				return out, len(parts) - i - 1
			}
		}
		return out, len(parts) - i
	}
	return out, 0
}
