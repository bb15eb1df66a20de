package tooltest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
)

func TestExamples(t *testing.T) {
	var ran []string
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			ran = append(ran, a.City)
			if a.City == "Atlantis" {
				return "", errors.New("no weather station in Atlantis")
			}
			return "sunny in " + a.City, nil
		},
		tool.WithExamples(weatherArgs{City: "Oslo"}, weatherArgs{City: "Atlantis", Days: 2}, weatherArgs{City: "Lima"}))
	plain := tool.New("tag", "Tag a document.", run[tagArgs])

	t.Run("a handler that fails an example", func(t *testing.T) {
		r := &recorder{TB: t}
		tooltest.Examples(r, plain, weather)
		if got := strings.Join(ran, ","); got != "Oslo,Atlantis,Lima" {
			t.Errorf("the handler ran for %s, want every example in order", got)
		}
		if len(r.errors) != 1 {
			t.Fatalf("Examples reported %q, want one failure, the example of Atlantis", r.errors)
		}
		for _, want := range []string{"weather", "example 1", `{"city":"Atlantis","days":2}`, "no weather station in Atlantis"} {
			if !strings.Contains(r.errors[0], want) {
				t.Errorf("the failure %q does not say %q", r.errors[0], want)
			}
		}
		if len(r.logs) != 1 || !strings.Contains(r.logs[0], "tag has no examples") {
			t.Errorf("Examples logged %q, want the tool without examples", r.logs)
		}
	})

	t.Run("every example passes", func(t *testing.T) {
		ok := tool.New("weather", "Report the weather for a city.", run[weatherArgs], tool.WithExamples(weatherArgs{City: "Oslo"}))
		tooltest.Examples(t, ok) // must not fail
	})

	t.Run("no examples at all", func(t *testing.T) {
		r := &recorder{TB: t}
		tooltest.Examples(r, plain)
		if len(r.errors) != 1 {
			t.Errorf("Examples of tools without examples reported %q, want one failure", r.errors)
		}
	})
}
