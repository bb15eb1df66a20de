package agent

import (
	"context"
	"iter"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
)

// changingTool is a deferred tool whose description changes; when
// versioned, it says so through SpecVersion.
type changingTool struct {
	name, description string
	version           uint64
}

func (c *changingTool) Name() string { return c.name }
func (c *changingTool) Spec() tool.Spec {
	return tool.Spec{Name: c.name, Description: c.description, DeferLoading: true}
}
func (c *changingTool) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	return func(yield func(tool.Event) bool) { yield(tool.Event{Result: &tool.Result{Content: "ok"}}) }
}

// versionedTool is a changingTool that says when its spec changes.
type versionedTool struct{ *changingTool }

func (v versionedTool) SpecVersion() uint64 { return v.version }

// TestSearchIndexFollowsRegistry changes a registry the portable search
// has indexed — tools added, a spec changed with and without a version
// saying so, a tool removed — and checks after each change that the index
// holds what a rebuild would, search for search, score for score; and that
// it was rebuilt only after the removal.
func TestSearchIndexFollowsRegistry(t *testing.T) {
	handler := func(context.Context, struct {
		City string `json:"city" jsonschema:"the city"`
	}) (string, error) {
		return "", nil
	}
	versioned := versionedTool{&changingTool{name: "get_tides", description: "Get the tides of a harbour.", version: 1}}
	plain := &changingTool{name: "get_pollen", description: "Get the pollen count of a city."}
	gone := tool.New("get_air_quality", "Get the air quality index of a city.", handler)
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{
			tool.New("take_note", "Write a note about a city.", handler),
			tool.New("send_email", "Send an email about a city.", handler, tool.WithDeferLoading()),
			versioned, plain,
		}},
		&tool.Scope{Name: "weather", DeferLoading: true, Tools: []tool.Interface{
			tool.New("get_forecast", "Get the weather forecast of a city.", handler), gone,
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	x := &searchIndex{}
	check := func(step string, rebuilt bool) {
		t.Helper()
		before := x.idx
		x.sync(reg)
		if (x.idx != before) != rebuilt {
			t.Errorf("%s: rebuilt = %v, want %v", step, x.idx != before, rebuilt)
		}
		fresh := &searchIndex{}
		fresh.sync(reg)
		if x.idx.Len() != fresh.idx.Len() || !maps.Equal(x.descriptions, fresh.descriptions) {
			t.Errorf("%s: the index holds %d tools %v, a rebuild %d %v", step, x.idx.Len(), x.descriptions, fresh.idx.Len(), fresh.descriptions)
		}
		var queries []string
		for _, d := range fresh.descriptions {
			queries = append(queries, strings.Fields(d)...)
		}
		queries = append(queries, "city weather", "harbour tides", "pollen count of a city")
		for _, q := range queries {
			if got, want := x.idx.Search(q, 100, nil), fresh.idx.Search(q, 100, nil); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Search(%q) = %v, a rebuild's %v", step, q, got, want)
			}
		}
		if got, want := search(context.Background(), reg, searchArgs{Query: "city", Limit: MaxSearchLimit}), fresh.answer(reg, "city"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the portable search answers %v, a rebuild %v", step, got, want)
		}
	}
	check("first", true)
	check("unchanged", false)

	if err := reg.Add(&tool.Scope{Name: "sea", DeferLoading: true, Tools: []tool.Interface{
		tool.New("get_waves", "Get the wave height off a city's coast.", handler),
		tool.New("get_sea_temperature", "Get the sea temperature off a city.", handler),
	}}); err != nil {
		t.Fatal(err)
	}
	check("added", false)

	versioned.description, versioned.version = "Get the tides and the currents of a harbour city.", 2
	check("versioned spec changed", false)
	plain.description = "Get the pollen and the dust of a city."
	check("unversioned spec changed", false)

	if reg.Remove(gone) != 1 {
		t.Fatal("Remove did not remove get_air_quality")
	}
	check("removed", true)
	if _, ok := x.descriptions["get_air_quality"]; ok {
		t.Error("the index still holds the removed tool")
	}
}

// answer is what search answers for query over fresh, every tool enabled.
func (x *searchIndex) answer(reg *tool.Registry, query string) searchOutput {
	out := searchOutput{Tools: []foundTool{}, Note: noneNote}
	for _, m := range x.idx.Search(query, MaxSearchLimit, nil) {
		out.Tools = append(out.Tools, foundTool{Name: m.Name, Description: x.descriptions[m.Name]})
	}
	if len(out.Tools) > 0 {
		out.Note = loadedNote
	}
	return out
}
