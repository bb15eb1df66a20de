package tool_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/hands-go/hands/tool"
)

type showKey struct{}

// TestAllSpecs checks that AllSpecs lists every tool, enabled or not, as
// Specs lists the enabled ones, in order; that Spec finds one tool so, and
// that Enabled asks the predicates of the tool and of its scope.
func TestAllSpecs(t *testing.T) {
	handler := func(ctx context.Context, a noteArgs) (string, error) { return a.Title, nil }
	shown := func(ctx context.Context) bool { return ctx.Value(showKey{}) != nil }
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "open", Tools: []tool.Interface{
			tool.New("first", "Always there.", handler),
			tool.New("gated", "There when shown.", handler, tool.WithEnabled(shown)),
		}},
		&tool.Scope{Name: "hidden", Enabled: shown, DeferLoading: true, Tools: []tool.Interface{
			tool.New("in_hidden", "In a scope there when shown.", handler),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	shownCtx := context.WithValue(ctx, showKey{}, true)
	all := reg.AllSpecs()
	if got, want := specNames(all), []string{"first", "gated", "in_hidden"}; !slices.Equal(got, want) {
		t.Fatalf("AllSpecs = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(all, reg.Specs(shownCtx)) {
		t.Errorf("AllSpecs differs from Specs with every tool enabled:\n%+v\n%+v", all, reg.Specs(shownCtx))
	}
	if !all[2].DeferLoading || all[2].Namespace != "hidden" {
		t.Errorf("AllSpecs lists in_hidden with DeferLoading %v and Namespace %q, want its scope's", all[2].DeferLoading, all[2].Namespace)
	}
	for _, s := range all {
		got, ok := reg.Spec(s.Name)
		if !ok || !reflect.DeepEqual(got, s) {
			t.Errorf("Spec(%q) = %+v, %v; want %+v, true", s.Name, got, ok, s)
		}
	}
	if _, ok := reg.Spec("missing"); ok {
		t.Error("Spec found a tool the registry does not hold")
	}
	for name, want := range map[string]bool{"first": true, "gated": false, "in_hidden": false, "missing": false} {
		if got := reg.Enabled(ctx, name); got != want {
			t.Errorf("Enabled(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"first": true, "gated": true, "in_hidden": true, "missing": false} {
		if got := reg.Enabled(shownCtx, name); got != want {
			t.Errorf("Enabled(%q) when shown = %v, want %v", name, got, want)
		}
	}
}

func specNames(specs []tool.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}
