package schema

import (
	"regexp"
	"regexp/syntax"
	"strings"
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
	if p, ok := quickPattern(expr); ok {
		return p, nil
	}
	return parsePattern(expr)
}

// parsePattern is compilePattern through regexp/syntax's parser.
func parsePattern(expr string) (*pattern, error) {
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

// quickPattern recognises the fast shape in the text of the commonest
// patterns, without the regexp parser: ^[class]$ followed by nothing, +, *,
// ? or {n}, {n,} or {n,m}, where the class lists printable ASCII characters
// and ranges with no escapes, no negation and no brackets. It reports false
// for anything else, which parsePattern then reads in full.
func quickPattern(expr string) (*pattern, bool) {
	if len(expr) < 5 || expr[0] != '^' || expr[1] != '[' || expr[len(expr)-1] != '$' {
		return nil, false
	}
	end := strings.IndexByte(expr[2:], ']') + 2
	if end < 3 { // no ']', or "[]", which opens a class that holds ']'
		return nil, false
	}
	p := &pattern{expr: expr, fast: true}
	class := expr[2:end]
	for i := 0; i < len(class); i++ {
		c := class[i]
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '[' || c == '^' {
			return nil, false
		}
		hi := c
		if i+2 < len(class) && class[i+1] == '-' {
			hi = class[i+2]
			if hi < c || hi < 0x20 || hi >= 0x7f || hi == '\\' || hi == '[' || hi == '^' {
				return nil, false
			}
			i += 2
		}
		for b := c; b <= hi; b++ {
			p.set[b/64] |= 1 << (b % 64)
		}
	}
	switch quant := expr[end+1 : len(expr)-1]; quant {
	case "":
		p.min, p.max = 1, 1
	case "+":
		p.min, p.max = 1, -1
	case "*":
		p.min, p.max = 0, -1
	case "?":
		p.min, p.max = 0, 1
	default:
		if quant[0] != '{' || quant[len(quant)-1] != '}' {
			return nil, false
		}
		lo, hi, comma := strings.Cut(quant[1:len(quant)-1], ",")
		var ok bool
		if p.min, ok = repeatCount(lo); !ok {
			return nil, false
		}
		switch {
		case !comma:
			p.max = p.min
		case hi == "":
			p.max = -1
		default:
			if p.max, ok = repeatCount(hi); !ok || p.max < p.min {
				return nil, false
			}
		}
	}
	return p, true
}

// repeatCount reads a repeat count as the regexp parser does: decimal
// digits, no sign, no leading zero, at most 1000.
func repeatCount(s string) (int, bool) {
	if s == "" || len(s) > 4 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n <= 1000
}
