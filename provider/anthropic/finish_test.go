package anthropic_test

import (
	"bytes"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
)

// TestIncomplete checks that a max_tokens stop inside a tool_use block and
// a refusal end the run with the matching error, and that no call runs.
func TestIncomplete(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		want    error
	}{
		{"max_tokens", agent.ErrTruncated},
		{"refusal", agent.ErrRefused},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			resp := providertest.Incomplete(t, newModel(t, srv, anthropic.Options{}), tt.want)
			if resp.RawFinishReason != tt.fixture {
				t.Errorf("RawFinishReason = %q, want %q", resp.RawFinishReason, tt.fixture)
			}
		})
	}
}

// TestStreamMaxTokens checks that a streamed tool_use cut off by max_tokens
// never runs, with its arguments kept as far as they streamed.
func TestStreamMaxTokens(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/stream_max_tokens.response.json")))
	resp := providertest.Incomplete(t, newModel(t, srv, anthropic.Options{Stream: true}), agent.ErrTruncated)
	if len(resp.Calls) != 1 || string(resp.Calls[0].Args) != `{"city": "Par` {
		t.Errorf("the incomplete response = %s; want its call with the arguments as they streamed", providertest.Show(resp))
	}
}

// TestThinkingRoundTrip checks that thinking and redacted_thinking blocks,
// with their signatures, survive a JSON round trip of the history and go
// back, before the calls, in the next request.
func TestThinkingRoundTrip(t *testing.T) {
	srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
		replay.Load(t, "testdata/thinking.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	opts := anthropic.Options{MaxTokens: 16000, ThinkingBudget: 10000}
	providertest.Resume(t, newModel(t, srv, opts), newModel(t, srv, opts))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the server got %d requests, want 2", len(reqs))
	}
	golden.Check(t, "testdata/thinking.request.json", reqs[1].Golden())
	for _, want := range []string{`"signature":"EqQBCkgIBhABGAIi`, `"type":"redacted_thinking"`, `"data":"EmwKAhgB`, `"budget_tokens":10000`} {
		if !bytes.Contains(reqs[1].Body, []byte(want)) {
			t.Errorf("the second request lacks %s", want)
		}
	}
}

// TestUsage checks that a turn's usage counts cache reads and writes into
// the input, and reports thinking tokens.
func TestUsage(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/thinking.response.json")))
	want := withID(providertest.Calls(callText, parisCall, atlantisCall), "msg_01Q8vX3kTz5nHw7pRb2LcY9n")
	want.FinishReason, want.RawFinishReason = agent.FinishToolCalls, "tool_use"
	want.Usage = agent.Usage{InputTokens: 1642, OutputTokens: 212, CachedInputTokens: 1400, CacheWriteTokens: 230, ReasoningTokens: 96}
	providertest.Generate(t, newModel(t, srv, anthropic.Options{}), providertest.FirstTurn(), want)
}

// TestStream checks that text and arguments stream as deltas that add up
// to the response, with the arguments as the model sent them.
func TestStream(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/stream.response.json")))
	resp, deltas := providertest.Stream(t, newModel(t, srv, anthropic.Options{Stream: true}), providertest.FirstTurn())
	if resp.Text != "Let me check." || len(resp.Calls) != 1 || string(resp.Calls[0].Args) != `{"city": "Paris"}` {
		t.Errorf("Stream's response = %s", providertest.Show(resp))
	}
	if len(deltas) < 4 {
		t.Errorf("Stream yielded %d deltas, want the text and the arguments in pieces", len(deltas))
	}
	if want := (agent.Usage{InputTokens: 1154, OutputTokens: 58, CachedInputTokens: 512}); resp.FinishReason != agent.FinishToolCalls || resp.Usage != want {
		t.Errorf("FinishReason %q, Usage %+v; want tool_calls and %+v", resp.FinishReason, resp.Usage, want)
	}
	if body := srv.Requests()[0].Body; !bytes.Contains(body, []byte(`"stream":true`)) {
		t.Errorf("request %s does not ask for a stream", body)
	}
	want := `"thinking":"Two cities; one call each."`
	if !bytes.Contains(resp.State, []byte(want)) || !bytes.Contains(resp.State, []byte(`"signature":"EqQBCkgIBhABGAIiQStreamedSignature0123456789=="`)) {
		t.Errorf("State = %s; want the streamed thinking block with its signature", resp.State)
	}
}
