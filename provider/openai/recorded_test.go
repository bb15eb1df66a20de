package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
	"github.com/hands-go/hands/tool"
)

// The tests in this file replay traffic recorded against the live OpenAI
// API and published by other projects, copied unmodified into
// testdata/recorded/ (manifest.json names each file's source, commit and
// license). Unlike the hand-written fixtures in testdata/, these bodies are
// what the service sent: real IDs, real argument strings, real streams.

const recorded = "testdata/recorded/"

func TestRecordedManifest(t *testing.T) {
	replay.CheckManifest(t, "testdata/recorded")
}

// The tools of langchaingo's recordings.
type (
	weatherArgs struct {
		Location string `json:"location" jsonschema:"The city and state, e.g. San Francisco, CA"`
		Unit     string `json:"unit,omitempty" tool:"enum=celsius|fahrenheit"`
	}
	timeArgs struct {
		Location string `json:"location" jsonschema:"The city and state, e.g. San Francisco, CA"`
	}
)

func weatherAndTime() []tool.Spec {
	return []tool.Spec{
		tool.New("getCurrentWeather", "Get the current weather in a given location",
			func(context.Context, weatherArgs) (string, error) { return "", nil }).Spec(),
		tool.New("getCurrentTime", "Get the current time in a given location",
			func(context.Context, timeArgs) (string, error) { return "", nil }).Spec(),
	}
}

// bostonCalls are the two calls gpt-4.1 made in both langchaingo
// recordings of TestFunctionParallelCall, with their arguments as sent:
// a space after the colon, unlike the hand-written fixtures.
func bostonCalls(weatherID, timeID string) []agent.ToolCall {
	return []agent.ToolCall{
		{ID: weatherID, Name: "getCurrentWeather", Args: []byte(`{"location": "Boston, MA"}`)},
		{ID: timeID, Name: "getCurrentTime", Args: []byte(`{"location": "Boston, MA"}`)},
	}
}

func bostonTurn() *agent.Request {
	return &agent.Request{
		Messages: []agent.Message{agent.UserText("What are the weather and time in Boston, MA?")},
		Tools:    weatherAndTime(),
	}
}

// TestRecordedChatParallelCalls replays gpt-4.1's answer with two parallel
// calls through Chat Completions, then sends the results back and checks
// that the second request carries the calls as the model made them.
func TestRecordedChatParallelCalls(t *testing.T) {
	x := replay.LoadHTTPRR(t, recorded+"TestFunctionParallelCall-synchronous-openai.httprr")
	srv := replay.NewServer(t, replay.Sequence(t, x[0].Response, x[0].Response))
	m := newModel(t, srv, openai.Options{API: openai.ChatCompletions})

	first := bostonTurn()
	want := &agent.Response{
		Calls:        bostonCalls("call_qg09hWVReOXoXP97AOv8SDrQ", "call_5wcAN3hSC3JsPcgPUU40wEfT"),
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_calls",
		Usage: agent.Usage{InputTokens: 121, OutputTokens: 50},
		ID:    "chatcmpl-BleDgRx6KYrqtdoS4i6ZkPdRcWBqe", Model: "gpt-4.1-2025-04-14",
	}
	resp := providertest.Generate(t, m, first, want)

	// The recorded request and ours ask alike: the same user message.
	got := srv.Requests()[0].Body
	if g, w := providertest.At(t, got, "/messages"), providertest.At(t, x[0].Request.Body, "/messages"); g != w {
		t.Errorf("messages = %s, want them as recorded: %s", g, w)
	}

	// The second turn sends the calls back byte for byte, each result
	// under its call's ID.
	providertest.Generate(t, m, providertest.Answer(first, resp, "Sunny, 22 degrees", "10:42"), &agent.Response{Calls: want.Calls, ID: want.ID, Model: want.Model})
	second := srv.Requests()[1].Body
	for i, c := range want.Calls {
		call := fmt.Sprintf("/messages/1/tool_calls/%d", i)
		if g := providertest.StringAt(t, second, call+"/id"); g != c.ID {
			t.Errorf("call %d went back with ID %q, want %q", i, g, c.ID)
		}
		if g := providertest.StringAt(t, second, call+"/function/arguments"); g != string(c.Args) {
			t.Errorf("call %d went back with arguments %q, want %q", i, g, c.Args)
		}
		if g := providertest.StringAt(t, second, fmt.Sprintf("/messages/%d/tool_call_id", 2+i)); g != c.ID {
			t.Errorf("result %d went back for %q, want %q", i, g, c.ID)
		}
	}
}

