package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hands-go/hands/tool"
)

// A tool at version 3 keeps the calls of versions 1 and 2 working: town
// became city in version 2, and days became required in version 3. A call
// made against version 1 goes through both migrations, and its result
// records the version it was made against. A call that fits no version
// fails against the current one, which is what the model should fix.
func ExampleMigrate() {
	type ForecastV1 struct {
		Town string `json:"town"`
	}
	type ForecastV2 struct {
		City string `json:"city" tool:"minLength=1"`
	}
	type ForecastV3 struct {
		City string `json:"city" tool:"minLength=1"`
		Days int    `json:"days" tool:"minimum=1,maximum=7"`
	}
	forecast := tool.New("forecast", "Forecast the weather.",
		func(ctx context.Context, a ForecastV3) (string, error) {
			return fmt.Sprintf("%s: sunny for %d day(s)", a.City, a.Days), nil
		},
		tool.WithVersion("3"),
		tool.Migrate("1", func(old ForecastV1) (ForecastV2, error) { return ForecastV2{City: old.Town}, nil }),
		tool.Migrate("2", func(old ForecastV2) (ForecastV3, error) { return ForecastV3{City: old.City, Days: 1}, nil }))

	ctx := context.Background()
	for _, args := range []string{`{"city":"Oslo","days":3}`, `{"city":"Bergen"}`, `{"town":"Tromsø"}`, `{"town":""}`} {
		res := tool.Run(ctx, forecast, tool.Call{Name: "forecast", Args: json.RawMessage(args)})
		switch {
		case res.IsError:
			fmt.Printf("%s: %s\n", args, res.Content)
		case len(res.Repairs) > 0:
			fmt.Printf("%s: %s (made against version %s, ran as %s)\n", args, res.Content, res.Repairs[0].Version, res.Version)
		default:
			fmt.Printf("%s: %s (ran as %s)\n", args, res.Content, res.Version)
		}
	}
	fmt.Println(forecast.Spec().MigratesFrom)
	// Output:
	// {"city":"Oslo","days":3}: Oslo: sunny for 3 day(s) (ran as 3)
	// {"city":"Bergen"}: Bergen: sunny for 1 day(s) (made against version 2, ran as 3)
	// {"town":"Tromsø"}: Tromsø: sunny for 1 day(s) (made against version 1, ran as 3)
	// {"town":""}: The arguments for forecast are invalid:
	// - (root): unknown property "town"; the properties are "city", "days"
	// - (root): missing required property "city" (a string)
	// - (root): missing required property "days" (an integer)
	// Fix these and call forecast again.
	// [2 1]
}
