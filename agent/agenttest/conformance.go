package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/tool"
)

// The exchange that TestModel drives. A recording or a script of it has the
// model call WeatherTool for Paris and for Atlantis in one turn, then, once
// it has read the results, answer in text that repeats the temperature in
// WeatherReport.
const (
	// System is the system prompt of the exchange.
	System = "You are a weather assistant. Call the get_weather tool once for every city the user names, all in one turn, then answer in one sentence."
	// Prompt is the user's message.
	Prompt = "What is the weather in Paris and in Atlantis?"
	// WeatherTool is the one tool offered. Its arguments are
	// {"city": string}.
	WeatherTool = "get_weather"
	// WeatherReport is the tool's result for Paris. It appears in a request
	// only once the tool has run, so a replay server can key on it.
	WeatherReport = "Paris: sunny, 18 degrees Celsius"
	// NoStation begins the tool's error for any other city.
	NoStation = "no weather station in"
)

// Weather returns the tool of the exchange: it reports WeatherReport for
// Paris and fails for any other city, so that both a result and an error
// result go back to the model.
func Weather() *tool.Tool[WeatherArgs, string] {
	return tool.New(WeatherTool, "Report the current weather in a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			if strings.EqualFold(a.City, "Paris") {
				return WeatherReport, nil
			}
			return "", fmt.Errorf("%s %s", NoStation, a.City)
		})
}

// WeatherArgs are the arguments of WeatherTool.
type WeatherArgs struct {
	City string `json:"city" jsonschema:"the city's name, such as Paris"`
}

// TestModel checks that m keeps the agent.Model contract, in the spirit of
// testing/slogtest. It runs subtests of t:
//
//   - ToolRoundTrip drives agent.Run through the exchange described by
//     Prompt: the model must call WeatherTool with an object of arguments,
//     give every call an ID that is unique in the conversation, receive each
//     result matched to its call (one of them an error), and then answer in
//     text that uses the result.
//     The model gets each request's messages after a JSON round trip, as
//     a run resumed in another process would, so whatever it needs to
//     continue must be in the history's State.
//   - ToolRoundTrip/Unmodified checks that Generate left every request of
//     that exchange as it found it.
//   - ToolRoundTrip/FinishReason checks, when the model reports finish
//     reasons, that the turn with calls reports agent.FinishToolCalls and
//     the answer agent.FinishStop.
//   - Stream, when m is an agent.StreamingModel, checks the exchange's first
//     turn, which ToolRoundTrip ran through Stream (and the later turns
//     through Generate): that it yielded deltas, then exactly one response,
//     last, and that the deltas add up to it: their text to its text, each
//     call's pieces to the call's ID, name and arguments.
//   - Canceled checks that Generate with a cancelled context returns an
//     error that matches context.Canceled.
//
// m may be a live model, or an adapter pointed at a server that replays
// the exchange, recorded or written by hand: first a turn that calls
// WeatherTool for Paris and for Atlantis, then, once a request carries
// WeatherReport, the answer. TestModel asks m for those two responses and
// no more, so a script of the two turns (see NewStreamScript) passes it; a
// call with a cancelled context must not count as one.
func TestModel(t *testing.T, m agent.Model) {
	t.Helper()
	var first []agent.Chunk // the first turn's chunks, when m streams
	t.Run("ToolRoundTrip", func(t *testing.T) { first = testRoundTrip(t, m) })
	if _, ok := m.(agent.StreamingModel); ok {
		t.Run("Stream", func(t *testing.T) { testStream(t, first) })
	}
	t.Run("Canceled", func(t *testing.T) { testCanceled(t, m) })
}

