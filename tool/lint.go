package tool

import (
	"errors"
	"fmt"

	"github.com/hands-go/hands/dialect"
)

// Lint returns the problems of tools under dialect d, as if they were sent
// together in one request: each tool's name and input schema, as
// dialect.Dialect.Lint reports them, and its examples, as
// dialect.Dialect.ConvertExamples reports them, then the limits of the
// request as a whole (dialect.Dialect.LintTools). Errors are what the
// provider would reject or what the dialect cannot express; folds are
// constraints and examples that reach the model only through a
// description.
func Lint(d *dialect.Dialect, tools ...Interface) []dialect.Problem {
	specs := make([]dialect.ToolSchema, len(tools))
	for i, t := range tools {
		spec := t.Spec()
		specs[i] = dialect.ToolSchema{Name: spec.Name, Schema: spec.InputSchema, Examples: spec.Examples}
	}
	return d.LintTools(specs...)
}

// LintRegistry lints every tool of every scope of r under each dialect,
// enabled or not: a predicate may enable any of them on some turn. The
// tools of the registry count as one request per dialect. With no
// dialects, it lints under every predefined one (dialect.Dialects). A
// registry whose every tool is deferred (see CheckLoaded) is reported once,
// as an error with the Keyword "tools" and no Dialect.
func LintRegistry(r *Registry, dialects ...*dialect.Dialect) []dialect.Problem {
	if len(dialects) == 0 {
		dialects = dialect.Dialects()
	}
	var tools []Interface
	if r != nil {
		for _, s := range r.Scopes() {
			tools = append(tools, s.Tools...)
		}
	}
	var problems []dialect.Problem
	if err := CheckLoaded(r); err != nil {
		problems = append(problems, dialect.Problem{Keyword: "tools", Severity: dialect.SeverityError, Message: err.Error(), Fix: fixNothingLoaded})
	}
	for _, d := range dialects {
		problems = append(problems, Lint(d, tools...)...)
	}
	return problems
}

// ErrNothingLoaded is matched by the error of CheckLoaded.
var ErrNothingLoaded = errors.New("tool: every tool is deferred, and none is left loaded")

// fixNothingLoaded is what to do about a registry with nothing loaded.
const fixNothingLoaded = "leave at least one tool the model uses on most turns without WithDeferLoading, in a scope without DeferLoading"

// CheckLoaded reports an error matching ErrNothingLoaded when r has tools
// and every one of them is deferred (WithDeferLoading, Scope.DeferLoading),
// enabled or not: a model would start with nothing but a search for tools,
// which the providers refuse (Anthropic's tool search wants at least one
// tool loaded) or which costs a turn before any work. agent.Run refuses to
// start on such a registry. A registry without tools has nothing to defer
// and passes.
func CheckLoaded(r *Registry) error {
	if r == nil {
		return nil
	}
	n := 0
	for _, s := range r.Scopes() {
		for _, t := range s.Tools {
			if !s.DeferLoading && !t.Spec().DeferLoading {
				return nil
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%w: all %d tools are deferred; %s", ErrNothingLoaded, n, fixNothingLoaded)
}
