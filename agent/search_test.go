package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

type secretKey struct{}

// deferredRegistry returns a registry with one loaded tool, a deferred
// tool, a deferred scope of two weather tools, and a deferred tool that is
// enabled only when the context says so; ran counts the calls that ran,
// by tool.
func deferredRegistry(t *testing.T) (*tool.Registry, map[string]int) {
	t.Helper()
	ran := map[string]int{}
	handler := func(name string) func(context.Context, cityArgs) (string, error) {
		return func(_ context.Context, a cityArgs) (string, error) {
			ran[name]++
			return name + " for " + a.City, nil
		}
	}
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{
			tool.New("take_note", "Write a note about a city.", handler("take_note")),
			tool.New("send_email", "Send an email about a city to a person.", handler("send_email"), tool.WithDeferLoading()),
			tool.New("secret_report", "Report the secret weather station readings of a city.", handler("secret_report"), tool.WithDeferLoading(),
				tool.WithEnabled(func(ctx context.Context) bool { return ctx.Value(secretKey{}) != nil })),
		}},
		&tool.Scope{Name: "weather", DeferLoading: true, Tools: []tool.Interface{
			tool.New("get_forecast", "Get the weather forecast of a city for the next days.", handler("get_forecast")),
			tool.New("get_air_quality", "Get the air quality index of a city.", handler("get_air_quality")),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg, ran
}

// names returns the names of specs.
func names(specs []tool.Spec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// encoded returns each spec as JSON, as an adapter starts from them.
func encoded(t *testing.T, specs []tool.Spec) [][]byte {
	t.Helper()
	out := make([][]byte, len(specs))
	for i, s := range specs {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestPortableSearch runs a model without a search of its own over a
// registry that defers tools: the first request has the loaded tool and
// search_tools and none deferred; the search's answer loads the weather
// forecast, which the next request appends after the tools sent before,
// byte for byte the same; the loaded tool is called as any other; the
// history records the load, and decoded from JSON it builds the same
// request again.
func TestPortableSearch(t *testing.T) {
	reg, ran := deferredRegistry(t)
	model := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("s1", agent.SearchToolName, `{"query":"weather forecast","limit":1}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "get_forecast", `{"city":"Oslo"}`)}},
		agent.Response{Text: "Rain in Oslo."},
	)
	history, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Weather in Oslo?")}, nil)
	if err != nil {
		t.Fatalf("Run: %v\n%v", err, history)
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if got, want := names(reqs[0].Tools), []string{"take_note", agent.SearchToolName}; !slices.Equal(got, want) {
		t.Errorf("first request's tools = %v, want %v", got, want)
	}
	if got, want := names(reqs[1].Tools), []string{"take_note", agent.SearchToolName, "get_forecast"}; !slices.Equal(got, want) {
		t.Errorf("second request's tools = %v, want %v", got, want)
	}
	for i, r := range reqs {
		for _, s := range r.Tools {
			if s.DeferLoading || s.Namespace != "" {
				t.Errorf("request %d sends %s with DeferLoading %v and Namespace %q, which a model without search cannot take", i+1, s.Name, s.DeferLoading, s.Namespace)
			}
		}
	}
	// The prompt cache holds while the tools sent before stay the same
	// bytes, in the same places.
	first, second := encoded(t, reqs[0].Tools), encoded(t, reqs[1].Tools)
	for i := range first {
		if !bytes.Equal(first[i], second[i]) {
			t.Errorf("tool %d changed between turns:\n%s\n%s", i, first[i], second[i])
		}
	}
	if ran["get_forecast"] != 1 {
		t.Errorf("get_forecast ran %d times, want 1", ran["get_forecast"])
	}
	search := history[2]
	if search.Role != agent.RoleTool || search.Name != agent.SearchToolName || !slices.Equal(search.Loaded, []string{"get_forecast"}) {
		t.Fatalf("the search's tool message is %+v, want one that loaded get_forecast", search)
	}
	if !strings.Contains(search.Text, `"name":"get_forecast"`) || !strings.Contains(search.Text, "weather forecast") {
		t.Errorf("the search's answer reads %s, want get_forecast and its description", search.Text)
	}

	// A history saved as JSON and decoded builds the same tools.
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var decoded agent.History
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	again := agent.NewRequest(context.Background(), reg, "", decoded[:len(decoded)-1])
	if got, want := encoded(t, again.Tools), encoded(t, reqs[2].Tools); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("the decoded history builds the tools %v, want %v as the run sent", names(again.Tools), names(reqs[2].Tools))
	}
}

// TestPortableSearchNeverRevealsDisabled checks that a deferred tool
// disabled for the caller is neither found by the search nor sent, even
// when a history says it was loaded; once enabled, it is found.
func TestPortableSearchNeverRevealsDisabled(t *testing.T) {
	reg, _ := deferredRegistry(t)
	query := `{"query":"secret weather station readings"}`
	run := func(ctx context.Context) agent.History {
		model := agenttest.NewScript(
			agent.Response{Calls: []agent.ToolCall{agenttest.Call("s1", agent.SearchToolName, query)}},
			agent.Response{Text: "done"},
		)
		history, err := agent.Run(ctx, model, reg, agent.History{agent.UserText("Secret readings?")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return history
	}
	history := run(context.Background())
	if slices.Contains(history[2].Loaded, "secret_report") || strings.Contains(history[2].Text, "secret_report") {
		t.Errorf("a search of a caller who cannot call secret_report reveals it: %s", history[2].Text)
	}
	forged := append(slices.Clone(history[:2]), agent.Message{Role: agent.RoleTool, CallID: "s1", Name: agent.SearchToolName, Loaded: []string{"secret_report", "send_email"}})
	req := agent.NewRequest(context.Background(), reg, "", forged)
	if got := names(req.Tools); slices.Contains(got, "secret_report") || !slices.Contains(got, "send_email") {
		t.Errorf("a history that loaded secret_report and send_email sends %v to a caller who cannot call secret_report", got)
	}

	allowed := context.WithValue(context.Background(), secretKey{}, true)
	history = run(allowed)
	if !slices.Contains(history[2].Loaded, "secret_report") {
		t.Errorf("a search of a caller who can call secret_report does not find it: %s", history[2].Text)
	}
}

// nativeModel is a script whose provider searches tools itself.
type nativeModel struct{ *agenttest.Script }

func (nativeModel) SearchesTools() bool { return true }

// TestNativeSearch checks that a model that searches tools itself gets
// every enabled tool, the deferred ones flagged and a deferred scope's
// tools with its name, and no search_tools; a call to a deferred tool runs
// as any call.
func TestNativeSearch(t *testing.T) {
	reg, ran := deferredRegistry(t)
	model := nativeModel{agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "get_air_quality", `{"city":"Oslo"}`)}},
		agent.Response{Text: "Clean air."},
	)}
	if _, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Air in Oslo?")}, nil); err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[0]
	if got, want := names(req.Tools), []string{"take_note", "send_email", "get_forecast", "get_air_quality"}; !slices.Equal(got, want) {
		t.Fatalf("the tools sent are %v, want %v", got, want)
	}
	for _, s := range req.Tools {
		wantNS := map[string]string{"get_forecast": "weather", "get_air_quality": "weather"}[s.Name]
		if s.DeferLoading != (s.Name != "take_note") || s.Namespace != wantNS {
			t.Errorf("%s is sent with DeferLoading %v and Namespace %q", s.Name, s.DeferLoading, s.Namespace)
		}
	}
	if ran["get_air_quality"] != 1 {
		t.Errorf("get_air_quality ran %d times, want 1", ran["get_air_quality"])
	}
	if got := agent.NewRequestFor(context.Background(), model, reg, "", nil); !slices.Equal(names(got.Tools), names(req.Tools)) {
		t.Errorf("NewRequestFor sends %v, want %v as Run did", names(got.Tools), names(req.Tools))
	}
}

// TestRunRefusesNothingLoaded checks that Run does not start on a
// registry whose every tool is deferred, nor on one that has its own
// search_tools while the loop needs the name.
func TestRunRefusesNothingLoaded(t *testing.T) {
	handler := func(context.Context, cityArgs) (string, error) { return "", nil }
	allDeferred, err := tool.NewRegistry(&tool.Scope{Name: "later", DeferLoading: true, Tools: []tool.Interface{
		tool.New("get_forecast", "Get the forecast.", handler),
	}})
	if err != nil {
		t.Fatal(err)
	}
	taken, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{
		tool.New(agent.SearchToolName, "A tool of the caller's own.", handler),
		tool.New("get_forecast", "Get the forecast.", handler, tool.WithDeferLoading()),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		model agent.Model
		reg   *tool.Registry
		want  error
	}{
		{name: "nothing loaded", model: agenttest.NewScript(), reg: allDeferred, want: tool.ErrNothingLoaded},
		{name: "nothing loaded, native", model: nativeModel{agenttest.NewScript()}, reg: allDeferred, want: tool.ErrNothingLoaded},
		{name: "search_tools taken", model: agenttest.NewScript(), reg: taken, want: agent.ErrSearchToolName},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agent.Run(context.Background(), tt.model, tt.reg, agent.History{agent.UserText("hi")}, nil)
			if !errors.Is(err, tt.want) {
				t.Errorf("Run = %v, want an error matching %v", err, tt.want)
			}
		})
	}
	// A model that searches itself needs no search_tools: the name is free.
	model := nativeModel{agenttest.NewScript(agent.Response{Text: "ok"})}
	if _, err := agent.Run(context.Background(), model, taken, agent.History{agent.UserText("hi")}, nil); err != nil {
		t.Errorf("Run with a model that searches itself = %v, want nil", err)
	}
}

// TestKeepResultsKeepsLoadedTools checks that clearing an old search's
// result from the context (Options.KeepResults) keeps the tools it loaded:
// the later requests still send them, and a history saved after the
// clearing builds them again.
func TestKeepResultsKeepsLoadedTools(t *testing.T) {
	reg, _ := deferredRegistry(t)
	model := agenttest.NewScript(
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("s1", agent.SearchToolName, `{"query":"weather forecast","limit":1}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("n1", "take_note", `{"city":"Oslo"}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("n2", "take_note", `{"city":"Lima"}`)}},
		agent.Response{Calls: []agent.ToolCall{agenttest.Call("c1", "get_forecast", `{"city":"Oslo"}`)}},
		agent.Response{Text: "Rain in Oslo."},
	)
	history, err := agent.Run(context.Background(), model, reg, agent.History{agent.UserText("Weather in Oslo?")}, &agent.Options{KeepResults: 1})
	if err != nil {
		t.Fatalf("Run: %v\n%v", err, history)
	}
	reqs := model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("the model got %d requests, want 5", len(reqs))
	}
	search := reqs[4].Messages[2]
	if search.Name != agent.SearchToolName || !search.Cleared {
		t.Fatalf("the last request's search result is %+v, want it cleared", search)
	}
	for i, r := range reqs[1:] {
		if !slices.Contains(names(r.Tools), "get_forecast") {
			t.Errorf("request %d sends %v: the tool the search loaded is gone", i+2, names(r.Tools))
		}
	}
	for _, m := range history {
		if m.Name == agent.SearchToolName && !slices.Equal(m.Loaded, []string{"get_forecast"}) {
			t.Errorf("the cleared search's message loads %v, want [get_forecast]", m.Loaded)
		}
	}
}