// testRoundTrip runs the exchange and checks it. When m streams, the first
// turn goes through Stream, and testRoundTrip returns its chunks.
func testRoundTrip(t *testing.T, m agent.Model) []agent.Chunk {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{Weather()}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{model: m}
	var model agent.Model = rec
	if sm, ok := m.(agent.StreamingModel); ok {
		model = &streamRecorder{recorder: rec, streaming: sm}
	}
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText(Prompt)}, &agent.Options{System: System, MaxTurns: 4})
	if err != nil {
		t.Fatalf("agent.Run: %v\nhistory: %s", err, dump(history))
	}
	t.Run("Unmodified", func(t *testing.T) {
		for _, msg := range rec.modified() {
			t.Error(msg)
		}
	})
	t.Run("FinishReason", func(t *testing.T) {
		for i, resp := range rec.responses() {
			want := agent.FinishStop
			if len(resp.Calls) > 0 {
				want = agent.FinishToolCalls
			}
			if resp.FinishReason != "" && resp.FinishReason != want {
				t.Errorf("turn %d: FinishReason %q (%s), want %q", i+1, resp.FinishReason, resp.RawFinishReason, want)
			}
		}
	})

	calls := 0
	seen := map[string]bool{}
	for i := 0; i < len(history); i++ {
		msg := history[i]
		if msg.Role != agent.RoleAssistant || len(msg.Calls) == 0 {
			continue
		}
		for j, c := range msg.Calls {
			calls++
			if c.ID == "" {
				t.Errorf("message %d, call %d: no ID", i, j)
			}
			if seen[c.ID] {
				t.Errorf("message %d, call %d: ID %q used twice", i, j, c.ID)
			}
			seen[c.ID] = true
			if c.Name != WeatherTool {
				t.Errorf("message %d, call %d: name %q, want %q", i, j, c.Name, WeatherTool)
			}
			var args map[string]any
			if err := json.Unmarshal(c.Args, &args); err != nil || args == nil {
				t.Errorf("message %d, call %d: arguments %s are not a JSON object", i, j, c.Args)
			}
			// agent.Run answers every call with the next tool message.
			if k := i + 1 + j; k >= len(history) || history[k].Role != agent.RoleTool || history[k].CallID != c.ID {
				t.Errorf("message %d, call %d (%s): no result right after it", i, j, c.ID)
			}
		}
	}
	if calls == 0 {
		t.Fatalf("the model never called %s; history: %s", WeatherTool, dump(history))
	}

	// The model must have been shown every result, with its call, before it
	// answered.
	reqs := rec.requests()
	final := reqs[len(reqs)-1]
	for _, want := range history[:len(history)-1] {
		if want.Role == agent.RoleTool && !hasMessage(final.Messages, want) {
			t.Errorf("the last request lacks the result of call %s", want.CallID)
		}
	}

	last := history[len(history)-1]
	switch {
	case last.Role != agent.RoleAssistant || len(last.Calls) != 0:
		t.Errorf("the conversation ends with %s message %+v, want an assistant's answer without calls", last.Role, last)
	case strings.TrimSpace(last.Text) == "":
		t.Error("the final answer is empty")
	case !strings.Contains(last.Text, "18"):
		t.Errorf("the final answer %q does not use the tool's result %q", last.Text, WeatherReport)
	}
	return rec.firstChunks()
}

// testStream checks the chunks Stream yielded for the exchange's first
// turn.
func testStream(t *testing.T, chunks []agent.Chunk) {
	if len(chunks) == 0 {
		t.Fatal("the exchange's first turn did not run through Stream")
	}
	var (
		resp  *agent.Response
		text  string
		calls []agent.ToolCall
	)
	for _, chunk := range chunks {
		if resp != nil {
			t.Fatal("Stream yielded a chunk after the response")
		}
		if chunk.Response != nil {
			resp = chunk.Response
			continue
		}
		text += chunk.Delta.Text
		if c := chunk.Delta.Call; c != nil {
			if c.Index < 0 || c.Index > len(calls) {
				t.Fatalf("Stream: a delta of call %d after %d calls", c.Index, len(calls))
			}
			if c.Index == len(calls) {
				calls = append(calls, agent.ToolCall{})
			}
			calls[c.Index].ID += c.ID
			calls[c.Index].Name += c.Name
			calls[c.Index].Args = append(calls[c.Index].Args, c.Args...)
		}
	}
	if resp == nil {
		t.Fatal("Stream yielded no response")
	}
	if text != "" && text != resp.Text {
		t.Errorf("the text deltas add up to %q, want the response's %q", text, resp.Text)
	}
	if len(calls) > 0 {
		if len(calls) != len(resp.Calls) {
			t.Fatalf("the deltas hold %d calls, want the response's %d", len(calls), len(resp.Calls))
		}
		for i, c := range calls {
			w := resp.Calls[i]
			if c.ID != w.ID && c.ID != "" || c.Name != w.Name || !bytes.Equal(c.Args, w.Args) {
				t.Errorf("the deltas of call %d add up to %s %s %s, want %s %s %s", i, c.ID, c.Name, c.Args, w.ID, w.Name, w.Args)
			}
		}
	}
}

