package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hands-go/hands/tool"
)

func Example() {
	type Args struct {
		City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
		Days int    `json:"days,omitempty" jsonschema:"days ahead" tool:"minimum=1,maximum=7,default=1"`
	}
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a Args) (string, error) {
			return fmt.Sprintf("%s: sunny for %d day(s)", a.City, a.Days), nil
		})

	ctx := context.Background()
	ok := tool.Run(ctx, weather, tool.Call{Name: "weather", Args: json.RawMessage(`{"city":"Oslo"}`)})
	fmt.Println(ok.Content)
	bad := tool.Run(ctx, weather, tool.Call{Name: "weather", Args: json.RawMessage(`{"city":"","days":9}`)})
	fmt.Println(bad.Content)
	// Output:
	// Oslo: sunny for 1 day(s)
	// The arguments for weather are invalid:
	// - /city: must be at least 1 character, got 0
	// - /days: must be at most 7, got 9
	// Fix these and call weather again.
}
