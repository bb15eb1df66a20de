package openai_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
	"github.com/hands-go/hands/tool"
)

// TestIncomplete checks that a truncated, filtered or refused response
// ends the run with the matching error, and that its calls never run.
func TestIncomplete(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		api     openai.API
		want    error
		raw     string
	}{
		{"responses_incomplete_call", openai.Responses, agent.ErrTruncated, "incomplete: max_output_tokens"},
		{"responses_content_filter", openai.Responses, agent.ErrFiltered, "incomplete: content_filter"},
		{"responses_refusal", openai.Responses, agent.ErrRefused, "completed"},
		{"chat_length", openai.ChatCompletions, agent.ErrTruncated, "length"},
		{"chat_content_filter", openai.ChatCompletions, agent.ErrFiltered, "content_filter"},
		{"chat_refusal", openai.ChatCompletions, agent.ErrRefused, "stop"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			resp := providertest.Incomplete(t, newModel(t, srv, openai.Options{API: tt.api}), tt.want)
			if resp.RawFinishReason != tt.raw {
				t.Errorf("RawFinishReason = %q, want %q", resp.RawFinishReason, tt.raw)
			}
			if resp.Usage.OutputTokens == 0 {
				t.Errorf("Usage = %+v, want the response's", resp.Usage)
			}
		})
	}
}

// TestStreamIncomplete checks that a streamed call of a response that
// ended incomplete never runs.
func TestStreamIncomplete(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_stream_incomplete.response.json")))
	resp := providertest.Incomplete(t, newModel(t, srv, openai.Options{Stream: true}), agent.ErrTruncated)
	if len(resp.Calls) != 1 || string(resp.Calls[0].Args) != `{"city":"Par` {
		t.Errorf("the incomplete response = %s; want its call with the arguments cut off", providertest.Show(resp))
	}
}

// TestMalformedArgs checks that arguments that are not valid JSON are kept
// as the model sent them, reach the tool's validation, and go back to the
// model unchanged.
func TestMalformedArgs(t *testing.T) {
	const sent = `{"city": "Paris",}`
	for _, api := range apis {
		t.Run(api.prefix, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Sequence(t,
				replay.Load(t, "testdata/"+api.prefix+"_malformed_args.response.json"),
				replay.Load(t, "testdata/"+api.prefix+"_answer.response.json")))
			reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{agenttest.Weather()}})
			if err != nil {
				t.Fatal(err)
			}
			history, err := agent.Run(t.Context(), newModel(t, srv, openai.Options{API: api.api}), reg, agent.History{agent.UserText(agenttest.Prompt)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(history[1].Calls[0].Args); got != sent {
				t.Errorf("the call's Args = %s, want %s as sent", got, sent)
			}
			if !history[2].IsError {
				t.Errorf("the call's result = %+v, want an error", history[2])
			}
			reqs := srv.Requests()
			quoted, _ := json.Marshal(sent)
			if len(reqs) != 2 || !bytes.Contains(reqs[1].Body, quoted) {
				t.Errorf("the second request does not send the arguments back as %s", quoted)
			}
		})
	}
}

// TestReasoningRoundTrip checks that the Responses API's reasoning items,
// with their encrypted content, and the calls' item IDs survive a JSON
// round trip of the history and go back in the next request, which is not
// stored.
func TestReasoningRoundTrip(t *testing.T) {
	srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
		replay.Load(t, "testdata/responses_reasoning.response.json"),
		replay.Load(t, "testdata/responses_answer.response.json")))
	history := providertest.Resume(t, newModel(t, srv, openai.Options{}), newModel(t, srv, openai.Options{}))
	if got := history[1].State; got == nil {
		t.Error("the assistant message has no state")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the server got %d requests, want 2", len(reqs))
	}
	golden.Check(t, "testdata/responses_reasoning.request.json", reqs[1].Golden())
	for _, want := range []string{`"encrypted_content":"gAAAA`, `"type":"reasoning"`, `"id":"fc_`, `"store":false`, `"reasoning.encrypted_content"`} {
		if !bytes.Contains(reqs[1].Body, []byte(want)) {
			t.Errorf("the second request lacks %s", want)
		}
	}
}

// TestStore checks that Options.Store asks OpenAI to keep responses and no
// longer asks for encrypted reasoning.
func TestStore(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_tool_calls.response.json")))
	m := newModel(t, srv, openai.Options{Store: true})
	if _, err := m.Generate(t.Context(), providertest.FirstTurn()); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if !bytes.Contains(body, []byte(`"store":true`)) || bytes.Contains(body, []byte(`encrypted_content`)) {
		t.Errorf("request %s; want store true and no include", body)
	}
}

// TestNoReasoning checks that Options.NoReasoning leaves the include out,
// for a model that rejects it, while the response is still not stored.
func TestNoReasoning(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_tool_calls.response.json")))
	m := newModel(t, srv, openai.Options{NoReasoning: true})
	if _, err := m.Generate(t.Context(), providertest.FirstTurn()); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Body
	if !bytes.Contains(body, []byte(`"store":false`)) || bytes.Contains(body, []byte(`encrypted_content`)) {
		t.Errorf("request %s; want store false and no include", body)
	}
}

// TestUsage checks that a turn's usage reports cached and reasoning
// tokens.
func TestUsage(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_reasoning.response.json")))
	want := twoCalls("resp_0a1b2c3d4e5f6a7b0068f1c30000000000000000000001")
	want.FinishReason, want.RawFinishReason = agent.FinishToolCalls, "completed"
	want.Usage = agent.Usage{InputTokens: 1312, OutputTokens: 87, CachedInputTokens: 1024, ReasoningTokens: 38}
	providertest.Generate(t, newModel(t, srv, openai.Options{}), providertest.FirstTurn(), want)
}

// TestStream checks that both APIs stream text and arguments as deltas
// that add up to the response.
func TestStream(t *testing.T) {
	for _, api := range apis {
		t.Run(api.prefix, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+api.prefix+"_stream.response.json")))
			resp, deltas := providertest.Stream(t, newModel(t, srv, openai.Options{API: api.api, Stream: true}), providertest.FirstTurn())
			if resp.Text != "Let me check." || len(resp.Calls) != 1 || string(resp.Calls[0].Args) != `{"city":"Paris"}` {
				t.Errorf("Stream's response = %s", providertest.Show(resp))
			}
			if len(deltas) < 4 {
				t.Errorf("Stream yielded %d deltas, want the text and the arguments in pieces", len(deltas))
			}
			if resp.FinishReason != agent.FinishToolCalls || resp.Usage.InputTokens == 0 {
				t.Errorf("FinishReason %q, Usage %+v; want tool_calls and the usage", resp.FinishReason, resp.Usage)
			}
			if body := srv.Requests()[0].Body; !bytes.Contains(body, []byte(`"stream":true`)) {
				t.Errorf("request %s does not ask for a stream", body)
			}
			if api.api == openai.Responses && !bytes.Contains(resp.State, []byte(`"encrypted_content":"gAAAA`)) {
				t.Errorf("State = %s; want the reasoning item with its encrypted content", resp.State)
			}
		})
	}
}
