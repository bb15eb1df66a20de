package dialect_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hands-go/hands/dialect"
)

// TestCheckFeatures checks that Check refuses a tool that needs a feature
// its dialect lacks, with a Problem that names the tool and the feature,
// and takes it where the dialect has the feature.
func TestCheckFeatures(t *testing.T) {
	obj := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	for _, tt := range []struct {
		dialect string
		need    dialect.Feature
		missing string // "" when Check takes the tool
	}{
		{dialect: "anthropic", need: dialect.DeferLoading | dialect.ToolSearch},
		{dialect: "anthropic-strict", need: dialect.EagerInputStreaming | dialect.PerToolStrict},
		{dialect: "anthropic", need: dialect.Namespaces, missing: "namespaces"},
		{dialect: "anthropic", need: dialect.AllowedTools | dialect.DeferLoading, missing: "allowed_tools"},
		{dialect: "openai-strict", need: dialect.DeferLoading | dialect.ToolSearch | dialect.Namespaces | dialect.AllowedTools},
		{dialect: "openai-strict", need: dialect.EagerInputStreaming, missing: "eager_input_streaming"},
		{dialect: "gemini", need: dialect.DeferLoading | dialect.ToolSearch, missing: "defer_loading|tool_search"},
		{dialect: "mcp", need: dialect.DeferLoading, missing: "defer_loading"},
		{dialect: "gemini", need: 0},
	} {
		t.Run(tt.dialect+"/"+tt.need.String(), func(t *testing.T) {
			d, _ := dialect.Named(tt.dialect)
			err := d.Check(dialect.ToolSchema{Name: "lookup", Schema: obj, Features: tt.need})
			if tt.missing == "" {
				if err != nil {
					t.Fatalf("Check(%s) = %v, want nil", tt.need, err)
				}
				return
			}
			if !errors.Is(err, dialect.ErrRejected) {
				t.Fatalf("Check(%s) = %v, want an error matching ErrRejected", tt.need, err)
			}
			p, ok := errors.AsType[dialect.Problem](err)
			if !ok || p.Tool != "lookup" || p.Keyword != "features" || p.Fix == "" {
				t.Fatalf("Check(%s) = %v, want a Problem of tool lookup, keyword features, with a fix", tt.need, err)
			}
			if want := "needs " + tt.missing + ","; !strings.Contains(p.Message, want) {
				t.Errorf("the problem says %q, want it to say %q", p.Message, want)
			}
		})
	}
}

func TestFeatureString(t *testing.T) {
	for f, want := range map[dialect.Feature]string{
		0:                    "none",
		dialect.DeferLoading: "defer_loading",
		dialect.ToolSearch | dialect.DeferLoading: "defer_loading|tool_search",
		dialect.PerToolStrict | 1<<20:             "per_tool_strict|Feature(0x100000)",
	} {
		if got := f.String(); got != want {
			t.Errorf("Feature(%#x).String() = %q, want %q", uint32(f), got, want)
		}
	}
}