// TestRecordedChatParallelCallsStream replays the same two calls streamed:
// each call's ID and name arrive in its first chunk and its arguments in
// pieces, and the usage in a last chunk without choices.
func TestRecordedChatParallelCallsStream(t *testing.T) {
	x := replay.LoadHTTPRR(t, recorded+"TestFunctionParallelCall-streaming-openai.httprr")
	srv := replay.NewServer(t, replay.Sequence(t, x[0].Response))
	m := newModel(t, srv, openai.Options{API: openai.ChatCompletions, Stream: true})

	providertest.Streamed(t, m, bostonTurn(), &agent.Response{
		Calls:        bostonCalls("call_ZqGHKScptLaD0wmWHJYFN1Vo", "call_XoLScnhw0USpb7ml5C5nfGW1"),
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_calls",
		Usage: agent.Usage{InputTokens: 121, OutputTokens: 50},
		ID:    "chatcmpl-BleDgMAC9enGPAhCO3TUZ3frOoyG2", Model: "gpt-4.1-2025-04-14",
	})
	if g, w := providertest.At(t, srv.Requests()[0].Body, "/stream_options"), providertest.At(t, x[0].Request.Body, "/stream_options"); g != w {
		t.Errorf("stream_options = %s, want %s as recorded", g, w)
	}
}

// TestRecordedChatRoundTrip replays gpt-4.1-mini's call through Chat
// Completions, with a system prompt, then its answer to the result,
// recorded by pydantic-ai. The second request's messages must equal the
// recorded ones, which the API accepted: the system prompt, the question,
// the assistant's call as made, and the result under its call's ID.
func TestRecordedChatRoundTrip(t *testing.T) {
	x := replay.LoadCassette(t, recorded+"test_openai_instructions_with_tool_calls_keep_instructions.yaml")
	srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
	m := newModel(t, srv, openai.Options{API: openai.ChatCompletions})

	type args struct {
		City string `json:"city"`
	}
	temp := tool.New("get_temperature", "Get the temperature in a city.",
		func(context.Context, args) (string, error) { return "20.0", nil })
	first := &agent.Request{
		System:   "You are a helpful assistant.",
		Messages: []agent.Message{agent.UserText("What is the temperature in Tokyo?")},
		Tools:    []tool.Spec{temp.Spec()},
	}
	resp := providertest.Generate(t, m, first, &agent.Response{
		Calls:        []agent.ToolCall{{ID: "call_bhZkmIKKItNGJ41whHUHB7p9", Name: "get_temperature", Args: []byte(`{"city":"Tokyo"}`)}},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_calls",
		Usage: agent.Usage{InputTokens: 50, OutputTokens: 15},
		ID:    "chatcmpl-BMxEwRA0p0gJ52oKS7806KAlfMhqq", Model: "gpt-4.1-mini-2025-04-14",
	})
	providertest.Generate(t, m, providertest.Answer(first, resp, "20.0"), &agent.Response{
		Text:         "The temperature in Tokyo is currently 20.0 degrees Celsius.",
		FinishReason: agent.FinishStop, RawFinishReason: "stop",
		Usage: agent.Usage{InputTokens: 75, OutputTokens: 15},
		ID:    "chatcmpl-BMxEx6B8JEj6oDC45MOWKp0phg8UP", Model: "gpt-4.1-mini-2025-04-14",
	})
	for i, r := range srv.Requests() {
		if g, w := providertest.At(t, r.Body, "/messages"), providertest.At(t, x[i].Request.Body, "/messages"); g != w {
			t.Errorf("request %d: messages =\n%s\nwant them as recorded:\n%s", i+1, g, w)
		}
	}
}

// capitalTool answers pydantic-ai's recorded questions.
func capitalTool(answer string) tool.Spec {
	type args struct {
		Country string `json:"country"`
	}
	return tool.New("get_capital", "Get the capital of a country.",
		func(context.Context, args) (string, error) { return answer, nil }).Spec()
}

