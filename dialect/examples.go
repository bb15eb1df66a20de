package dialect

import (
	"encoding/json"
	"fmt"
	"strings"
)

// examplesAction returns what the dialect does with a tool's examples:
// Examples, or Keep for a dialect without a keyword table that leaves it
// unset.
func (d *Dialect) examplesAction() Action {
	if d.Examples == Reject && d.Keywords == nil {
		return Keep
	}
	return d.Examples
}

// The text that introduces the examples Fold writes into a description.
const (
	exampleHeading  = "Example call (the arguments as JSON):"
	examplesHeading = "Example calls (the arguments as JSON, one a line):"
)

// ConvertExamples returns what a tool's description and examples (whole
// arguments of calls, such as tool.Spec.Examples) become under the
// dialect, with the problems met, each with Tool set to toolName and the
// Keyword "examples":
//
//   - Keep: the description and the examples as they are, to be sent in
//     the provider's own place for them, and no problem.
//   - Fold: the description followed by the examples, one a line, after a
//     line that says what they are; no examples; and a SeverityFolded
//     problem. At most MaxFoldedExamples bytes of examples are written (a
//     bound of zero writes them all): the first examples, in order, that
//     fit; the problem says how many were left out, and when none fits it
//     is a SeverityWarning instead.
//   - Drop: the description alone, and no problem.
//   - Reject: the description alone and a SeverityError problem, so that
//     Check refuses the tool.
//
// Without examples, it returns the description and no examples, whatever
// the action.
func (d *Dialect) ConvertExamples(toolName, description string, examples []json.RawMessage) (string, []json.RawMessage, []Problem) {
	if len(examples) == 0 {
		return description, nil, nil
	}
	problem := func(sev Severity, fix, format string, args ...any) []Problem {
		return []Problem{{Dialect: d.Name, Tool: toolName, Keyword: "examples", Severity: sev, Message: fmt.Sprintf(format, args...), Fix: fix}}
	}
	switch d.examplesAction() {
	case Keep:
		return description, examples, nil
	case Drop:
		return description, nil, nil
	case Fold:
	default:
		return description, nil, problem(SeverityError, fixExamples, "%s takes no examples of calls; they are left out", d.provider())
	}
	n, size := 0, 0
	for _, ex := range examples {
		if d.MaxFoldedExamples > 0 && size+len(ex) > d.MaxFoldedExamples {
			break
		}
		n++
		size += len(ex)
	}
	if n == 0 {
		return description, nil, problem(SeverityWarning, "", "the examples are left out: %s carries them only in the description, which takes at most %d bytes of them, and the first is %d bytes", d.provider(), d.MaxFoldedExamples, len(examples[0]))
	}
	var b strings.Builder
	b.WriteString(description)
	if description != "" {
		b.WriteString("\n\n")
	}
	if n == 1 {
		b.WriteString(exampleHeading)
	} else {
		b.WriteString(examplesHeading)
	}
	for _, ex := range examples[:n] {
		b.WriteByte('\n')
		b.Write(ex)
	}
	if n < len(examples) {
		return b.String(), nil, problem(SeverityFolded, "", "%s carries no examples; the description shows the first %d of %d, and the other %d would pass its bound of %d bytes of examples", d.provider(), n, len(examples), len(examples)-n, d.MaxFoldedExamples)
	}
	return b.String(), nil, problem(SeverityFolded, "", "%s carries no examples; the description shows %s instead", d.provider(), countNoun(n, "the example", "the %d examples"))
}

// countNoun returns one when n is 1, and many with n otherwise.
func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, n)
}
