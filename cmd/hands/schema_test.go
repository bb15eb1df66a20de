package main

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// TestDeclarationsExamples checks that schema prints a tool's examples as
// each dialect's provider gets them, through the dialect's
// ConvertExamples as the adapters call it: MCP in the input schema's root
// "examples", Anthropic as input_examples, each as the tool wrote it, and
// the others at the end of the description, with the problem that says
// so.
func TestDeclarationsExamples(t *testing.T) {
	type forecastArgs struct {
		City string `json:"city" jsonschema:"the city's name"`
		Days int    `json:"days,omitempty" jsonschema:"days ahead"`
	}
	spec := tool.New("get_forecast", "Forecast the weather in a city.",
		func(context.Context, forecastArgs) (string, error) { return "", nil },
		tool.WithExamples(forecastArgs{City: "Paris"}, forecastArgs{City: "Lima", Days: 3})).Spec()
	examples := []string{`{"city":"Paris"}`, `{"city":"Lima","days":3}`}
	for _, name := range dialectNames() {
		t.Run(name, func(t *testing.T) {
			d, _ := dialect.Named(name)
			list, problems := declarations([]tool.Spec{spec}, d)
			data, err := json.Marshal(list[0])
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Description   string            `json:"description"`
				InputExamples []json.RawMessage `json:"input_examples"`
				InputSchema   struct {
					Examples []json.RawMessage `json:"examples"`
				} `json:"inputSchema"`
				Parameters struct {
					Examples []json.RawMessage `json:"examples"`
				} `json:"parameters"`
				ParametersJSONSchema struct {
					Examples []json.RawMessage `json:"examples"`
				} `json:"parametersJsonSchema"`
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			description, kept, want := d.ConvertExamples(spec.Name, spec.Description, spec.Examples)
			if got.Description != description {
				t.Errorf("the description is %q, want %q", got.Description, description)
			}
			var carried []json.RawMessage
			switch name {
			case "mcp":
				carried = got.InputSchema.Examples
			case "anthropic", "anthropic-strict":
				carried = got.InputExamples
			}
			if len(kept) > 0 && !slices.Equal(texts(carried), examples) {
				t.Errorf("the examples went as %s, want %s", carried, examples)
			}
			if len(kept) == 0 {
				if got.Description == spec.Description {
					t.Errorf("the description %q shows no example, and the dialect keeps none", got.Description)
				}
				if n := len(got.InputExamples) + len(got.InputSchema.Examples) + len(got.Parameters.Examples) + len(got.ParametersJSONSchema.Examples); n > 0 {
					t.Errorf("%d examples went beside the description that shows them: %s", n, data)
				}
			}
			for _, w := range want {
				if !slices.Contains(problems, w) {
					t.Errorf("the problems are %v, want %v among them", problems, w)
				}
			}
		})
	}
}

// texts returns raw as strings.
func texts(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}