// checkFunctionCallItems checks the second request of a Responses
// exchange: the function_call item goes back with the call's call_id, name
// and arguments byte for byte, and the function_call_output item follows
// it with output under that call_id, shaped as in the recorded request.
// (The recorded clients sent the function_call item without an id, one of
// them with a null status; the adapter sends the fc_ ID it kept in the
// call's state and no status, so that item is compared by its values only.)
func checkFunctionCallItems(t *testing.T, sent, rec []byte, call agent.ToolCall, output string) {
	t.Helper()
	c, o := item(t, sent, "function_call"), item(t, sent, "function_call_output")
	if c != o-1 {
		t.Fatalf("input = %s; want a function_call item followed by its function_call_output", providertest.At(t, sent, "/input"))
	}
	cp, op := fmt.Sprintf("/input/%d", c), fmt.Sprintf("/input/%d", o)
	for ptr, want := range map[string]string{
		cp + "/call_id": call.ID, cp + "/name": call.Name, cp + "/arguments": string(call.Args),
		op + "/call_id": call.ID, op + "/output": output,
	} {
		if got := providertest.StringAt(t, sent, ptr); got != want {
			t.Errorf("%s = %q, want %q", ptr, got, want)
		}
	}
	recOutput := fmt.Sprintf("/input/%d", item(t, rec, "function_call_output"))
	if g, w := providertest.Shape(t, sent, op), providertest.Shape(t, rec, recOutput); g != w {
		t.Errorf("function_call_output is shaped %s, want %s as recorded", g, w)
	}
}

// item returns the index of the first input item of request body doc with
// the given type, and fails the test if there is none.
func item(t *testing.T, doc []byte, typ string) int {
	t.Helper()
	var items []struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(providertest.At(t, doc, "/input")), &items); err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		if it.Type == typ {
			return i
		}
	}
	t.Fatalf("the request has no %s item: %s", typ, doc)
	return -1
}

// TestRecordedResponsesRoundTrip replays gpt-4o's function_call item
// through the Responses API, then its answer to the result, as a whole
// response and streamed (the arguments in pieces, then the answer's text),
// and checks that the second request gives the call back as the model
// made it, its output under its call_id. The streamed recording's client,
// from March 2025, sent the fc_ item ID back as the call_id; the adapter
// sends the call_id the API gave.
func TestRecordedResponsesRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		file          string
		stream        bool
		country, city string
		call          agent.ToolCall
		first, second agent.Usage
		answer        string
		// The recorded responses' IDs, and the model that answered.
		firstID, secondID, model string
	}{
		{
			file: "test_openai_responses_model_simple_response_with_tool_call.yaml", country: "PotatoLand", city: "Potato City",
			call:   agent.ToolCall{ID: "call_YfwRsW8sUxDKipwyhWTzOXCA", Name: "get_capital", Args: []byte(`{"country":"PotatoLand"}`)},
			first:  agent.Usage{InputTokens: 40, OutputTokens: 18},
			answer: "The capital of PotatoLand is Potato City.", second: agent.Usage{InputTokens: 67, OutputTokens: 11},
			firstID:  "resp_04907f5d3de791830068fbaa19bb908195a91378279dba0f14",
			secondID: "resp_0e9950da9eac6a780068fbaa1bc030819da585a6f85ddad1e6", model: "gpt-4o-2024-08-06",
		},
		{
			file: "test_openai_responses_stream.yaml", stream: true, country: "France", city: "Paris",
			call:   agent.ToolCall{ID: "call_kL0PCQV7M2WMoVX8V8OtYSAL", Name: "get_capital", Args: []byte(`{"country":"France"}`)},
			first:  agent.Usage{InputTokens: 255, OutputTokens: 16},
			answer: "The capital of France is Paris.", second: agent.Usage{InputTokens: 278, OutputTokens: 9},
			firstID:  "resp_67e554a155508191900ee113293c4c830794405d35281ae2",
			secondID: "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed", model: "gpt-4o-2024-08-06",
		},
	} {
		t.Run(tt.file, func(t *testing.T) {
			x := replay.LoadCassette(t, recorded+tt.file)
			srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
			m := newModel(t, srv, openai.Options{NoReasoning: true, Stream: tt.stream})
			turn := func(req *agent.Request, want *agent.Response) *agent.Response {
				if tt.stream {
					return providertest.Streamed(t, m, req, want)
				}
				return providertest.Generate(t, m, req, want)
			}

			first := &agent.Request{
				Messages: []agent.Message{agent.UserText("What is the capital of " + tt.country + "?")},
				Tools:    []tool.Spec{capitalTool(tt.city)},
			}
			resp := turn(first, &agent.Response{
				Calls:        []agent.ToolCall{tt.call},
				FinishReason: agent.FinishToolCalls, RawFinishReason: "completed",
				Usage: tt.first, ID: tt.firstID, Model: tt.model,
			})
			turn(providertest.Answer(first, resp, tt.city), &agent.Response{
				Text:         tt.answer,
				FinishReason: agent.FinishStop, RawFinishReason: "completed",
				Usage: tt.second, ID: tt.secondID, Model: tt.model,
			})
			checkFunctionCallItems(t, srv.Requests()[1].Body, x[1].Request.Body, tt.call, tt.city)
		})
	}
}
