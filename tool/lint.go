package tool

import "github.com/hands-go/hands/dialect"

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
// dialects, it lints under every predefined one (dialect.Dialects).
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
	for _, d := range dialects {
		problems = append(problems, Lint(d, tools...)...)
	}
	return problems
}