func testCanceled(t *testing.T, m agent.Model) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req := &agent.Request{System: System, Messages: []agent.Message{agent.UserText(Prompt)}, Tools: []tool.Spec{Weather().Spec()}}
	resp, err := m.Generate(ctx, req)
	if err == nil {
		t.Fatalf("Generate with a cancelled context = %+v, nil; want an error", resp)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Generate with a cancelled context: %v; want an error that matches context.Canceled", err)
	}
}

func hasMessage(msgs []agent.Message, want agent.Message) bool {
	for _, m := range msgs {
		if m.Role == want.Role && m.CallID == want.CallID && m.Text == want.Text && m.IsError == want.IsError {
			return true
		}
	}
	return false
}

func dump(h agent.History) string {
	data, _ := json.MarshalIndent(h, "", "  ")
	return string(data)
}

// A recorder passes requests to a model, with their messages after a JSON
// round trip, and notes any that the model changed.
type recorder struct {
	model agent.Model

	mu      sync.Mutex
	reqs    []agent.Request
	resps   []agent.Response
	changes []string
	chunks  []agent.Chunk // of the first turn, when it was streamed
}

func (r *recorder) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return r.record(ctx, req, r.model.Generate)
}

// record passes req, after a JSON round trip of its messages, to turn, and
// records the request, the response and any change turn made to the
// request.
func (r *recorder) record(ctx context.Context, req *agent.Request, turn func(context.Context, *agent.Request) (*agent.Response, error)) (*agent.Response, error) {
	msgs, err := json.Marshal(req.Messages)
	if err != nil {
		return nil, err
	}
	decoded := *req
	decoded.Messages = nil
	if err := json.Unmarshal(msgs, &decoded.Messages); err != nil {
		return nil, err
	}
	req = &decoded
	before, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	resp, err := turn(ctx, req)
	after, merr := json.Marshal(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, *req)
	if resp != nil {
		r.resps = append(r.resps, *resp)
	}
	if merr != nil || !bytes.Equal(before, after) {
		r.changes = append(r.changes, fmt.Sprintf("turn %d: Generate changed its request\nbefore: %s\nafter:  %s", len(r.reqs), before, after))
	}
	return resp, err
}

// firstChunks returns the chunks of the first turn, when it was streamed.
func (r *recorder) firstChunks() []agent.Chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.chunks)
}

// A streamRecorder is the recorder of a model that streams: it runs the
// first turn through the model's Stream, keeping its chunks, and the
// others through Generate, as one response each.
type streamRecorder struct {
	*recorder
	streaming agent.StreamingModel
}

func (r *streamRecorder) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		r.mu.Lock()
		first := len(r.reqs) == 0
		r.mu.Unlock()
		turn := r.model.Generate
		if first {
			turn = func(ctx context.Context, req *agent.Request) (*agent.Response, error) {
				var resp *agent.Response
				for chunk, err := range r.streaming.Stream(ctx, req) {
					if err != nil {
						return nil, err
					}
					r.mu.Lock()
					r.chunks = append(r.chunks, chunk)
					r.mu.Unlock()
					if chunk.Response != nil && resp == nil {
						resp = chunk.Response // and on: testStream checks that nothing follows it
					}
				}
				if resp == nil {
					return nil, errors.New("agenttest: Stream yielded no response")
				}
				return resp, nil
			}
		}
		resp, err := r.record(ctx, req, turn)
		if err != nil {
			yield(agent.Chunk{}, err)
			return
		}
		yield(agent.Chunk{Response: resp}, nil)
	}
}

func (r *recorder) requests() []agent.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Request(nil), r.reqs...)
}

func (r *recorder) responses() []agent.Response {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Response(nil), r.resps...)
}

func (r *recorder) modified() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.changes...)
}
