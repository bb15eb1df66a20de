package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
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

// TestStreamToolSearch streams the turn of TestRecordedToolSearch, written
// by hand in the streaming form (the search's input in input_json_delta
// pieces, the search result whole in its content_block_start), and checks
// that the streamed message's state holds the search's blocks byte for
// byte as the response that is not streamed leaves them, and that the next
// request sends the same messages, byte for byte, whichever form the turn
// before came in. The search's block starts with "input": {} as the live
// API's do, or with no input, as the API's documentation shows it.
func TestStreamToolSearch(t *testing.T) {
	for _, fixture := range []string{"stream_tool_search", "stream_tool_search_noinput"} {
		t.Run(fixture, func(t *testing.T) { testStreamToolSearch(t, "testdata/"+fixture+".response.json") })
	}
}

func testStreamToolSearch(t *testing.T, fixture string) {
	body, err := os.ReadFile(recorded + "anthropic-tool-search-regex.1.json")
	if err != nil {
		t.Fatal(err)
	}
	want := func(args string) *agent.Response {
		return &agent.Response{
			Text:         "I found a tool to get temperature data! Let me use it to get the weather information for San Francisco.",
			Calls:        []agent.ToolCall{{ID: "toolu_01X4r989CAhzqnFqDJn1gVvp", Name: "get_temp_data", Args: []byte(args)}},
			FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_use",
			ID: "msg_014rjTcNMwWRYQkjnCre2pi4", Model: "claude-sonnet-4-5-20250929",
		}
	}
	plainSrv := replay.NewServer(t, replay.Sequence(t, replay.Response{Raw: body}, replay.Load(t, "testdata/answer.response.json")))
	plain := newModel(t, plainSrv, anthropic.Options{})
	streamSrv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, fixture),
		replay.Load(t, "testdata/stream.response.json")))
	streamed := newModel(t, streamSrv, anthropic.Options{Stream: true})

	first := searchTurn()
	plainResp := providertest.Generate(t, plain, first, want(`{"location":"San Francisco, CA","unit":"fahrenheit"}`))
	// A streamed call's arguments are those the model streamed.
	streamResp := providertest.Streamed(t, streamed, first, want(`{"location": "San Francisco, CA", "unit": "fahrenheit"}`))
	if !bytes.Equal(streamResp.State, plainResp.State) {
		t.Errorf("the streamed message's state is\n%s\nwant the state of the message not streamed\n%s", streamResp.State, plainResp.State)
	}
	var st struct {
		Anthropic struct {
			Blocks []json.RawMessage `json:"blocks"`
		} `json:"anthropic"`
	}
	if err := json.Unmarshal(streamResp.State, &st); err != nil {
		t.Fatal(err)
	}
	if n := len(st.Anthropic.Blocks); n != 2 {
		t.Fatalf("the streamed state holds %d blocks, want the server_tool_use and the tool_search_tool_result", n)
	}
	for i, ptr := range []string{"/content/0", "/content/1"} {
		if got, want := providertest.At(t, st.Anthropic.Blocks[i], ""), providertest.At(t, body, ptr); got != want {
			t.Errorf("the streamed state's block %d is %s, want %s as the API sent it", i, got, want)
		}
	}

	if _, err := plain.Generate(t.Context(), providertest.Answer(first, plainResp, "64°F")); err != nil {
		t.Fatal(err)
	}
	for _, err := range streamed.Stream(t.Context(), providertest.Answer(first, streamResp, "64°F")) {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, wantMsgs := member(t, streamSrv.Requests()[1].Body, "messages"), member(t, plainSrv.Requests()[1].Body, "messages")
	if !bytes.Equal(got, wantMsgs) {
		t.Errorf("after a streamed turn, the next request's messages are\n%s\nwant those sent after the turn not streamed\n%s", got, wantMsgs)
	}
}

// member returns the raw bytes of the member name of the JSON object doc,
// as they were written.
func member(t *testing.T, doc []byte, name string) []byte {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil {
		t.Fatal(err)
	}
	raw, ok := obj[name]
	if !ok {
		t.Fatalf("no member %q in %s", name, doc)
	}
	return raw
}
