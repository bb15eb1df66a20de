package tooltest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
)

// recorder is a testing.TB that keeps what Portable reports.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func run[In any](context.Context, In) (string, error) { return "", nil }

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
	Days int    `json:"days,omitempty" tool:"minimum=1,maximum=7"`
}

type tagArgs struct {
	Labels map[string]string `json:"labels"`
}

// rawNote reads and writes itself, and says nothing of its JSON.
type rawNote struct{ text string }

func (n *rawNote) UnmarshalJSON(b []byte) error { n.text = string(b); return nil }
func (n rawNote) MarshalJSON() ([]byte, error)  { return []byte(n.text), nil }

type noteArgs struct {
	Note rawNote `json:"note"`
}

func TestPortable(t *testing.T) {
	weather := tool.New("weather", "Report the weather for a city.", run[weatherArgs])
	tag := tool.New("tag", "Tag a document.", run[tagArgs])

	t.Run("portable", func(t *testing.T) {
		reg, err := tool.NewRegistry(&tool.Scope{Name: "main", Tools: []tool.Interface{weather}})
		if err != nil {
			t.Fatal(err)
		}
		tooltest.Portable(t, reg) // must not fail: a fold is only logged
		var r recorder
		tooltest.Portable(&r, reg)
		if len(r.errors) != 0 || len(r.logs) == 0 {
			t.Errorf("Portable(weather): errors %q, logs %q; want no error and the folds logged", r.errors, r.logs)
		}
	})

	t.Run("not portable", func(t *testing.T) {
		reg, err := tool.NewRegistry(
			&tool.Scope{Name: "main", Tools: []tool.Interface{weather}},
			&tool.Scope{Name: "admin", Enabled: func(context.Context) bool { return false }, Tools: []tool.Interface{tag}},
		)
		if err != nil {
			t.Fatal(err)
		}
		var r recorder
		tooltest.Portable(&r, reg, dialect.OpenAIStrict(), dialect.Gemini(), dialect.MCP())
		want := []string{
			"error [openai-strict] tool tag at /properties/labels: ",
			"error [gemini] tool tag at /properties/labels: ",
		}
		if len(r.errors) != len(want) {
			t.Fatalf("Portable: %d errors %q, want %d", len(r.errors), r.errors, len(want))
		}
		for i, prefix := range want {
			if !strings.HasPrefix(r.errors[i], prefix) {
				t.Errorf("Portable error %d = %q, want it to start with %q", i, r.errors[i], prefix)
			}
		}
	})

	t.Run("tools", func(t *testing.T) {
		var r recorder
		tooltest.PortableTools(&r, nil, weather, tag)
		// tag: a map, under openai-strict, anthropic-strict and gemini.
		if len(r.errors) != 3 {
			t.Errorf("PortableTools: errors %q, want 3", r.errors)
		}
		var only recorder
		tooltest.PortableTools(&only, []*dialect.Dialect{dialect.MCP()}, weather, tag)
		if len(only.errors)+len(only.logs) != 0 {
			t.Errorf("PortableTools(MCP): %q %q, want nothing", only.errors, only.logs)
		}
	})

	t.Run("warning", func(t *testing.T) {
		// A value of a type that reads and writes itself is any JSON value:
		// a warning, which is logged, not an error.
		note := tool.New("note", "Keep a note.", run[noteArgs])
		var r recorder
		tooltest.PortableTools(&r, []*dialect.Dialect{dialect.MCP()}, note)
		if len(r.errors) != 0 || len(r.logs) != 1 || !strings.HasPrefix(r.logs[0], "warning [mcp] tool note at /properties/note: ") {
			t.Errorf("PortableTools(note): errors %q, logs %q; want the warning logged", r.errors, r.logs)
		}
	})
}
