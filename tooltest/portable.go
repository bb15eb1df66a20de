package tooltest

import (
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// Portable checks every tool of every scope of reg, enabled or not, under
// each dialect (every predefined one when none is given), the tools of the
// registry counting as one request. It fails the test with one t.Errorf per
// error and logs every fold and every warning with t.Logf; each line names
// the dialect, the tool and the schema path.
func Portable(t testing.TB, reg *tool.Registry, dialects ...*dialect.Dialect) {
	t.Helper()
	report(t, tool.LintRegistry(reg, dialects...))
}

// PortableTools is Portable for tools outside a registry, sent together in
// one request. A nil or empty dialects checks every predefined dialect.
func PortableTools(t testing.TB, dialects []*dialect.Dialect, tools ...tool.Interface) {
	t.Helper()
	if len(dialects) == 0 {
		dialects = dialect.Dialects()
	}
	var problems []dialect.Problem
	for _, d := range dialects {
		problems = append(problems, tool.Lint(d, tools...)...)
	}
	report(t, problems)
}

func report(t testing.TB, problems []dialect.Problem) {
	t.Helper()
	for _, p := range problems {
		if p.Severity != dialect.SeverityError {
			t.Logf("%s", p)
			continue
		}
		t.Errorf("%s", p)
	}
}
