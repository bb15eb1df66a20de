package main

import (
	"errors"
	"fmt"
	"strings"
)

// errUnbalancedQuote is the Err of a *wordsError whose quote is not closed.
var errUnbalancedQuote = errors.New("a quote is not closed")

// errTrailingBackslash is the Err of a *wordsError that ends in a lone
// backslash.
var errTrailingBackslash = errors.New("a backslash ends the command")

// A wordsError says where a command line could not be split into words.
type wordsError struct {
	Offset int   // the byte offset of the quote or backslash at fault
	Err    error // errUnbalancedQuote or errTrailingBackslash
}

func (e *wordsError) Error() string {
	return fmt.Sprintf("at byte %d: %v (quote words as a POSIX shell does)", e.Offset, e.Err)
}

func (e *wordsError) Unwrap() error { return e.Err }

// splitWords splits a command line into words as a POSIX shell does, with
// no expansion: blanks separate words; 'single quotes' keep everything
// they hold; "double quotes" keep everything but a backslash before ", \,
// $, ` or a newline, which keeps that character; outside quotes a
// backslash keeps the next character, and a backslash-newline is dropped.
// It reads each byte once.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case '\\':
			if i+1 == len(s) {
				return nil, &wordsError{Offset: i, Err: errTrailingBackslash}
			}
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
				inWord = true
			}
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, &wordsError{Offset: i, Err: errUnbalancedQuote}
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case '"':
			start := i
			closed := false
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					closed = true
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						w.WriteByte(s[i])
					}
					continue
				}
				w.WriteByte(s[i])
			}
			if !closed {
				return nil, &wordsError{Offset: start, Err: errUnbalancedQuote}
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
