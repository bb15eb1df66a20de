// Package redacttest finds a secret in a text that should not hold it,
// for the tests of the code that redacts: a text is made twice, with the
// secret and with Rot of it, and a piece of the secret that shows in the
// first and not in the second is the secret's, not the text's around it.
package redacttest

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Rot changes every letter, digit and valid non-ASCII rune of s into
// another of its class, keeping each hexadecimal digit one and every other
// byte as it is: a URL built around it reads the same (its escapes stay
// valid or invalid), and any byte of it that a message shows differs.
func Rot(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte(s[0])
		case r >= utf8.RuneSelf:
			b.WriteRune(r ^ 1) // the same length, and never a surrogate
		default:
			b.WriteByte(rotByte(byte(r)))
		}
		s = s[n:]
	}
	return b.String()
}

func rotByte(c byte) byte {
	for _, class := range []string{"0123456789", "abcdef", "ABCDEF", "ghijklmnopqrstuvwxyz", "GHIJKLMNOPQRSTUVWXYZ"} {
		if i := strings.IndexByte(class, c); i >= 0 {
			return class[(i+1)%len(class)]
		}
	}
	return c
}

// MinPiece is the shortest piece of a secret that Leaked looks for.
const MinPiece = 4

// Leaked returns a piece of secret, as written or escaped for a query, a
// path or a user's password, of MinPiece bytes or more, that shown holds
// and other, the same text made with Rot(secret), does not; "" if there is
// none. A piece whose only letters are x is not one: it may be the mask
// ("xxxxx") next to the text around it, and Rot(secret) may change what
// is masked, when the secret holds a parameter's name such as token=.
func Leaked(secret, shown, other string) string {
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), strings.TrimPrefix(url.UserPassword("", secret).String(), ":")}
	for _, form := range forms {
		for i := range form {
			for j := len(form); j >= i+MinPiece; j-- {
				if w := form[i:j]; strings.Contains(shown, w) && !strings.Contains(other, w) && telling(w) {
					return w
				}
			}
		}
	}
	return ""
}

// telling reports whether w has a byte that Rot changes other than x.
func telling(w string) bool {
	for i := range len(w) {
		if c := w[i]; c >= utf8.RuneSelf || c != 'x' && rotByte(c) != c {
			return true
		}
	}
	return false
}
