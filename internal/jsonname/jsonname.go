package jsonname

import (
	"strings"
	"unicode"
)

// Valid reports whether encoding/json takes name, from a json tag, as a
// field's name: it is not empty and holds only letters, digits and the
// punctuation !#$%&()*+-./:;<=>?@[]^_{|}~ and space. For any other name,
// encoding/json uses the Go field's name instead.
func Valid(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
