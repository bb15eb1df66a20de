package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
	for _, s := range reg.Specs(context.Background()) {
		if s.DeferLoading != want[s.Name] {
			t.Errorf("%s: DeferLoading = %v under the registry, want %v", s.Name, s.DeferLoading, want[s.Name])
		}
	}
}
