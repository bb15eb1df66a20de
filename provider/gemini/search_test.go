package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// declared returns the names of the function declarations of a request.
func declared(t *testing.T, body []byte) []string {
	t.Helper()
	var decls []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(providertest.At(t, body, "/tools/0/functionDeclarations")), &decls); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.Name
	}
	return names
}

// TestPortableSearch runs agent.Run with Gemini, which has no tool search
// of its own, over a registry that defers tools: the first request
// declares the loaded tool and search_tools; the model's search loads the
// forecast, whose declaration the next request appends after the others,
// which keep their bytes; the loaded tool's call runs. A deferred tool
// given to the adapter directly is refused, since Gemini cannot take it.
func TestPortableSearch(t *testing.T) {
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, "testdata/search_call.response.json"),
		replay.Load(t, "testdata/search_loaded_call.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	m := newModel(t, srv, gemini.Options{})
	ran := 0
	handler := func(_ context.Context, a cityArgs) (string, error) { ran++; return "rain in " + a.City, nil }
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{tool.New("take_note", "Write a note about a city.", handler)}},
		&tool.Scope{Name: "weather", DeferLoading: true, Tools: []tool.Interface{
			tool.New("get_forecast", "Get the weather forecast of a city.", handler),
			tool.New("get_air_quality", "Get the air quality index of a city.", handler),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	history, err := agent.Run(t.Context(), m, reg, agent.History{agent.UserText("Weather in Oslo?")}, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the server got %d requests, want 3", len(reqs))
	}
	if got, want := declared(t, reqs[0].Body), []string{"take_note", agent.SearchToolName}; !slices.Equal(got, want) {
		t.Errorf("first request declares %v, want %v", got, want)
	}
	if got, want := declared(t, reqs[1].Body), []string{"take_note", agent.SearchToolName, "get_forecast"}; !slices.Equal(got, want) {
		t.Errorf("second request declares %v, want %v", got, want)
	}
	for i := range 2 {
		ptr := "/tools/0/functionDeclarations/" + string(rune('0'+i))
		if g, w := providertest.At(t, reqs[1].Body, ptr), providertest.At(t, reqs[0].Body, ptr); g != w {
			t.Errorf("declaration %d changed between turns: %s, was %s", i, g, w)
		}
	}
	if ran != 1 {
		t.Errorf("the loaded tool ran %d times, want 1", ran)
	}
	if !slices.Contains(history[2].Loaded, "get_forecast") {
		t.Errorf("the search's tool message loaded %v, want get_forecast", history[2].Loaded)
	}

	spec := reg.Specs(t.Context())[1]
	_, err = m.Generate(t.Context(), &agent.Request{Messages: history[:1], Tools: []tool.Spec{spec}})
	if !errors.Is(err, dialect.ErrRejected) {
		t.Errorf("Generate of a deferred tool = %v, want a rejection", err)
	}
}
