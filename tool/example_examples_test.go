package tool_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hands-go/hands/tool"
)

// A tool with examples: each is checked when the tool is defined, by the
// validator every call goes through, and reaches the model in the spec.
func ExampleWithExamples() {
	type Forecast struct {
		City string `json:"city" jsonschema:"the city's name" tool:"minLength=1"`
		Days int    `json:"days,omitempty" jsonschema:"how many days ahead" tool:"minimum=1,maximum=7,default=1"`
	}
	forecast := func(ctx context.Context, f Forecast) (string, error) {
		return fmt.Sprintf("%d days of sun in %s", f.Days, f.City), nil
	}

	weather := tool.New("forecast", "Forecast the weather in a city.", forecast,
		tool.WithExamples(Forecast{City: "Oslo"}, Forecast{City: "Lima", Days: 3}))
	for _, ex := range weather.Spec().Examples {
		fmt.Println(string(ex))
	}

	_, err := tool.Define("forecast", "Forecast the weather in a city.", forecast,
		tool.WithExamples(Forecast{City: "Oslo", Days: 10}))
	if eerr, ok := errors.AsType[*tool.ExampleError](err); ok {
		fmt.Println(eerr.Index, eerr.Issues[0])
	}
	// Output:
	// {"city":"Oslo"}
	// {"city":"Lima","days":3}
	// 0 /days: must be at most 7, got 10
}
