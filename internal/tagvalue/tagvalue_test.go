package tagvalue

import (
	"strings"
	"testing"
)

func TestCutQuoted(t *testing.T) {
	for _, tt := range []struct {
		s           string
		value, rest string
		ok          bool
	}{
		{s: "''", value: "", rest: "", ok: true},
		{s: "'a,b'", value: "a,b", rest: "", ok: true},
		{s: "'a',minLength=1", value: "a", rest: ",minLength=1", ok: true},
		{s: "'it''s, ok' ,x", value: "it's, ok", rest: " ,x", ok: true},
		{s: "''''", value: "'", rest: "", ok: true},
		{s: "'a''''b'c", value: "a''b", rest: "c", ok: true},
		{s: "'a'b'", value: "a", rest: "b'", ok: true},
		{s: "'^[0-9]{1,3}$'", value: "^[0-9]{1,3}$", rest: "", ok: true},
		{s: "'", ok: false},
		{s: "'abc", ok: false},
		{s: "'it''", ok: false},
		{s: "abc'", ok: false},
		{s: "", ok: false},
	} {
		value, rest, ok := CutQuoted(tt.s)
		if value != tt.value || rest != tt.rest || ok != tt.ok {
			t.Errorf("CutQuoted(%q) = %q, %q, %v, want %q, %q, %v", tt.s, value, rest, ok, tt.value, tt.rest, tt.ok)
		}
	}
}

// cutQuotedSlowly is CutQuoted written as the plain byte loop it replaced in
// packages schema and bind.
func cutQuotedSlowly(s string) (value, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// FuzzCutQuoted checks CutQuoted against the byte loop, and that a value
// written with its quotes doubled reads back as itself.
func FuzzCutQuoted(f *testing.F) {
	for _, seed := range []string{"''", "'a,b'", "'it''s, ok' ,x", "''''", "'a''''b'c", "'", "'abc", "x", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		value, rest, ok := CutQuoted(s)
		wantValue, wantRest, wantOK := cutQuotedSlowly(s)
		if value != wantValue || rest != wantRest || ok != wantOK {
			t.Fatalf("CutQuoted(%q) = %q, %q, %v; the byte loop reads %q, %q, %v", s, value, rest, ok, wantValue, wantRest, wantOK)
		}
		quoted := "'" + strings.ReplaceAll(s, "'", "''") + "'"
		if value, rest, ok := CutQuoted(quoted + ",tail"); value != s || rest != ",tail" || !ok {
			t.Fatalf("CutQuoted(%q) = %q, %q, %v, want %q, \",tail\", true", quoted+",tail", value, rest, ok, s)
		}
	})
}

func BenchmarkCutQuoted(b *testing.B) {
	for _, s := range []string{"'^[0-9]{1,3}$',minLength=1", "'it''s, ok',minLength=1"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := CutQuoted(s); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}
