package schema

import (
	"regexp"
	"testing"
)

var patternSeeds = []struct{ expr, input string }{
	{`^[a-z0-9_]+$`, "ada_lovelace"},
	{`^[a-z0-9_]+$`, "Ada"},
	{`^[a-z0-9_]+$`, ""},
	{`^[0-9]{5}$`, "12345"},
	{`^[0-9]{5}$`, "1234"},
	{`^[0-9]{2,4}$`, "123456"},
	{`^[A-Z]?$`, ""},
	{`^[a-f]*$`, "cafe"},
	{`^[[:alpha:]]+$`, "abcXYZ"},
	{`(?i)^[a-c]+$`, "AbC"},
	{`^\w+$`, "a_1"},
	{`^[a-z]+$`, "héllo"},
	{`^[^a-z]+$`, "ABC"},   // a negated class holds non-ASCII runes: regexp path
	{`^[a-zé]+$`, "héllo"}, // non-ASCII class: regexp path
	{`^a[0-9]+$`, "a12"},   // not the fast shape
	{`[0-9]+`, "x1"},       // unanchored: regexp path
	{`^[0-9]+$`, "1\n"},    // $ is the end of text in Go
	{`^[\x00-\x7f]+$`, "\x00\x7f"},
	{`^[-a-z.]{2,}$`, "a-b.c"},
	{`^[a-]{0,3}$`, "a--"},
	{`^[ab]{2}$`, "ab"},
	{`^[z-a]+$`, "b"},       // a bad range: the regexp parser's error
	{`^[0-9]{3,2}$`, "12"},  // a bad repeat: the regexp parser's error
	{`^[0-9]{1001}$`, "1"},  // a repeat over 1000: the regexp parser's error
	{`^[]a]+$`, "]"},        // ']' first is a member
	{`^[a$]+$`, "$$"},       // '$' in a class is a member
	{`^[0-9]{02}$`, "12"},   // a leading zero in a count
	{`^[a-c-e]+$`, "-"},     // '-' after a range
	{`^[a-z]{1,3}?$`, "ab"}, // a lazy repeat: regexp path
}

func TestPatternFastPath(t *testing.T) {
	fast := map[string]bool{`^[a-z0-9_]+$`: true, `^[0-9]{5}$`: true, `^[0-9]{2,4}$`: true, `^[A-Z]?$`: true, `^[a-f]*$`: true,
		`^[[:alpha:]]+$`: true, `(?i)^[a-c]+$`: true, `^\w+$`: true, `^[a-z]+$`: true, `^[0-9]+$`: true, `^[\x00-\x7f]+$`: true,
		`^[-a-z.]{2,}$`: true, `^[a-]{0,3}$`: true, `^[ab]{2}$`: true, `^[]a]+$`: true, `^[a$]+$`: true, `^[a-c-e]+$`: true, `^[a-z]{1,3}?$`: true}
	for _, tt := range patternSeeds {
		p, err := compilePattern(tt.expr)
		if _, reErr := regexp.Compile(tt.expr); reErr != nil {
			if err == nil || err.Error() != reErr.Error() {
				t.Errorf("compilePattern(%q) error = %v, want the regexp's %v", tt.expr, err, reErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.fast != fast[tt.expr] {
			t.Errorf("compilePattern(%q).fast = %v, want %v", tt.expr, p.fast, fast[tt.expr])
		}
		if got, want := p.MatchString(tt.input), regexp.MustCompile(tt.expr).MatchString(tt.input); got != want {
			t.Errorf("%q matching %q = %v, regexp says %v", tt.expr, tt.input, got, want)
		}
	}
}

// FuzzPattern checks that the byte-set matcher agrees with the regexp.
func FuzzPattern(f *testing.F) {
	for _, tt := range patternSeeds {
		f.Add(tt.expr, tt.input)
	}
	f.Fuzz(func(t *testing.T, expr, input string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		p, err := compilePattern(expr)
		if err != nil {
			t.Fatalf("compilePattern(%q) = %v, but regexp compiles it", expr, err)
		}
		if got, want := p.MatchString(input), re.MatchString(input); got != want {
			t.Fatalf("%q matching %q = %v (fast=%v), regexp says %v", expr, input, got, p.fast, want)
		}
		// Where both readers find the fast shape, they find the same one.
		// (The parser reads a one-member class such as [0] as a literal, so
		// it can miss a shape the quick reader sees; the match above checks
		// that reading.)
		if q, ok := quickPattern(expr); ok {
			full, err := parsePattern(expr)
			if err != nil {
				t.Fatalf("quickPattern(%q) accepted a pattern the parser rejects: %v", expr, err)
			}
			if full.fast && (q.set != full.set || q.min != full.min || q.max != full.max) {
				t.Fatalf("quickPattern(%q) = %v {%d,%d}, the parser reads %v {%d,%d}", expr, q.set, q.min, q.max, full.set, full.min, full.max)
			}
		}
	})
}
