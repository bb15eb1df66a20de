package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
	"github.com/hands-go/hands/tool"
)

type searchArgs struct {
	Location string `json:"location" jsonschema:"the city and state, e.g. San Francisco, CA"`
	Unit     string `json:"unit" jsonschema:"celsius or fahrenheit"`
}

// searchTurn returns the first turn of the recorded search: get_weather
// deferred on its own, search_files and find_symbol deferred by their
// scope "workspace", and send_email loaded.
func searchTurn(t *testing.T) *agent.Request {
	t.Helper()
	handler := func(context.Context, searchArgs) (string, error) { return "", nil }
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "main", Tools: []tool.Interface{
			tool.New("get_weather", "Get the current weather at a specific location", handler, tool.WithDeferLoading()),
			tool.New("send_email", "Send an email to a recipient", handler),
		}},
		&tool.Scope{Name: "workspace", DeferLoading: true, Tools: []tool.Interface{
			tool.New("search_files", "Search through files in the workspace", handler),
			tool.New("find_symbol", "Find a symbol's definition in the workspace", handler),
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Request{
		Messages: []agent.Message{agent.UserText("What's the weather in San Francisco?")},
		Tools:    reg.Specs(context.Background()),
	}
}

// TestRecordedToolSearch replays gpt-5.4's recorded turn with the hosted
// tool search: the request flags the deferred tools, groups the deferred
// scope's in a namespace named after it, and adds tool_search; the
// response's tool_search_call and tool_search_output items go into the
// message's state and the call's namespace into the call's, which survive
// the history's JSON and go back in the next request as the API sent them.
func TestRecordedToolSearch(t *testing.T) {
	body, err := os.ReadFile(recorded + "openai-tool-search.1.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Response{Raw: body},
		replay.Load(t, "testdata/responses_answer.response.json")))
	m := newModel(t, srv, openai.Options{})
	if !m.SearchesTools() {
		t.Fatal("SearchesTools = false on the Responses API, want true")
	}
	first := searchTurn(t)
	resp, err := m.Generate(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Calls) != 1 || resp.Calls[0].ID != "call_ytqozXvUXG8NN1b0IODxzUaE" || resp.Calls[0].Name != "get_weather" ||
		string(resp.Calls[0].Args) != `{"location":"San Francisco, CA","unit":"fahrenheit"}` || resp.FinishReason != agent.FinishToolCalls {
		t.Fatalf("Generate = %s, want the recorded call of get_weather", providertest.Show(resp))
	}

	sent := srv.Requests()[0].Body
	for _, tt := range []struct{ ptr, want string }{
		{"/tools/0/name", `"get_weather"`},
		{"/tools/0/defer_loading", "true"},
		{"/tools/2/type", `"namespace"`},
		{"/tools/2/name", `"workspace"`},
		{"/tools/2/description", `"The tools of workspace: search_files, find_symbol."`},
		{"/tools/2/tools/0/name", `"search_files"`},
		{"/tools/2/tools/0/defer_loading", "true"},
		{"/tools/2/tools/1/name", `"find_symbol"`},
		{"/tools/3", `{"type":"tool_search"}`},
	} {
		if got := providertest.At(t, sent, tt.ptr); got != tt.want {
			t.Errorf("first request: %s is %s, want %s", tt.ptr, got, tt.want)
		}
	}
	var email map[string]any
	if err := json.Unmarshal([]byte(providertest.At(t, sent, "/tools/1")), &email); err != nil {
		t.Fatal(err)
	}
	if _, ok := email["defer_loading"]; ok || email["name"] != "send_email" {
		t.Errorf("the loaded tool went as %v, want send_email without defer_loading", email)
	}

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
	second.Messages = append(decoded, agent.Message{Role: agent.RoleTool, CallID: resp.Calls[0].ID, Name: "get_weather", Text: "64°F and sunny"})
	if _, err := m.Generate(t.Context(), &second); err != nil {
		t.Fatal(err)
	}
	next := srv.Requests()[1].Body
	for i := range 2 {
		ptr := "/output/" + string(rune('0'+i))
		if got, want := providertest.At(t, next, "/input/"+string(rune('1'+i))), providertest.At(t, body, ptr); got != want {
			t.Errorf("search item %d went back as %s, want %s as the API sent it", i, got, want)
		}
	}
	for _, tt := range []struct{ ptr, want string }{
		{"/input/3/type", `"function_call"`},
		{"/input/3/namespace", `"get_weather"`},
		{"/input/3/id", `"fc_04bd69550b37ba260069aa68969e088190a5ebe91c1448f693"`},
		{"/input/4/type", `"function_call_output"`},
	} {
		if got := providertest.At(t, next, tt.ptr); got != tt.want {
			t.Errorf("second request: %s is %s, want %s", tt.ptr, got, tt.want)
		}
	}
}

// TestChatRefusesDeferred checks that Chat Completions, which has no tool
// search, searches no tools itself and refuses a deferred tool rather than
// send it as if it were loaded; and that a dialect without namespaces
// sends a deferred scope's tools one by one.
func TestChatRefusesDeferred(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_tool_calls.response.json")))
	chat := newModel(t, srv, openai.Options{API: openai.ChatCompletions})
	if chat.SearchesTools() {
		t.Error("SearchesTools = true on Chat Completions")
	}
	_, err := chat.Generate(t.Context(), searchTurn(t))
	p, ok := errors.AsType[dialect.Problem](err)
	if !errors.Is(err, dialect.ErrRejected) || !ok || p.Keyword != "features" {
		t.Errorf("Chat Generate of deferred tools = %v, want a rejection of their features", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests, want none", n)
	}

	flat := dialect.OpenAIStrict()
	flat.Features &^= dialect.Namespaces
	m := newModel(t, srv, openai.Options{Dialect: flat})
	if _, err := m.Generate(t.Context(), searchTurn(t)); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0].Body
	for i, name := range []string{`"get_weather"`, `"send_email"`, `"search_files"`, `"find_symbol"`} {
		if got := providertest.At(t, sent, "/tools/"+string(rune('0'+i))+"/name"); got != name {
			t.Errorf("tool %d is %s, want %s", i, got, name)
		}
	}

	none := dialect.OpenAIStrict()
	none.Features = 0
	if newModel(t, srv, openai.Options{Dialect: none}).SearchesTools() {
		t.Error("SearchesTools = true with a dialect without ToolSearch")
	}
}
