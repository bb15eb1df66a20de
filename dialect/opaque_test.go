package dialect_test

import (
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
)

// anyNote reads and writes its own JSON and has no JSONSchema method.
type anyNote struct{ raw []byte }

func (n *anyNote) UnmarshalJSON(b []byte) error { n.raw = b; return nil }
func (n anyNote) MarshalJSON() ([]byte, error)  { return n.raw, nil }

// TestLintOpaque checks that Lint warns of a value package schema could say
// nothing about, which also keeps the $comment both packages read the same.
func TestLintOpaque(t *testing.T) {
	s := mustSchema[struct {
		Name string  `json:"name"`
		Note anyNote `json:"note"`
	}](t)
	problems := dialect.MCP().Lint("self_readers", s)
	if len(problems) != 1 || problems[0].Severity != dialect.SeverityWarning || problems[0].Path != "/properties/note" ||
		!strings.Contains(problems[0].Message, "JSONSchema") || problems[0].Tool != "self_readers" {
		t.Errorf("MCP.Lint = %v, want one warning at /properties/note that suggests a JSONSchema method", problems)
	}
	if _, problems := dialect.MCP().Convert(s); len(problems) != 0 {
		t.Errorf("MCP.Convert problems = %v, want none: warnings are Lint's", problems)
	}
}
