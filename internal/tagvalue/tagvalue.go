package tagvalue

import "strings"

// CutQuoted reads the single-quoted value at the start of s and returns the
// value, with each doubled quote read as one quote, and the rest of s after
// the closing quote. It reports false when s does not start with a quote or
// the closing quote is missing. What may follow the value is for the caller
// to check.
func CutQuoted(s string) (value, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		return "", "", false
	}
	body := s[1:]
	var b []byte // the value so far, once a doubled quote has been read
	for {
		i := strings.IndexByte(body, '\'')
		if i < 0 {
			return "", "", false
		}
		if i+1 < len(body) && body[i+1] == '\'' {
			b = append(b, body[:i+1]...)
			body = body[i+2:]
			continue
		}
		if b == nil {
			return body[:i], body[i+1:], true
		}
		return string(append(b, body[:i]...)), body[i+1:], true
	}
}
