package msgtext

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 5, `""`},
		{"abcde", 5, `"abcde"`},
		{"abcdef", 5, `"abcd"…`},
		{"a\"b\nc", 5, `"a\"b\nc"`},
		{"héllo wörld", 6, `"héllo"…`},
		{"日本語のテキスト", 4, `"日本語"…`},
		{"\xff\xfe\xfd", 2, `"\xff"…`},
		{"ab", 1, `""…`},
	} {
		if got := Quote(tt.s, tt.n); got != tt.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tt.s, tt.n, got, tt.want)
		}
	}
}

// FuzzQuote checks that Quote writes s whole when it is short enough, and
// otherwise the quoted first n-1 runes of s and "…".
func FuzzQuote(f *testing.F) {
	f.Add("héllo wörld", 6)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 1000 {
			return
		}
		got := Quote(s, n)
		if utf8.RuneCountInString(s) <= n {
			if want := strconv.Quote(s); got != want {
				t.Fatalf("Quote(%q, %d) = %s, want %s", s, n, got, want)
			}
			return
		}
		quoted, ok := strings.CutSuffix(got, "…")
		if !ok {
			t.Fatalf("Quote(%q, %d) = %s, which does not end in …", s, n, got)
		}
		head, err := strconv.Unquote(quoted)
		if err != nil || !strings.HasPrefix(s, head) || utf8.RuneCountInString(head) != n-1 {
			t.Fatalf("Quote(%q, %d) = %s, want the first %d runes quoted", s, n, got, n-1)
		}
	})
}

func TestLine(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"a\nb\r\nc", 10, "a; b; c"},
		{"abcdefghij", 8, "abcde…"},
		{"ab日本", 6, "ab…"},
		{"x\u2028y", 10, "x; y"},
		{"abc", 1, "…"},
	} {
		got := Line(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if len(tt.s) > tt.n && len(got) > max(tt.n, len("…")) || !utf8.ValidString(got) && utf8.ValidString(tt.s) {
			t.Errorf("Line(%q, %d) = %q: too long or split a rune", tt.s, tt.n, got)
		}
	}
}
