package tool_test

import (
	"context"
	"testing"

	"github.com/hands-go/hands/tool"
)

type callerKey struct{}

// TestEnabledAndScopeOf checks that Enabled evaluates one tool's scope
// predicate and its own for the context given, and that ScopeOf finds a
// tool's scope, for tools added later too.
func TestEnabledAndScopeOf(t *testing.T) {
	handler := func(ctx context.Context, a noteArgs) (string, error) { return a.Title, nil }
	forAlice := func(ctx context.Context) bool { return ctx.Value(callerKey{}) == "alice" }
	open := &tool.Scope{Name: "open", Tools: []tool.Interface{
		tool.New("anyone", "A tool for anyone.", handler),
		tool.New("alice_only", "A tool for Alice alone.", handler, tool.WithEnabled(forAlice)),
	}}
	gated := &tool.Scope{Name: "gated", Enabled: forAlice, Tools: []tool.Interface{tool.New("in_gated", "A tool of a gated scope.", handler)}}
	reg, err := tool.NewRegistry(open, gated)
	if err != nil {
		t.Fatal(err)
	}
	later := &tool.Scope{Name: "later", Tools: []tool.Interface{tool.New("added", "A tool added later.", handler)}}
	if err := reg.Add(later); err != nil {
		t.Fatal(err)
	}
	alice := context.WithValue(context.Background(), callerKey{}, "alice")
	bob := context.WithValue(context.Background(), callerKey{}, "bob")
	for _, c := range []struct {
		name       string
		alice, bob bool
		scope      *tool.Scope
	}{
		{"anyone", true, true, open},
		{"alice_only", true, false, open},
		{"in_gated", true, false, gated},
		{"added", true, true, later},
		{"missing", false, false, nil},
	} {
		if got := reg.Enabled(alice, c.name); got != c.alice {
			t.Errorf("Enabled(alice, %s) = %v, want %v", c.name, got, c.alice)
		}
		if got := reg.Enabled(bob, c.name); got != c.bob {
			t.Errorf("Enabled(bob, %s) = %v, want %v", c.name, got, c.bob)
		}
		if got, ok := reg.ScopeOf(c.name); got != c.scope || ok != (c.scope != nil) {
			t.Errorf("ScopeOf(%s) = %v, %v, want %v", c.name, got, ok, c.scope)
		}
	}
}
