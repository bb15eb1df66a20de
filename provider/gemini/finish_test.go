package gemini_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

// TestIncomplete checks that a blocked prompt, a MAX_TOKENS stop and a
// SAFETY stop end the run with the matching error.
func TestIncomplete(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		want    error
		raw     string
	}{
		{"blocked", agent.ErrFiltered, "blocked: PROHIBITED_CONTENT"},
		{"max_tokens", agent.ErrTruncated, "MAX_TOKENS"},
		{"safety", agent.ErrFiltered, "SAFETY"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			resp := providertest.Incomplete(t, newModel(t, srv, gemini.Options{}), tt.want)
			if resp.RawFinishReason != tt.raw {
				t.Errorf("RawFinishReason = %q, want %q", resp.RawFinishReason, tt.raw)
			}
		})
	}
}

// TestMalformedCall checks that MALFORMED_FUNCTION_CALL gives the model
// another turn, told what went wrong, instead of ending the run.
func TestMalformedCall(t *testing.T) {
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, "testdata/malformed_call.response.json"),
		replay.Load(t, "testdata/tool_calls_ids.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{agenttest.Weather()}})
	if err != nil {
		t.Fatal(err)
	}
	history, err := agent.Run(t.Context(), newModel(t, srv, gemini.Options{}), reg, agent.History{agent.UserText(agenttest.Prompt)}, &agent.Options{System: agenttest.System})
	if err != nil {
		t.Fatalf("agent.Run: %v", err)
	}
	if got := history[len(history)-1].Text; got != answer.Text {
		t.Errorf("the answer = %q, want %q", got, answer.Text)
	}
	// The SDK does not pass the API's finishMessage on (genai v1.77 copies
	// no finishMessage from a Gemini API candidate), so the model is told
	// only that its call was malformed.
	if second := srv.Requests()[1].Body; !bytes.Contains(second, []byte(agent.MalformedCallText)) {
		t.Errorf("the second request lacks %q: %s", agent.MalformedCallText, second)
	}
}

// TestTextSignature checks that the thought signature of a text part
// survives a JSON round trip of the history and goes back on that part,
// and that the usage reports cached and thinking tokens.
func TestTextSignature(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/text_signature.response.json")))
	history, err := agent.Run(t.Context(), newModel(t, srv, gemini.Options{}), nil, agent.History{agent.UserText("Weather in Paris?")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var decoded agent.History
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	decoded = append(decoded, agent.UserText("And tomorrow?"))
	got, err := newModel(t, srv, gemini.Options{}).Generate(t.Context(), &agent.Request{Messages: decoded})
	if err != nil {
		t.Fatal(err)
	}
	if want := (agent.Usage{InputTokens: 1310, OutputTokens: 89, CachedInputTokens: 1024, ReasoningTokens: 61}); got.Usage != want {
		t.Errorf("Usage = %+v, want %+v", got.Usage, want)
	}
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string `json:"text"`
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	model := body.Contents[1]
	if model.Role != "model" || len(model.Parts) != 1 || !strings.HasPrefix(model.Parts[0].ThoughtSignature, "CrkCAdHtim9m") || model.Parts[0].Text != history[1].Text {
		t.Errorf("the model turn went back as %+v; want its text with its signature", model)
	}
}

// TestStructuredResult checks that a tool message's structured output goes
// back as the functionResponse's output object.
func TestStructuredResult(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/answer.response.json")))
	req := providertest.SecondTurn("", "toolu_1", "toolu_2")
	req.Messages[2].Structured = json.RawMessage(`{"sky":"sunny","celsius":18}`)
	if _, err := newModel(t, srv, gemini.Options{}).Generate(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if body := srv.Requests()[0].Body; !bytes.Contains(body, []byte(`"response":{"output":{"celsius":18,"sky":"sunny"}}`)) {
		t.Errorf("request %s; want the structured output as the response's output", body)
	}
}

// TestStream checks that text streams as deltas that add up to the
// response, and that the call and its signature come through.
func TestStream(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/stream.response.json")))
	resp, _ := providertest.Stream(t, newModel(t, srv, gemini.Options{Stream: true}), providertest.FirstTurn())
	if resp.Text != "Let me check." || len(resp.Calls) != 1 || resp.Calls[0].ID != "wx7p2k9d" || resp.Calls[0].State == nil {
		t.Errorf("Stream's response = %s", providertest.Show(resp))
	}
	if want := (agent.Usage{InputTokens: 96, OutputTokens: 42, ReasoningTokens: 12}); resp.FinishReason != agent.FinishToolCalls || resp.Usage != want {
		t.Errorf("FinishReason %q, Usage %+v; want tool_calls and %+v", resp.FinishReason, resp.Usage, want)
	}
	if r := srv.Requests()[0]; r.Path != "/v1beta/models/gemini-3-flash:streamGenerateContent" || r.Query != "alt=sse" {
		t.Errorf("request to %s?%s, want streamGenerateContent?alt=sse", r.Path, r.Query)
	}
}

// TestStreamCallWithoutID checks that a streamed call the API gives no ID,
// in chunks that carry no response ID either, has the same ID in its delta
// as in the response (providertest.Stream compares them), and that the ID
// goes back to the API nowhere. The chunks are hand-written; the recorded
// stream in TestRecordedStreamThoughtSignature has a response ID.
func TestStreamCallWithoutID(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Response{Events: []replay.Event{
		{Data: json.RawMessage(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},"index":0}]}`)},
		{Data: json.RawMessage(`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}]}`)},
	}}))
	m := newModel(t, srv, gemini.Options{Stream: true})
	resp, _ := providertest.Stream(t, m, providertest.FirstTurn())
	if len(resp.Calls) != 1 || !strings.HasPrefix(resp.Calls[0].ID, "call_") || resp.Calls[0].State != nil {
		t.Fatalf("Stream's response = %s; want one call with an ID of the Model's making and no state", providertest.Show(resp))
	}
	providertest.Stream(t, m, providertest.Answer(providertest.FirstTurn(), resp, "Sunny"))
	if sent := srv.Requests()[1].Body; bytes.Contains(sent, []byte(resp.Calls[0].ID)) {
		t.Errorf("the second request carries the Model's own call ID %s: %s", resp.Calls[0].ID, sent)
	}
}

// TestContinuation checks that a CONTINUATION finish never reaches the
// Model: the SDK sends the request again with the continuation token and
// merges the answers.
func TestContinuation(t *testing.T) {
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, "testdata/continuation_first.response.json"),
		replay.Load(t, "testdata/continuation_last.response.json")))
	want := withID(&agent.Response{Text: answer.Text, FinishReason: agent.FinishStop, RawFinishReason: "STOP"}, "cont1")
	providertest.Generate(t, newModel(t, srv, gemini.Options{}), providertest.SecondTurn("", "toolu_1", "toolu_2"), want)
	reqs := srv.Requests()
	if len(reqs) != 2 || !bytes.Contains(reqs[1].Body, []byte("Y29udGludWUtZnJvbS1oZXJl")) {
		t.Errorf("the server got %d requests; want a second one with the continuation token", len(reqs))
	}
}
