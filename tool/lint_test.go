package tool_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

func lintNoop[In any](context.Context, In) (string, error) { return "", nil }

type lintSearch struct {
	Query string `json:"query" tool:"minLength=1"`
}

type lintTag struct {
	Labels map[string]string `json:"labels" jsonschema:"free-form labels"`
}

// TestLint checks that tool.Lint reports each tool's problems with its
// name, its examples' among them, and the limits of the request.
func TestLint(t *testing.T) {
	search := tool.New("search", "Search the documents.", lintNoop[lintSearch], tool.WithExamples(lintSearch{Query: "go"}))
	tag := tool.New("tag", "Tag a document.", lintNoop[lintTag])
	for _, tt := range []struct {
		dialect *dialect.Dialect
		want    []string // "severity tool path keyword"
	}{
		{dialect.MCP(), nil},
		{dialect.Anthropic(), nil},
		{dialect.OpenAIStrict(), []string{"folded search /properties/query minLength", "folded search  examples", "error tag /properties/labels additionalProperties"}},
		{dialect.Gemini(), []string{"folded search  examples", "error tag /properties/labels additionalProperties"}},
		{dialect.GeminiJSONSchema(), []string{"folded search /properties/query minLength", "folded search  examples"}},
	} {
		t.Run(tt.dialect.Name, func(t *testing.T) {
			var got []string
			for _, p := range tool.Lint(tt.dialect, search, tag) {
				got = append(got, fmt.Sprintf("%s %s %s %s", p.Severity, p.Tool, p.Path, p.Keyword))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Lint(%s) = %q, want %q", tt.dialect.Name, got, tt.want)
			}
		})
	}
}

// TestLintRegistry checks that every tool of every scope is linted, the
// disabled ones included, as one request per dialect.
func TestLintRegistry(t *testing.T) {
	never := func(context.Context) bool { return false }
	var many []tool.Interface
	for i := range 21 {
		many = append(many, tool.New(fmt.Sprintf("search_%d", i), "Search.", lintNoop[lintSearch]))
	}
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "docs", Tools: many},
		&tool.Scope{Name: "admin", Enabled: never, Tools: []tool.Interface{
			tool.New("2fa_reset", "Reset a second factor.", lintNoop[lintSearch], tool.WithEnabled(never)),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	problems := tool.LintRegistry(reg, dialect.AnthropicStrict(), dialect.Gemini())
	count := map[string]int{}
	for _, p := range problems {
		count[p.Dialect+" "+p.Severity.String()+" "+p.Keyword]++
	}
	want := map[string]int{
		"anthropic-strict folded minLength": 22, // every tool, the disabled one too
		"anthropic-strict error tools":      1,  // 22 strict tools > 20
		"gemini error name":                 1,  // 2fa_reset starts with a digit
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("LintRegistry: %d problems %q, want %d\n%v", count[k], k, n, problems)
		}
	}
	if len(problems) != 24 {
		t.Errorf("LintRegistry: %d problems, want 24:\n%v", len(problems), problems)
	}
	if all := tool.LintRegistry(reg); len(all) <= len(problems) {
		t.Errorf("LintRegistry with no dialects = %d problems, want more than under two dialects (%d)", len(all), len(problems))
	}
	if got := tool.LintRegistry(nil); len(got) != 0 {
		t.Errorf("LintRegistry(nil) = %v, want none", got)
	}
}
