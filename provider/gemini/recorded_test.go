package gemini_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

// The tests in this file replay traffic recorded against the live Gemini
// API and published by other projects, copied unmodified into
// testdata/recorded/ (manifest.json names each file's source, commit and
// license). Unlike the hand-written fixtures in testdata/, these bodies are
// what the service sent.

const recorded = "testdata/recorded/"

func TestRecordedManifest(t *testing.T) {
	replay.CheckManifest(t, "testdata/recorded")
}

// TestRecordedRoundTrip replays gemini-2.0-flash's function call, which
// has no ID, and its answer to the function's response, recorded by
// langchaingo through the genai SDK. The call goes back as the model made
// it, with no ID of the adapter's making, and the second request's model
// turn equals the recorded one.
func TestRecordedRoundTrip(t *testing.T) {
	x := replay.LoadHTTPRR(t, recorded+"TestGoogleAIToolCallResponse.httprr")
	srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
	m := newModel(t, srv, gemini.Options{})

	type args struct {
		Expression string `json:"expression" jsonschema:"Mathematical expression to evaluate"`
	}
	calc := tool.New("calculate", "Perform a calculation", func(context.Context, args) (string, error) { return "105", nil })
	first := &agent.Request{
		Messages: []agent.Message{agent.UserText("What is 15 * 7?")},
		Tools:    []tool.Spec{calc.Spec()},
	}
	resp := providertest.Generate(t, m, first, &agent.Response{
		Calls:        []agent.ToolCall{{ID: "call_onxxaNXSCPy-gLUP6pjS0Qs_1", Name: "calculate", Args: []byte(`{"expression":"15 * 7"}`)}},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 21, OutputTokens: 7},
		ID:    "onxxaNXSCPy-gLUP6pjS0Qs", Model: "gemini-2.0-flash",
	})
	providertest.Generate(t, m, providertest.Answer(first, resp, "105"), &agent.Response{
		Text:         "The answer is 105.\n",
		FinishReason: agent.FinishStop, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 33, OutputTokens: 9},
		ID:    "o3xxaNuCOvy-gLUP6pjS0Qs", Model: "gemini-2.0-flash",
	})

	sent, rec := srv.Requests(), []replay.Request{x[0].Request, x[1].Request}
	if g, w := providertest.At(t, sent[0].Body, "/contents"), providertest.At(t, rec[0].Body, "/contents"); g != w {
		t.Errorf("first request: contents = %s, want %s as recorded", g, w)
	}
	if g, w := providertest.At(t, sent[1].Body, "/contents/1"), providertest.At(t, rec[1].Body, "/contents/1"); g != w {
		t.Errorf("second request: the model turn went back as %s, want %s as recorded", g, w)
	}
	// The recorded client put the result under "response"; the adapter
	// puts it under "output", as the genai SDK documents FunctionResponse.
	for ptr, want := range map[string]string{
		"/contents/2/role":                                     "user",
		"/contents/2/parts/0/functionResponse/name":            "calculate",
		"/contents/2/parts/0/functionResponse/response/output": "105",
	} {
		if g := providertest.StringAt(t, sent[1].Body, ptr); g != want {
			t.Errorf("second request: %s = %q, want %q", ptr, g, want)
		}
	}
}

