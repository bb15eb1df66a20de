package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// TestDeferLoading checks that a tool deferred by its own option or by its
// scope says so in its spec, under the registry and alone, and that a tool
// deferred by neither does not: its spec's JSON is unchanged.
func TestDeferLoading(t *testing.T) {
	handler := func(ctx context.Context, a noteArgs) (string, error) { return a.Title, nil }
	own := tool.New("own", "A tool deferred by its own option.", handler, tool.WithDeferLoading())
	plain := tool.New("plain", "A tool deferred by nothing.", handler)
	inScope := tool.New("in_scope", "A tool deferred by its scope.", handler)
	rawHandler := func(ctx context.Context, args json.RawMessage) (any, error) { return "", nil }
	raw := tool.NewRaw(tool.Spec{Name: "raw", Description: "A raw tool deferred by its own option.", InputSchema: own.Spec().InputSchema},
		nil, rawHandler, tool.WithDeferLoading())
	rawBySpec := tool.NewRaw(tool.Spec{Name: "raw_by_spec", Description: "A raw tool deferred by its spec.", InputSchema: own.Spec().InputSchema, DeferLoading: true},
		nil, rawHandler)

	if !own.Spec().DeferLoading || !raw.Spec().DeferLoading || !rawBySpec.Spec().DeferLoading {
		t.Error("a tool made WithDeferLoading has a spec without DeferLoading")
	}
	if inScope.Spec().DeferLoading {
		t.Error("a tool outside any registry is deferred by nothing but its spec says DeferLoading")
	}
	b, err := json.Marshal(plain.Spec())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "deferLoading") {
		t.Errorf("a tool deferred by nothing has deferLoading in its spec's JSON: %s", b)
	}

	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "loaded", Tools: []tool.Interface{own, plain, raw}},
		&tool.Scope{Name: "later", Tools: []tool.Interface{inScope}, DeferLoading: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"own": true, "plain": false, "raw": true, "in_scope": true}
	namespace := map[string]string{"in_scope": "later"} // only a deferred scope groups its tools
	for _, s := range reg.Specs(context.Background()) {
		if s.DeferLoading != want[s.Name] {
			t.Errorf("%s: DeferLoading = %v under the registry, want %v", s.Name, s.DeferLoading, want[s.Name])
		}
		if s.Namespace != namespace[s.Name] {
			t.Errorf("%s: Namespace = %q under the registry, want %q", s.Name, s.Namespace, namespace[s.Name])
		}
	}
}

// TestLintNothingLoaded checks that a registry whose every tool is
// deferred, by its own option or by its scope, is reported as an error by
// LintRegistry and by CheckLoaded, and that one loaded tool, or no tool at
// all, is not.
func TestLintNothingLoaded(t *testing.T) {
	handler := func(ctx context.Context, a noteArgs) (string, error) { return a.Title, nil }
	deferred := tool.New("deferred", "A deferred tool.", handler, tool.WithDeferLoading())
	inScope := tool.New("in_scope", "A tool of a deferred scope.", handler)
	loaded := tool.New("loaded", "A tool shown on every turn.", handler)
	for _, tt := range []struct {
		name    string
		scopes  []*tool.Scope
		nothing bool
	}{
		{name: "all deferred", nothing: true, scopes: []*tool.Scope{
			{Name: "a", Tools: []tool.Interface{deferred}},
			{Name: "b", Tools: []tool.Interface{inScope}, DeferLoading: true},
		}},
		{name: "one loaded", scopes: []*tool.Scope{
			{Name: "a", Tools: []tool.Interface{deferred, loaded}},
			{Name: "b", Tools: []tool.Interface{inScope}, DeferLoading: true},
		}},
		{name: "loaded but disabled", scopes: []*tool.Scope{
			// Lint looks at every tool, enabled or not.
			{Name: "a", Tools: []tool.Interface{deferred}},
			{Name: "b", Tools: []tool.Interface{loaded}, Enabled: func(context.Context) bool { return false }},
		}},
		{name: "empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := tool.NewRegistry(tt.scopes...)
			if err != nil {
				t.Fatal(err)
			}
			err = tool.CheckLoaded(reg)
			if got := errors.Is(err, tool.ErrNothingLoaded); got != tt.nothing {
				t.Errorf("CheckLoaded = %v, want an error matching ErrNothingLoaded: %v", err, tt.nothing)
			}
			var found bool
			for _, p := range tool.LintRegistry(reg, dialect.Anthropic()) {
				if p.Keyword == "tools" && p.Severity == dialect.SeverityError && strings.Contains(p.Message, "deferred") {
					found = true
					if p.Fix == "" {
						t.Errorf("the problem %v has no fix", p)
					}
				}
			}
			if found != tt.nothing {
				t.Errorf("LintRegistry reports nothing loaded: %v, want %v", found, tt.nothing)
			}
		})
	}
}
