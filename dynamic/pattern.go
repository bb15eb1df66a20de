package dynamic

import (
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// PatternTimeout bounds one match of a pattern that only a backtracking
// engine takes (see "Patterns" in the package doc). A match that takes
// longer fails: the value is refused, with an issue that says why.
const PatternTimeout = 100 * time.Millisecond

// JSON Schema's patterns are ECMA-262 regular expressions. Go's regexp
// takes most of those that tools send, in time linear in the input, and
// matches them as ECMA-262 does; it refuses lookahead, lookbehind and
// backreferences, which need backtracking, whose time can grow
// exponentially with the input. A pattern comes from another program and
// a value from a model, so such a pattern gets a backtracking engine with
// its ECMAScript mode and a bound on each match.

// patterns is the regexp engine of one compiled schema document, which
// keeps the backtracking patterns it compiled, by source, so that an issue
// can tell a match cut off from a value that does not match.
type patterns struct {
	mu           sync.Mutex
	backtracking map[string]*ecmaPattern
}

// compile compiles expr with Go's regexp if it can, else as ECMA-262 with
// a backtracking engine bounded by PatternTimeout.
func (p *patterns) compile(expr string) (validator.Regexp, error) {
	re, goErr := regexp.Compile(expr)
	if goErr == nil {
		return re, nil
	}
	ecma, err := regexp2.Compile(expr, regexp2.ECMAScript)
	if err != nil {
		return nil, errors.Join(goErr, err)
	}
	ecma.MatchTimeout = PatternTimeout
	e := &ecmaPattern{re: ecma}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.backtracking == nil {
		p.backtracking = map[string]*ecmaPattern{}
	}
	p.backtracking[expr] = e
	return e, nil
}

// cutOff reports whether matching s against the pattern expr takes longer
// than PatternTimeout: false for a pattern Go's regexp took, which never
// does. It matches again: only a value that failed the pattern is asked
// about.
func (p *patterns) cutOff(expr, s string) bool {
	p.mu.Lock()
	e := p.backtracking[expr]
	p.mu.Unlock()
	if e == nil {
		return false
	}
	_, err := e.re.MatchString(s)
	return err != nil
}

// An ecmaPattern is a pattern that needs backtracking.
type ecmaPattern struct{ re *regexp2.Regexp }

// MatchString reports whether s contains a match of the pattern; a match
// cut off by PatternTimeout is none.
func (e *ecmaPattern) MatchString(s string) bool {
	ok, err := e.re.MatchString(s)
	return ok && err == nil
}

func (e *ecmaPattern) String() string { return e.re.String() }
