package anthropic_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/tool"
)

// The tests in this file replay traffic recorded against the live
// Anthropic API and published by pydantic-ai and langchaingo, copied into
// testdata/recorded/ (manifest.json names each file's source, commit and
// license). Unlike the hand-written fixtures in testdata/, these bodies are
// what the service sent. The cassettes keep JSON bodies parsed, so each is
// replayed re-encoded: the same values, keys in sorted order.

const recorded = "testdata/recorded/"

func TestRecordedManifest(t *testing.T) {
	replay.CheckManifest(t, "testdata/recorded")
}

// TestRecordedParallelCalls replays claude-haiku-4-5's text with four
// parallel tool_use blocks, then its answer to their results, and checks
// that the second request gives the assistant turn back as recorded.
func TestRecordedParallelCalls(t *testing.T) {
	x := replay.LoadCassette(t, recorded+"test_multiple_parallel_tool_calls.yaml")
	srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
	m := newModel(t, srv, anthropic.Options{MaxTokens: 4096})

	type args struct {
		Name string `json:"name"`
	}
	info := tool.New("retrieve_entity_info", "Get the knowledge about the given entity.",
		func(context.Context, args) (string, error) { return "", nil })
	first := &agent.Request{
		System:   providertest.StringAt(t, x[0].Request.Body, "/system"),
		Messages: []agent.Message{agent.UserText("Alice, Bob, Charlie and Daisy are a family. Who is the youngest?")},
		Tools:    []tool.Spec{info.Spec()},
	}
	var calls []agent.ToolCall
	for i, name := range []string{"Alice", "Bob", "Charlie", "Daisy"} {
		id := providertest.StringAt(t, x[0].Response.Raw, fmt.Sprintf("/content/%d/id", i+1))
		calls = append(calls, agent.ToolCall{ID: id, Name: "retrieve_entity_info", Args: []byte(`{"name":"` + name + `"}`)})
	}
	if calls[0].ID != "toolu_0167cfEnoQaPviGdVXA95zcu" {
		t.Fatalf("the recording's first call is %s", calls[0].ID)
	}
	resp := providertest.Generate(t, m, first, &agent.Response{
		Text:         "I'll help you find out who is the youngest by retrieving information about each family member. I'll retrieve their entity information to compare their ages.",
		Calls:        calls,
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_use",
		Usage: agent.Usage{InputTokens: 423, OutputTokens: 202},
		ID:    "msg_011S3wxtqL5CVescWqS3zeg2", Model: "claude-haiku-4-5-20251001",
	})
	results := []string{"alice is bob's wife", "bob is alice's husband", "charlie is alice's son", "daisy is bob's daughter and charlie's younger sister"}
	providertest.Generate(t, m, providertest.Answer(first, resp, results...), &agent.Response{
		Text:         providertest.StringAt(t, x[1].Response.Raw, "/content/0/text"),
		FinishReason: agent.FinishStop, RawFinishReason: "end_turn",
		Usage: agent.Usage{InputTokens: 771, OutputTokens: 77},
		ID:    "msg_01JVqZPgDwmnyb2kKC3MwCVf", Model: "claude-haiku-4-5-20251001",
	})

	sent, rec := srv.Requests(), []replay.Request{x[0].Request, x[1].Request}
	if g, w := providertest.At(t, sent[0].Body, "/messages/0"), providertest.At(t, rec[0].Body, "/messages/0"); g != w {
		t.Errorf("first request: the user turn went as %s, want %s as recorded", g, w)
	}
	// The system prompt and the results' content go as lists of text
	// blocks, where the recorded client sent strings: the API takes both.
	if g, w := providertest.StringAt(t, sent[0].Body, "/system/0/text"), first.System; g != w {
		t.Errorf("first request: the system text is %q, want %q", g, w)
	}
	if g, w := providertest.At(t, sent[1].Body, "/messages/1"), providertest.At(t, rec[1].Body, "/messages/1"); g != w {
		t.Errorf("second request: the assistant turn went back as %s, want %s as recorded", g, w)
	}
	for i, r := range results {
		block := fmt.Sprintf("/messages/2/content/%d", i)
		if g := providertest.StringAt(t, sent[1].Body, block+"/tool_use_id"); g != calls[i].ID {
			t.Errorf("result %d went back for %s, want %s", i, g, calls[i].ID)
		}
		if g, w := providertest.StringAt(t, sent[1].Body, block+"/content/0/text"), providertest.StringAt(t, rec[1].Body, block+"/content"); g != r || w != r {
			t.Errorf("result %d went back as %q, recorded as %q; want %q", i, g, w, r)
		}
	}
}

