package dialect_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
)

// examplesOf returns n examples of size bytes each.
func examplesOf(n, size int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		pad := size - len(`{"q":"","i":0}`)
		out[i] = json.RawMessage(fmt.Sprintf(`{"q":"%s","i":%d}`, strings.Repeat("x", pad), i%10))
	}
	return out
}

func TestConvertExamples(t *testing.T) {
	const desc = "Search the notes."
	two := []json.RawMessage{json.RawMessage(`{"q":"a"}`), json.RawMessage(`{"q":"b","limit":3}`)}
	withTable := &dialect.Dialect{Name: "table", Keywords: map[string]dialect.Action{"description": dialect.Keep}}
	drop := withTable.Clone()
	drop.Examples = dialect.Drop
	bounded := dialect.OpenAIStrict()
	bounded.MaxFoldedExamples = 100
	unbounded := dialect.Gemini()
	unbounded.MaxFoldedExamples = 0
	for _, tt := range []struct {
		name     string
		d        *dialect.Dialect
		examples []json.RawMessage
		desc     string // the description sent
		kept     int    // how many examples are sent as they are
		severity dialect.Severity
	}{
		{name: "mcp keeps", d: dialect.MCP(), examples: two, desc: desc, kept: 2},
		{name: "anthropic keeps", d: dialect.Anthropic(), examples: two, desc: desc, kept: 2},
		{name: "anthropic strict keeps", d: dialect.AnthropicStrict(), examples: two, desc: desc, kept: 2},
		{name: "the zero dialect keeps", d: &dialect.Dialect{}, examples: two, desc: desc, kept: 2},
		{
			name: "openai strict folds", d: dialect.OpenAIStrict(), examples: two, severity: dialect.SeverityFolded,
			desc: desc + "\n\nExample calls (the arguments as JSON, one a line):\n" + `{"q":"a"}` + "\n" + `{"q":"b","limit":3}`,
		},
		{
			name: "one folded", d: dialect.Gemini(), examples: two[:1], severity: dialect.SeverityFolded,
			desc: desc + "\n\nExample call (the arguments as JSON):\n" + `{"q":"a"}`,
		},
		{
			name: "folded up to the bound", d: bounded, examples: examplesOf(3, 40), severity: dialect.SeverityFolded,
			desc: desc + "\n\nExample calls (the arguments as JSON, one a line):\n" + string(examplesOf(3, 40)[0]) + "\n" + string(examplesOf(3, 40)[1]),
		},
		{name: "the first over the bound", d: bounded, examples: examplesOf(2, 101), desc: desc, severity: dialect.SeverityWarning},
		{
			name: "no bound", d: unbounded, examples: examplesOf(2, 5000), severity: dialect.SeverityFolded,
			desc: desc + "\n\nExample calls (the arguments as JSON, one a line):\n" + string(examplesOf(2, 5000)[0]) + "\n" + string(examplesOf(2, 5000)[1]),
		},
		{name: "drop", d: drop, examples: two, desc: desc},
		{name: "a table that does not list examples", d: withTable, examples: two, desc: desc, severity: dialect.SeverityError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, kept, problems := tt.d.ConvertExamples("search", desc, tt.examples)
			if got != tt.desc {
				t.Errorf("ConvertExamples: description\n%s\nwant\n%s", got, tt.desc)
			}
			if len(kept) != tt.kept {
				t.Errorf("ConvertExamples kept %d examples, want %d", len(kept), tt.kept)
			}
			if tt.severity == 0 {
				if len(problems) != 0 {
					t.Errorf("ConvertExamples: problems %v, want none", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("ConvertExamples: problems %v, want one", problems)
			}
			p := problems[0]
			if p.Severity != tt.severity || p.Keyword != "examples" || p.Tool != "search" || p.Path != "" || p.Dialect != tt.d.Name {
				t.Errorf("ConvertExamples: problem %+v, want one of severity %v, keyword examples, for the tool search at the root", p, tt.severity)
			}
			if (p.Severity == dialect.SeverityError) != (p.Fix != "") {
				t.Errorf("problem %+v: an error has a fix, and nothing else does", p)
			}
		})
	}
}

// TestConvertExamplesNone is the identity case: without examples, every
// dialect sends the description as it is and reports nothing.
func TestConvertExamplesNone(t *testing.T) {
	for _, d := range append(dialect.Dialects(), &dialect.Dialect{}, &dialect.Dialect{Keywords: map[string]dialect.Action{}}) {
		for _, examples := range [][]json.RawMessage{nil, {}} {
			desc, kept, problems := d.ConvertExamples("search", "Search the notes.", examples)
			if desc != "Search the notes." || kept != nil || problems != nil {
				t.Errorf("%s: ConvertExamples without examples = %q, %q, %v; want the description alone", d.Name, desc, kept, problems)
			}
		}
	}
}

// TestFoldedExamplesBounded checks the bound over many sizes: what Fold
// adds to a description is the heading and whole examples, at most
// MaxFoldedExamples bytes of them and their line breaks.
func TestFoldedExamplesBounded(t *testing.T) {
	d := dialect.OpenAIStrict()
	const heading = len("\n\nExample calls (the arguments as JSON, one a line):")
	for n := 1; n <= 6; n++ {
		for _, size := range []int{15, 100, 333, 512, 1000, 1024, 1025, 3000} {
			examples := examplesOf(n, size)
			desc, _, _ := d.ConvertExamples("search", "D", examples)
			added := len(desc) - len("D")
			if added > heading+d.MaxFoldedExamples+n {
				t.Errorf("%d examples of %d bytes added %d bytes to the description, more than the bound of %d and the heading", n, size, added, d.MaxFoldedExamples)
			}
			folded := strings.Count(desc, `{"q":`)
			if want := min(n, d.MaxFoldedExamples/size); folded != want {
				t.Errorf("%d examples of %d bytes: %d folded, want %d", n, size, folded, want)
			}
		}
	}
}

// TestCheckExamples checks that Check refuses a tool whose examples the
// dialect cannot take, and that a fold is no reason to refuse one.
func TestCheckExamples(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"q": {Type: "string"}}, Required: []string{"q"}}
	ts := dialect.ToolSchema{Name: "search", Schema: s, Examples: []json.RawMessage{json.RawMessage(`{"q":"a"}`)}}
	for _, d := range dialect.Dialects() {
		if err := d.Check(ts); err != nil {
			t.Errorf("%s: Check = %v, want nil", d.Name, err)
		}
	}
	strict := dialect.OpenAIStrict()
	strict.Examples = dialect.Reject
	err := strict.Check(ts)
	if !errors.Is(err, dialect.ErrRejected) {
		t.Fatalf("Check with examples the dialect rejects = %v, want an error that matches ErrRejected", err)
	}
	if p, ok := errors.AsType[dialect.Problem](err); !ok || p.Keyword != "examples" || p.Tool != "search" {
		t.Errorf("Check = %v, want the problem of the examples", err)
	}
	// LintTools reports the fold, after the tool's other problems.
	problems := dialect.OpenAIStrict().LintTools(ts)
	if len(problems) != 1 || problems[0].Severity != dialect.SeverityFolded || problems[0].Keyword != "examples" {
		t.Errorf("LintTools = %v, want the fold of the examples", problems)
	}
}
