package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// TestIncompleteResponsesDoNotRun checks that the calls of a truncated,
// filtered or refused response never run, that the run ends with an
// *IncompleteError matching the reason's sentinel, and that the history
// ends where it was before the turn.
func TestIncompleteResponsesDoNotRun(t *testing.T) {
	for _, tt := range []struct {
		reason agent.FinishReason
		raw    string
		want   error
	}{
		{agent.FinishLength, "max_tokens", agent.ErrTruncated},
		{agent.FinishContentFilter, "content_filter", agent.ErrFiltered},
		{agent.FinishRefusal, "refusal", agent.ErrRefused},
	} {
		t.Run(string(tt.reason), func(t *testing.T) {
			ran := false
			title := tool.New("title", "Set the title.", func(ctx context.Context, a titleArgs) (string, error) {
				ran = true
				return "ok", nil
			})
			reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{title}})
			resp := agent.Response{
				Calls:           []agent.ToolCall{agenttest.Call("a", "title", `{"title":"Par`)},
				FinishReason:    tt.reason,
				RawFinishReason: tt.raw,
				Usage:           agent.Usage{InputTokens: 5, OutputTokens: 7},
			}
			start := agent.History{agent.UserText("go")}
			var end agent.Event
			var err error
			for ev, e := range agent.Stream(t.Context(), agenttest.NewScript(resp), reg, start, nil) {
				if ev.Kind == agent.EventEnd {
					end, err = ev, e
				}
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Stream ended with %v, want an error matching %v", err, tt.want)
			}
			ierr, ok := errors.AsType[*agent.IncompleteError](err)
			if !ok || ierr.Turn != 1 || ierr.Response.RawFinishReason != tt.raw || string(ierr.Response.Calls[0].Args) != `{"title":"Par` {
				t.Errorf("Stream ended with %#v, want an *IncompleteError of turn 1 with the response", err)
			}
			if ran {
				t.Error("the call of an incomplete response ran")
			}
			if !reflect.DeepEqual(end.History, start) {
				t.Errorf("history = %+v, want %+v", end.History, start)
			}
			if end.Usage.OutputTokens != 7 {
				t.Errorf("the run's usage = %+v, want the turn's", end.Usage)
			}
		})
	}
}

// TestMalformedCallGetsAnotherTurn checks that a turn that ended with a
// malformed call and no call is answered with a user message that quotes
// the provider, and that the model is asked again.
func TestMalformedCallGetsAnotherTurn(t *testing.T) {
	model := agenttest.NewScript(
		agent.Response{FinishReason: agent.FinishMalformedCall, RawFinishReason: "MALFORMED_FUNCTION_CALL", FinishMessage: "Malformed function call: print(get_weather(city=Paris))"},
		agent.Response{Text: "done", FinishReason: agent.FinishStop},
	)
	history, err := agent.Run(t.Context(), model, nil, agent.History{agent.UserText("go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 4 {
		t.Fatalf("history = %+v, want 4 messages", history)
	}
	retry := history[2]
	if retry.Role != agent.RoleUser || !strings.HasPrefix(retry.Text, agent.MalformedCallText) || !strings.Contains(retry.Text, "print(get_weather(city=Paris))") {
		t.Errorf("message 2 = %+v, want a user message that begins with MalformedCallText and quotes the call", retry)
	}
	if got := model.Requests()[1].Messages; len(got) != 3 {
		t.Errorf("the second turn got %d messages, want 3", len(got))
	}
}

// TestHistoryKeepsArgsStateAndStructured checks that arguments that are
// not JSON, provider state and structured results survive a JSON round
// trip of the history exactly.
func TestHistoryKeepsArgsStateAndStructured(t *testing.T) {
	type point struct {
		X int `json:"x"`
	}
	at := tool.New("at", "Return a point.", func(ctx context.Context, a struct{}) (point, error) { return point{X: 1}, nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{at}})
	state := json.RawMessage(`{"test":{"signature":"c2ln"}}`)
	model := agenttest.NewScript(
		agent.Response{
			Calls: []agent.ToolCall{
				{ID: "a", Name: "at", Args: json.RawMessage(`{"x":`), State: state},
				{ID: "b", Name: "at", Args: json.RawMessage(`{}`)},
			},
			State: state,
		},
		agent.Response{Text: "done"},
	)
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(history[1].Calls[0].Args); got != `{"x":` {
		t.Errorf("the malformed call's Args = %s, want them verbatim", got)
	}
	if !history[2].IsError {
		t.Errorf("the malformed call's result = %+v, want an error result", history[2])
	}
	if got := string(history[3].Structured); got != `{"x":1}` {
		t.Errorf("the tool message's Structured = %s, want {\"x\":1}", got)
	}
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var back agent.History
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, history) {
		t.Errorf("after a JSON round trip:\n%+v\nwant\n%+v\n(JSON %s)", back, history, data)
	}
	if !strings.Contains(string(data), `"args":"{\"x\":"`) {
		t.Errorf("JSON %s lacks the raw arguments", data)
	}
}

// TestHistoryKeepsArgumentsByteForByte checks that a history's tool-call
// arguments come back from JSON exactly as the model wrote them, though
// encoding/json escapes <, > and & in raw JSON and drops its spaces: the
// model's context must hold what it sent.
func TestHistoryKeepsArgumentsByteForByte(t *testing.T) {
	for _, args := range []string{
		`{"q":"a -> b"}`,
		`{"html":"<b>bold</b>"}`,
		`{"q":"fish & chips"}`,
		`{"q": "spaced",  "n" : 1}`,
		"{\"q\":\"line\u2028separator\"}",
		`{"plain":"text"}`,
	} {
		history := agent.History{
			agent.UserText("go"),
			{Role: agent.RoleAssistant, Calls: []agent.ToolCall{{ID: "c1", Name: "search", Args: json.RawMessage(args)}}},
		}
		for _, marshal := range []func(any) ([]byte, error){json.Marshal, func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }} {
			data, err := marshal(history)
			if err != nil {
				t.Fatal(err)
			}
			var back agent.History
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if got := string(back[1].Calls[0].Args); got != args {
				t.Errorf("arguments %s came back from JSON as %s", args, got)
			}
		}
	}
}