// TestRecordedThinking replays claude-sonnet-4's turn with extended
// thinking: a signed thinking block, text and a call without arguments.
// The thinking block must go back unchanged, signature included, before
// the text and the call, as the API requires of tool use with thinking;
// the second request's assistant turn must equal the recorded one, which
// the API accepted.
func TestRecordedThinking(t *testing.T) {
	x := replay.LoadCassette(t, recorded+"test_anthropic_tool_with_thinking.yaml")
	srv := replay.NewServer(t, replay.Sequence(t, replay.Responses(x)...))
	m := newModel(t, srv, anthropic.Options{MaxTokens: 4096, ThinkingBudget: 3000})

	country := tool.New("get_user_country", "Get the user's country.",
		func(context.Context, struct{}) (string, error) { return "Mexico", nil })
	first := &agent.Request{
		Messages: []agent.Message{agent.UserText("What is the largest city in the user country?")},
		Tools:    []tool.Spec{country.Spec()},
	}
	call := agent.ToolCall{ID: "toolu_01YGzqpRE16Vricda3Aqcejo", Name: "get_user_country", Args: []byte(`{}`)}
	resp := providertest.Generate(t, m, first, &agent.Response{
		Text:         "I'll help you find the largest city in your country. First, let me determine which country you're from.",
		Calls:        []agent.ToolCall{call},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_use",
		Usage: agent.Usage{InputTokens: 398, OutputTokens: 155},
		ID:    "msg_01WvueFjZVbHcj4H4zUzeGv2", Model: "claude-sonnet-4-20250514",
	})
	if resp.State == nil {
		t.Fatal("the response has no state: the thinking block is lost")
	}
	providertest.Generate(t, m, providertest.Answer(first, resp, "Mexico"), &agent.Response{
		Text:         providertest.StringAt(t, x[1].Response.Raw, "/content/0/text"),
		FinishReason: agent.FinishStop, RawFinishReason: "end_turn",
		Usage: agent.Usage{InputTokens: 566, OutputTokens: 126},
		ID:    "msg_01SZ8KP8HhB1TxP6Ybbv6iKz", Model: "claude-sonnet-4-20250514",
	})

	sent, rec := srv.Requests(), []replay.Request{x[0].Request, x[1].Request}
	for _, ptr := range []string{"/messages/0", "/thinking", "/max_tokens"} {
		if g, w := providertest.At(t, sent[0].Body, ptr), providertest.At(t, rec[0].Body, ptr); g != w {
			t.Errorf("first request: %s = %s, want %s as recorded", ptr, g, w)
		}
	}
	if g, w := providertest.At(t, sent[1].Body, "/messages/1"), providertest.At(t, rec[1].Body, "/messages/1"); g != w {
		t.Errorf("second request: the assistant turn went back as\n%s\nwant it as recorded:\n%s", g, w)
	}
	if g := providertest.StringAt(t, sent[1].Body, "/messages/2/content/0/tool_use_id"); g != call.ID {
		t.Errorf("the result went back for %s, want %s", g, call.ID)
	}
}

// TestRecordedStreamCalls replays claude-sonnet-4-5's streamed text and two
// calls, recorded by langchaingo: the arguments of the first arrive in
// pieces, the second has none (its one input_json_delta is empty), and the
// API pads each event's data with spaces. The deltas must add up to the
// response, the call without arguments to {} in both.
func TestRecordedStreamCalls(t *testing.T) {
	body, err := os.ReadFile(recorded + "TestAnthropic_GenerateContentWithToolAndStreaming.response.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := replay.NewServer(t, replay.Always(replay.Response{
		Header: map[string]string{"Content-Type": "text/event-stream; charset=utf-8"},
		Raw:    body,
	}))
	m := newModel(t, srv, anthropic.Options{Stream: true})

	type tipArgs struct {
		BillAmount    float64 `json:"billAmount" jsonschema:"The total bill amount"`
		TipPercentage float64 `json:"tipPercentage" jsonschema:"The tip percentage"`
	}
	tip := tool.New("calculateTip", "Calculate tip amount based on bill total and percentage",
		func(context.Context, tipArgs) (string, error) { return "", nil })
	waiter := tool.New("getWaiterName", "Get the name of the waiter",
		func(context.Context, struct{}) (string, error) { return "", nil })
	req := &agent.Request{
		Messages: []agent.Message{agent.UserText("Calculate a 15% tip on a $50 bill and tell me who is the waiter in the format: '<waiterName> should get a tip of <tipAmount>'")},
		Tools:    []tool.Spec{tip.Spec(), waiter.Spec()},
	}
	want := &agent.Response{
		Text: "I'll calculate the tip and get the waiter's name for you.",
		Calls: []agent.ToolCall{
			{ID: "toolu_01VsaoaKxpzdz8vgY4hTGjE3", Name: "calculateTip", Args: []byte(`{"billAmount": 50, "tipPercentage": 15}`)},
			{ID: "toolu_01Uksi8drJHeC8rCj8yVUtCJ", Name: "getWaiterName", Args: []byte(`{}`)},
		},
		FinishReason: agent.FinishToolCalls, RawFinishReason: "tool_use",
		Usage: agent.Usage{InputTokens: 679, OutputTokens: 111},
		ID:    "msg_01NHvMRiHy8uqTTxcg2bA6J3", Model: "claude-sonnet-4-5-20250929",
	}
	resp := providertest.Streamed(t, m, req, want)
	if !bytes.Equal(resp.Calls[0].Args, want.Calls[0].Args) {
		t.Errorf("the first call's arguments are %s, want them as streamed: %s", resp.Calls[0].Args, want.Calls[0].Args)
	}
}
