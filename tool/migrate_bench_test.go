package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hands-go/hands/tool"
)

// BenchmarkMigrate runs calls of the forecast tool at version 3: a call of
// the current version on a tool without migrations and on one with two
// (which must cost the same: migrations run only after the current input
// refuses), and calls made against versions 2 and 1, upgraded through one
// and two steps.
//
//	go test ./tool -run '^$' -bench Migrate -count 6 > out.txt
//	benchstat out.txt
func BenchmarkMigrate(b *testing.B) {
	run := func(ctx context.Context, a forecastV3) (string, error) { return a.City, nil }
	plain := tool.New("forecast", "Forecast the weather.", run, tool.WithVersion("3"))
	chained := tool.New("forecast", "Forecast the weather.", run, tool.WithVersion("3"),
		tool.Migrate("1", func(old forecastV1) (forecastV2, error) { return forecastV2{City: old.Town}, nil }),
		tool.Migrate("2", func(old forecastV2) (forecastV3, error) { return forecastV3{City: old.City, Days: 1}, nil }))
	for _, bb := range []struct {
		name string
		tool tool.Interface
		args string
		from string // the version the call is made against, when migrated
	}{
		{"current/no-migrations", plain, `{"city":"Oslo","days":3}`, ""},
		{"current/two-migrations", chained, `{"city":"Oslo","days":3}`, ""},
		{"from-2/one-step", chained, `{"city":"Oslo"}`, "2"},
		{"from-1/two-steps", chained, `{"town":"Oslo"}`, "1"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			call := tool.Call{ID: "1", Name: "forecast", Args: json.RawMessage(bb.args)}
			res := tool.Run(b.Context(), bb.tool, call)
			if res.IsError || (bb.from != "") != (len(res.Repairs) == 1) {
				b.Fatal(fmt.Sprint(res.Content, res.Repairs))
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.args)))
			for b.Loop() {
				tool.Run(b.Context(), bb.tool, call)
			}
		})
	}
}
