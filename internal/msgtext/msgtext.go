// Package msgtext writes values into error messages, cut so that a long or
// hostile value cannot fill the message.
package msgtext

import (
	"strconv"
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
