package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/internal/replay"
	"github.com/hands-go/hands/tool"
)

type tempArgs struct {
	Location string `json:"location" jsonschema:"the city and state"`
	Unit     string `json:"unit,omitempty" jsonschema:"celsius or fahrenheit"`
}

// searchTurn returns the first turn of the recorded search: a loaded tool
// and the deferred get_temp_data.
func searchTurn() *agent.Request {
	handler := func(context.Context, tempArgs) (string, error) { return "", nil }
	clock := tool.New("get_time", "Get the local time in a city.", handler)
	temp := tool.New("get_temp_data", "Get the temperature of a location.", handler, tool.WithDeferLoading())
	return &agent.Request{
		Messages: []agent.Message{agent.UserText("What is the weather in San Francisco?")},
		Tools:    []tool.Spec{clock.Spec(), temp.Spec()},
	}
}

// TestRecordedToolSearch replays claude-sonnet-4-5's recorded turn with
// the regex tool search: the request flags the deferred tool and adds the
// search tool after the tools; the response's server_tool_use and
// tool_search_tool_result blocks, with its tool_reference, go into the
// message's state, which survives the history's JSON and goes back in the
// next request byte for byte as the API sent it, before the text and the
// call of the tool it loaded.
func TestRecordedToolSearch(t *testing.T) {
	body, err := os.ReadFile(recorded + "anthropic-tool-search-regex.1.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Response{Raw: body},
		replay.Load(t, "testdata/answer.response.json")))
	m := newModel(t, srv, anthropic.Options{})
	if !m.SearchesTools() {
		t.Fatal("SearchesTools = false by default, want true")
	}
	first := searchTurn()
	resp := providertest.Generate(t, m, first, &agent.Response{
		Text:         "I found a tool to get temperature data! Let me use it to get the weather information for San Francisco.",
		Calls:        []agent.ToolCall{{ID: "toolu_01X4r989CAhzqnFqDJn1gVvp", Name: "get_temp_data", Args: []byte(`{"location":"San Francisco, CA","unit":"fahrenheit"}`)}},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_use",
		Usage: agent.Usage{InputTokens: 1676, OutputTokens: 184},
		ID:    "msg_014rjTcNMwWRYQkjnCre2pi4", Model: "claude-sonnet-4-5-20250929",
	})

	sent := srv.Requests()[0].Body
	var tools []map[string]any
	if err := json.Unmarshal([]byte(providertest.At(t, sent, "/tools")), &tools); err != nil {
		t.Fatal(err)
	}
	if _, ok := tools[0]["defer_loading"]; ok || len(tools) != 3 {
		t.Errorf("the tools went as %v, want the loaded one without defer_loading, the deferred one, and the search tool", tools)
	}
	if got := providertest.At(t, sent, "/tools/1/defer_loading"); got != "true" {
		t.Errorf("the deferred tool went with defer_loading %s, want true", got)
	}
	if got, want := providertest.At(t, sent, "/tools/2"), `{"name":"tool_search_tool_regex","type":"tool_search_tool_regex_20251119"}`; got != want {
		t.Errorf("the search tool went as %s, want %s", got, want)
	}

	// The history goes through JSON, as a stored run's does.
	history := agent.History{first.Messages[0], {Role: agent.RoleAssistant, Text: resp.Text, Calls: resp.Calls, State: resp.State}}
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var decoded agent.History
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	second := *first
	second.Messages = append(decoded, agent.Message{Role: agent.RoleTool, CallID: resp.Calls[0].ID, Name: "get_temp_data", Text: "64°F"})
	if _, err := m.Generate(t.Context(), &second); err != nil {
		t.Fatal(err)
	}
	next := srv.Requests()[1].Body
	for i, ptr := range []string{"/content/0", "/content/1"} {
		if got, want := providertest.At(t, next, "/messages/1"+ptr), providertest.At(t, body, ptr); got != want {
			t.Errorf("search block %d went back as %s, want %s as the API sent it", i, got, want)
		}
	}
	if got := providertest.StringAt(t, next, "/messages/1/content/2/type"); got != "text" {
		t.Errorf("the block after the search's is %s, want the text", got)
	}
	if got := providertest.StringAt(t, next, "/messages/1/content/3/name"); got != "get_temp_data" {
		t.Errorf("the call after the search's blocks is of %s, want get_temp_data", got)
	}
}

// TestToolSearchOptions checks the request of a turn with a deferred tool
// under BM25 search and eager input streaming against its golden file,
// and that ToolSearchPortable makes the Model no searcher that refuses a
// deferred tool rather than send it without a search.
func TestToolSearchOptions(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/tool_calls.response.json")))
	m := newModel(t, srv, anthropic.Options{ToolSearch: anthropic.ToolSearchBM25, EagerInputStreaming: true})
	providertest.Generate(t, m, searchTurn(), twoCalls)
	golden.Check(t, "testdata/tool_search_bm25.request.json", srv.Requests()[0].Golden())

	portable := newModel(t, srv, anthropic.Options{ToolSearch: anthropic.ToolSearchPortable})
	if portable.SearchesTools() {
		t.Error("SearchesTools = true under ToolSearchPortable")
	}
	_, err := portable.Generate(t.Context(), searchTurn())
	p, ok := errors.AsType[dialect.Problem](err)
	if !errors.Is(err, dialect.ErrRejected) || !ok || p.Tool != "get_temp_data" || p.Keyword != "features" {
		t.Errorf("Generate of a deferred tool under ToolSearchPortable = %v, want a rejection of get_temp_data's features", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the server got %d requests, want the 1 of the first model", n)
	}
	if _, err := anthropic.New(&anthropic.Options{Model: "m", ToolSearch: "semantic"}); err == nil {
		t.Error("New accepts an unknown ToolSearch")
	}
	req := srv.Requests()[0].Body
	var tools []map[string]any
	if err := json.Unmarshal([]byte(providertest.At(t, req, "/tools")), &tools); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools[:2] {
		if tl["eager_input_streaming"] != true {
			t.Errorf("tool %v went without eager_input_streaming", tl["name"])
		}
	}
	if got := []any{tools[2]["type"], tools[2]["name"]}; !slices.Equal(got, []any{"tool_search_tool_bm25_20251119", "tool_search_tool_bm25"}) {
		t.Errorf("the search tool went as %v", tools[2])
	}
}
