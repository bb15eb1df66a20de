package tool_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/tool"
)

// specer is what the golden test needs of a tool.
type specer interface{ Spec() tool.Spec }

func noop[In, Out any](context.Context, In) (Out, error) {
	var out Out
	return out, nil
}

// TestSpecsGolden keeps the specs of the example tools in testdata/; run
// go test ./tool -update to rewrite them.
func TestSpecsGolden(t *testing.T) {
	for _, tl := range []specer{
		tool.New("calculator", "Do arithmetic on two numbers.", noop[Calc, float64]),
		tool.New("fetch_data", "Fetch data from a URL.", noop[Fetch, string]),
		tool.New("create_user", "Create a user account.", noop[CreateUser, string]),
		tool.New("createNote", "Save a note.", noop[NewNote, Note]),
		tool.New("r2_host_file", "Upload from sandbox to R2 and get a public URL.", noop[HostFile, string]),
		// The calculator with examples: the same spec with the examples
		// beside the schema, which is unchanged.
		tool.New("calculate", "Do arithmetic on two numbers.", noop[Calc, float64],
			tool.WithExamples(Calc{Operation: "multiply", A: 6, B: 7}, Calc{Operation: "divide", A: 1, B: 4})),
	} {
		spec := tl.Spec()
		t.Run(spec.Name, func(t *testing.T) {
			got, err := json.MarshalIndent(spec, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", spec.Name+".json"), append(got, '\n'))
		})
	}
}