// TestRecordedStreamThoughtSignature replays gemini-3-pro-preview's streamed
// call, whose thought signature arrives on the call and whose finish
// reason arrives in a later chunk with an empty text, then the streamed
// answer. The signature must go back on the call, the same bytes.
func TestRecordedStreamThoughtSignature(t *testing.T) {
	x := replay.LoadCassette(t, recorded+"test_google_streaming_tool_call_thought_signature.yaml")
	srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
	m := newModel(t, srv, gemini.Options{Stream: true})

	country := tool.New("get_country", "Get the user's country.", func(context.Context, struct{}) (string, error) { return "Mexico", nil })
	first := &agent.Request{
		Messages: []agent.Message{agent.UserText("What is the capital of the user country? Call the tool")},
		Tools:    []tool.Spec{country.Spec()},
	}
	resp := providertest.Streamed(t, m, first, &agent.Response{
		Calls:        []agent.ToolCall{{ID: "call_QUVVadTSNJ6_qtsPvN7J8Q0_1", Name: "get_country", Args: []byte(`{}`)}},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 29, OutputTokens: 212, ReasoningTokens: 202},
		ID:    "QUVVadTSNJ6_qtsPvN7J8Q0", Model: "gemini-3-pro-preview",
	})
	providertest.Streamed(t, m, providertest.Answer(first, resp, "Mexico"), &agent.Response{
		Text:         "The capital of Mexico is Mexico City.",
		FinishReason: agent.FinishStop, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 257, OutputTokens: 8},
		ID:    "REVVabaiCdq4qtsPnZu96Qo", Model: "gemini-3-pro-preview",
	})

	sent, rec := srv.Requests()[1].Body, x[1].Request.Body
	const sig = "/contents/1/parts/0/thoughtSignature"
	// The recorded client wrote the signature in base64url, the Go SDK
	// writes standard base64: the bytes must be the same.
	got, err := base64.StdEncoding.DecodeString(providertest.StringAt(t, sent, sig))
	if err != nil {
		t.Fatal(err)
	}
	want, err := base64.URLEncoding.DecodeString(providertest.StringAt(t, rec, sig))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("the thought signature went back as %d bytes %x, want the %d recorded", len(got), got, len(want))
	}
	for ptr, want := range map[string]string{
		"/contents/1/parts/0/functionCall/name":     "get_country",
		"/contents/2/parts/0/functionResponse/name": "get_country",
	} {
		if g := providertest.StringAt(t, sent, ptr); g != want {
			t.Errorf("second request: %s = %q, want %q", ptr, g, want)
		}
	}
}

// TestRecordedParallelCallsWithIDs replays gemini-3-flash-preview's two
// parallel calls, which the API gave IDs and the first of them a thought
// signature, recorded by langchaingo, then its answer to their responses.
// The second request's model turn must equal the recorded one, which the
// API accepted: each call with its ID, the signature on the first only.
func TestRecordedParallelCallsWithIDs(t *testing.T) {
	const prefix = recorded + "TestGoogleAI_ParallelFunctionCallsWithSignature."
	load := func(name string) []byte {
		data, err := os.ReadFile(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	header := map[string]string{"Content-Type": "application/json; charset=UTF-8"}
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Response{Header: header, Raw: load("response1.json")},
		replay.Response{Header: header, Raw: load("response2.json")}))
	m := newModel(t, srv, gemini.Options{})

	type args struct {
		Location string `json:"location" jsonschema:"The city name, e.g. Paris"`
	}
	temp := tool.New("get_temperature", "Get the current temperature for a location",
		func(context.Context, args) (string, error) { return "22°C", nil })
	first := &agent.Request{
		Messages: []agent.Message{agent.UserText("What's the temperature in Paris and London?")},
		Tools:    []tool.Spec{temp.Spec()},
	}
	calls := []agent.ToolCall{
		{ID: "pkjly1p7", Name: "get_temperature", Args: []byte(`{"location":"Paris"}`)},
		{ID: "bnxwmmb1", Name: "get_temperature", Args: []byte(`{"location":"London"}`)},
	}
	// The response's finishMessage, "Model generated function call(s).",
	// does not reach the Model: genai v1.77 copies none from a Gemini API
	// candidate.
	resp := providertest.Generate(t, m, first, &agent.Response{
		Calls:        calls,
		FinishReason: agent.FinishToolCalls, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 69, OutputTokens: 88, ReasoningTokens: 56},
		ID:    "tbZxauHIDsiOvdIPgsDH2A4", Model: "gemini-3-flash-preview",
	})
	providertest.Generate(t, m, providertest.Answer(first, resp, "22°C", "22°C"), &agent.Response{
		Text:         "The temperature is currently 22°C in both Paris and London.",
		FinishReason: agent.FinishStop, RawFinishReason: "STOP",
		Usage: agent.Usage{InputTokens: 131, OutputTokens: 15},
		ID:    "t7Zxaq6tGJiXvdIP9cPRsA8", Model: "gemini-3-flash-preview",
	})

	sent, rec := srv.Requests()[1].Body, load("request2.json")
	if g, w := providertest.At(t, sent, "/contents/1"), providertest.At(t, rec, "/contents/1"); g != w {
		t.Errorf("second request: the model turn went back as\n%s\nwant it as recorded:\n%s", g, w)
	}
	for i, c := range calls {
		part := fmt.Sprintf("/contents/2/parts/%d/functionResponse", i)
		for _, field := range []string{"/id", "/name"} {
			if g, w := providertest.StringAt(t, sent, part+field), providertest.StringAt(t, rec, part+field); g != w {
				t.Errorf("second request: %s%s = %q, want %q as recorded (call %s)", part, field, g, w, c.ID)
			}
		}
	}
}
