package tool_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hands-go/hands/tool"
)

// TestAdded checks that Registry.Added returns the tools added since a
// version, and refuses once a tool was taken out since, or for a version
// the registry never had.
func TestAdded(t *testing.T) {
	echo := func(name string) tool.Interface {
		return tool.New(name, "Echo a text.", func(_ context.Context, in greetArgs) (string, error) { return in.Name, nil })
	}
	names := func(tools []tool.Interface) []string {
		var out []string
		for _, t := range tools {
			out = append(out, t.Name())
		}
		return out
	}
	a, b, c := echo("a"), echo("b"), echo("c")
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{a}})
	if err != nil {
		t.Fatal(err)
	}
	v1 := reg.Version()
	for _, add := range []tool.Interface{b, c} {
		if err := reg.Add(&tool.Scope{Name: "s", Tools: []tool.Interface{add}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		since uint64
		want  []string
	}{{0, []string{"a", "b", "c"}}, {v1, []string{"b", "c"}}, {v1 + 1, []string{"c"}}, {reg.Version(), nil}} {
		got, v, ok := reg.Added(tc.since)
		if !ok || v != reg.Version() || !slices.Equal(names(got), tc.want) {
			t.Errorf("Added(%d) = %v, %d, %v; want %v, %d, true", tc.since, names(got), v, ok, tc.want, reg.Version())
		}
	}
	if _, _, ok := reg.Added(reg.Version() + 1); ok {
		t.Errorf("Added of a version to come = true, want false")
	}
	before := reg.Version()
	reg.Remove(b)
	if _, _, ok := reg.Added(before); ok {
		t.Errorf("Added across a Remove = true, want false")
	}
	after := reg.Version()
	if err := reg.Add(&tool.Scope{Name: "s", Tools: []tool.Interface{b}}); err != nil {
		t.Fatal(err)
	}
	if got, _, ok := reg.Added(after); !ok || !slices.Equal(names(got), []string{"b"}) {
		t.Errorf("Added after the Remove = %v, %v; want [b], true", names(got), ok)
	}
}
