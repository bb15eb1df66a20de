package tool_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hands-go/hands/tool"
)

func TestWithTaskSupport(t *testing.T) {
	type in struct{}
	handler := func(context.Context, in) (string, error) { return "ok", nil }
	for _, ts := range []tool.TaskSupport{tool.TaskForbidden, tool.TaskOptional, tool.TaskRequired} {
		tl, err := tool.Define("slow", "Takes a while.", handler, tool.WithTaskSupport(ts))
		if err != nil {
			t.Fatalf("WithTaskSupport(%q): %v", ts, err)
		}
		if got := tl.Spec().TaskSupport; got != ts {
			t.Errorf("WithTaskSupport(%q): Spec().TaskSupport = %q", ts, got)
		}
	}
	_, err := tool.Define("slow", "Takes a while.", handler, tool.WithTaskSupport("sometimes"))
	if _, ok := errors.AsType[*tool.DefinitionError](err); !ok {
		t.Errorf("WithTaskSupport(\"sometimes\"): err = %v, want a *tool.DefinitionError", err)
	}
}
