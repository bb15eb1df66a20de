package provider_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// TestCheckToolsExamples checks that CheckTools holds a tool's examples to
// the dialect, as its schema: a dialect that cannot take them refuses the
// tool, and one that folds them does not.
func TestCheckToolsExamples(t *testing.T) {
	type args struct {
		City string `json:"city"`
	}
	run := func(context.Context, args) (string, error) { return "", nil }
	plain := tool.New("weather", "Report the weather.", run)
	withExamples := tool.New("weather", "Report the weather.", run, tool.WithExamples(args{City: "Oslo"}))
	refusing := dialect.OpenAIStrict()
	refusing.Examples = dialect.Reject

	if err := provider.CheckTools(refusing, []tool.Spec{plain.Spec()}); err != nil {
		t.Errorf("CheckTools of a tool without examples = %v, want nil", err)
	}
	err := provider.CheckTools(refusing, []tool.Spec{withExamples.Spec()})
	if p, ok := errors.AsType[dialect.Problem](err); !errors.Is(err, dialect.ErrRejected) || !ok || p.Keyword != "examples" {
		t.Errorf("CheckTools of a tool with examples the dialect refuses = %v, want the problem of its examples", err)
	}
	if err := provider.CheckTools(dialect.OpenAIStrict(), []tool.Spec{withExamples.Spec()}); err != nil {
		t.Errorf("CheckTools of a tool with examples the dialect folds = %v, want nil", err)
	}
}
