package dynamic_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/tool"
)

// TestECMAScriptPatterns defines tools whose patterns Go's regexp rejects
// but ECMA-262, the dialect of JSON Schema's patterns, accepts: lookahead
// (as Linear's MCP server sends), lookbehind and backreferences. Each
// compiles, and holds the arguments to the pattern.
func TestECMAScriptPatterns(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		valid   []string
		invalid []string
	}{
		{`^(?!.*[Ll][Ii][Nn][Ee][Aa][Rr])(?!.*[Hh][Tt][Tt][Pp][Ss]?://).*$`, []string{"a team", ""}, []string{"see linear", "http://x"}},
		{`^(?=.*\d)[a-z\d]{4,}$`, []string{"abc1"}, []string{"abcd", "a1"}},
		{`(?<=\$)\d+`, []string{"cost $12"}, []string{"cost 12"}},
		{`^(['"]).*\1$`, []string{`'a'`, `"b"`}, []string{`'c"`}},
	} {
		doc := `{"type":"object","properties":{"s":{"type":"string","pattern":` + jsonString(tt.pattern) + `}}}`
		tl, err := dynamic.New("t", "A tool.", json.RawMessage(doc), echo)
		if err != nil {
			t.Errorf("New with the pattern %s: %v", tt.pattern, err)
			continue
		}
		for _, s := range tt.valid {
			if _, err := tl.CallJSON(t.Context(), json.RawMessage(`{"s":`+jsonString(s)+`}`)); err != nil {
				t.Errorf("pattern %s, %q: %v, want a match", tt.pattern, s, err)
			}
		}
		for _, s := range tt.invalid {
			_, err := tl.CallJSON(t.Context(), json.RawMessage(`{"s":`+jsonString(s)+`}`))
			if verr, ok := errors.AsType[*tool.ValidationError](err); !ok || len(verr.Issues) != 1 || verr.Issues[0].Keyword != "pattern" {
				t.Errorf("pattern %s, %q: %v, want one pattern issue", tt.pattern, s, err)
			}
		}
	}
}

// TestPatternBacktrackingBounded validates against a pattern that only a
// backtracking engine takes and that backtracks exponentially on the
// argument: the match is cut off, and the argument refused with an issue
// that says so, rather than a call that never ends.
func TestPatternBacktrackingBounded(t *testing.T) {
	doc := `{"type":"object","properties":{"s":{"type":"string","pattern":"^(?!x)(a+)+$"}}}`
	tl, err := dynamic.New("t", "A tool.", json.RawMessage(doc), echo)
	if err != nil {
		t.Fatal(err)
	}
	arg := strings.Repeat("a", 64) + "!"
	_, err = tl.CallJSON(t.Context(), json.RawMessage(`{"s":"`+arg+`"}`))
	verr, ok := errors.AsType[*tool.ValidationError](err)
	if !ok || len(verr.Issues) != 1 {
		t.Fatalf("CallJSON = %v, want one issue", err)
	}
	is := verr.Issues[0]
	if is.Path != "/s" || is.Keyword != "pattern" || !strings.Contains(is.Message, "too long to match") {
		t.Errorf("issue = %+v, want one at /s, keyword pattern, saying the match took too long", is)
	}
	if _, err := tl.CallJSON(t.Context(), json.RawMessage(`{"s":"aaa"}`)); err != nil {
		t.Errorf("CallJSON(aaa) = %v, want a match", err)
	}
}

// TestPatternNotECMAScript refuses a pattern neither engine takes.
func TestPatternNotECMAScript(t *testing.T) {
	_, err := dynamic.New("t", "A tool.", json.RawMessage(`{"type":"object","properties":{"s":{"type":"string","pattern":"(a"}}}`), echo)
	if !errors.Is(err, dynamic.ErrSchemaInvalid) {
		t.Errorf("New = %v, want ErrSchemaInvalid", err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
