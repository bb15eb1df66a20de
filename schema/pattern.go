package schema

import (
	"regexp"
	"regexp/syntax"
)

// A pattern is a compiled pattern keyword. Most patterns in tool schemas
// have one shape — a character class repeated, anchored at both ends, such
// as ^[a-z0-9_]+$ or ^[0-9]{5}$ — and for an ASCII class that shape is
// matched with a byte set instead of the regexp engine. Every other pattern
// uses the regexp.
type pattern struct {
	expr string
	re   *regexp.Regexp // nil for the fast shape, which needs no regexp
	// The fast shape: every byte in set, and a length within [min, max]
	// (max < 0: no limit). Valid when fast is true.
	fast     bool
	set      [4]uint64 // bit c is set when ASCII byte c is in the class
	min, max int
}

// compilePattern compiles expr with regexp's syntax and detects the fast
// shape; only a pattern of another shape is compiled into a regexp.
func compilePattern(expr string) (*pattern, error) {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err // the same *syntax.Error regexp.Compile returns
	}
	p := &pattern{expr: expr}
	if p.detect(tree); p.fast {
		return p, nil
	}
	if p.re, err = regexp.Compile(expr); err != nil {
		return nil, err
	}
	return p, nil
}

// detect recognises ^CLASS REPEAT$ with an ASCII-only class.
func (p *pattern) detect(re *syntax.Regexp) {
	if re.Op != syntax.OpConcat || len(re.Sub) != 3 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[2].Op != syntax.OpEndText {
		return
	}
	body := re.Sub[1]
	lo, hi := 1, 1
	switch body.Op {
	case syntax.OpPlus:
		lo, hi = 1, -1
	case syntax.OpStar:
		lo, hi = 0, -1
	case syntax.OpQuest:
		lo, hi = 0, 1
	case syntax.OpRepeat:
		lo, hi = body.Min, body.Max
	case syntax.OpCharClass:
		body = &syntax.Regexp{Op: syntax.OpRepeat, Sub: []*syntax.Regexp{body}}
	default:
		return
	}
	if len(body.Sub) != 1 || body.Sub[0].Op != syntax.OpCharClass {
		return
	}
	class := body.Sub[0].Rune
	for i := 0; i+1 < len(class); i += 2 {
		if class[i+1] >= 0x80 {
			return // a non-ASCII class: leave it to the regexp
		}
		for c := class[i]; c <= class[i+1]; c++ {
			p.set[c/64] |= 1 << (c % 64)
		}
	}
	p.fast, p.min, p.max = true, lo, hi
}

// MatchString reports whether s contains a match, as regexp does.
func (p *pattern) MatchString(s string) bool {
	if !p.fast {
		return p.re.MatchString(s)
	}
	if len(s) < p.min || (p.max >= 0 && len(s) > p.max) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || p.set[c/64]&(1<<(c%64)) == 0 {
			return false
		}
	}
	return true
}

// String returns the source text.
func (p *pattern) String() string { return p.expr }
