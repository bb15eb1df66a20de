package tooltest

import (
	"strconv"
	"testing"

	"github.com/hands-go/hands/tool"
)

// Examples runs every example of each tool (tool.WithExamples,
// tool.WithExamplesJSON) as a call from a model, through tool.Run: the
// repairs, the validation, the decoding, the handler and the encoding of
// its output. Each call whose result is an error (the handler's own, a
// panic, a timeout) fails the test with one t.Errorf that names the tool,
// the example's index and its JSON, with what the model would have read.
// A tool without examples is logged; given none with any, Examples fails
// the test, which would otherwise check nothing.
//
// The handlers really run, so give Examples tools whose handlers a test
// may run: over fakes or test resources, as for any call in a test. The
// calls run with t.Context(), one after the other, in the order of the
// tools and of their examples.
func Examples(t testing.TB, tools ...tool.Interface) {
	t.Helper()
	ran := false
	for _, tl := range tools {
		spec := tl.Spec()
		if len(spec.Examples) == 0 {
			t.Logf("tool %s has no examples", tl.Name())
			continue
		}
		ran = true
		for i, ex := range spec.Examples {
			call := tool.Call{ID: "example-" + strconv.Itoa(i), Name: tl.Name(), Args: ex}
			if res := tool.Run(t.Context(), tl, call); res.IsError {
				t.Errorf("tool %s: example %d, %s: the call failed: %s", tl.Name(), i, ex, res.Content)
			}
		}
	}
	if !ran {
		t.Errorf("tooltest.Examples: none of the %d tools has examples to run", len(tools))
	}
}
