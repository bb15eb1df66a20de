package anthropic_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/provider/anthropic"
	"github.com/hands-go/hands/provider/internal/providertest"
)

// The tests in this file replay hand-written API responses
// (testdata/*.response.json, in the API's documented wire format; see
// testdata/README.md) from a local server, and compare the requests the SDK
// sent with golden files (testdata/*.request.json; go test -update rewrites
// them). Traffic recorded from the live API is replayed in recorded_test.go.

const apiKey = "sk-ant-test-0123456789"

// The IDs of the calls in the hand-written tool-call turn.
const (
	parisCall    = "toolu_01K7nWq3Xp9sLm2Vd5Rt8Hc4"
	atlantisCall = "toolu_01Fz6Yb2Jh8Ne4Qa1Uc7Gs3w"
)

func newModel(t *testing.T, srv *replay.Server, opts anthropic.Options) *anthropic.Model {
	t.Helper()
	opts.APIKey = apiKey
	opts.BaseURL = srv.URL
	opts.Model = "claude-sonnet-5-5"
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1
	}
	m, err := anthropic.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const callText = "I'll check the weather in both cities."

// The IDs of the hand-written messages, and the model they name.
const (
	callsMessage  = "msg_01Q8vX3kTz5nHw7pRb2LcY9m"
	answerMessage = "msg_01R9wY4lUa6oIx8qSc3MdZ0n"
	fixtureModel  = "claude-sonnet-5-5"
)

var (
	twoCalls = withID(providertest.Calls(callText, parisCall, atlantisCall), callsMessage)
	answer   = &agent.Response{
		Text: "It's sunny and 18 degrees Celsius in Paris; there is no weather station in Atlantis, so I couldn't get a report for it.",
		ID:   answerMessage, Model: fixtureModel,
	}
)

// withID returns resp with the ID id and the fixtures' model.
func withID(resp *agent.Response, id string) *agent.Response {
	resp.ID, resp.Model = id, fixtureModel
	return resp
}

// emptyResult is the second turn with an empty result for Paris, which
// goes back as a tool_result without content: the API rejects an empty text
// block.
func emptyResult() *agent.Request {
	req := providertest.SecondTurn(callText, parisCall, atlantisCall)
	req.Messages[2].Text = ""
	return req
}

func TestGenerate(t *testing.T) {
	for _, tt := range []struct {
		name    string // of the golden request file
		opts    anthropic.Options
		req     *agent.Request
		fixture string
		want    *agent.Response
	}{
		{name: "tool_calls", req: providertest.FirstTurn(), fixture: "tool_calls", want: twoCalls},
		{name: "answer", req: providertest.SecondTurn(callText, parisCall, atlantisCall), fixture: "answer", want: answer},
		{
			// A user's text after the results joins them in one user
			// message, and an empty assistant turn is dropped, so that the
			// roles alternate.
			name: "joined",
			req: providertest.SecondTurn(callText, parisCall, atlantisCall,
				agent.Message{Role: agent.RoleAssistant},
				agent.UserText("And in Oslo?"),
			),
			fixture: "answer", want: answer,
		},
		{name: "empty_result", req: emptyResult(), fixture: "answer", want: answer},
		{
			// The PNG goes as an image block; the rest of the parts,
			// the SVG included, as text blocks around it.
			name: "parts_result", req: providertest.PartsTurn(callText, parisCall, atlantisCall, true),
			fixture: "answer", want: answer,
		},
		{
			// Without an image the API takes, the result is its text.
			name: "parts_text", req: providertest.PartsTurn(callText, parisCall, atlantisCall, false),
			fixture: "answer", want: answer,
		},
		{name: "schemas", req: providertest.SchemaTurn(), fixture: "tool_calls", want: twoCalls},
		{name: "strict", opts: anthropic.Options{Strict: true, MaxTokens: 1024}, req: providertest.SchemaTurn(), fixture: "tool_calls", want: twoCalls},
		// The examples go as input_examples, as written, with or
		// without strict tool use.
		{name: "examples", req: providertest.ExamplesTurn(), fixture: "tool_calls", want: twoCalls},
		{name: "examples_strict", opts: anthropic.Options{Strict: true, MaxTokens: 1024}, req: providertest.ExamplesTurn(), fixture: "tool_calls", want: twoCalls},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			m := newModel(t, srv, tt.opts)
			providertest.Generate(t, m, tt.req, tt.want)
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the server got %d requests, want 1", len(reqs))
			}
			if got, want := reqs[0].Header.Get("Authorization"), "Bearer "+apiKey; got != want {
				t.Errorf("Authorization = %q, want %q", got, want)
			}
			if reqs[0].Header.Get("Anthropic-Version") == "" {
				t.Error("no Anthropic-Version header")
			}
			golden.Check(t, "testdata/"+tt.name+".request.json", reqs[0].Golden())
		})
	}
}

// TestInputExamples checks the shape the examples are sent in: the tool's
// input_examples, each example as the tool wrote it (its keys in the order
// of the schema's properties), with no beta header; and a tool without
// examples has no input_examples.
func TestInputExamples(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/tool_calls.response.json")))
	providertest.Generate(t, newModel(t, srv, anthropic.Options{}), providertest.ExamplesTurn(), twoCalls)
	req := srv.Requests()[0]
	const want = `"name":"get_forecast","description":"Forecast the weather in a city.","input_examples":[{"city":"Paris"},{"city":"Lima","days":3,"units":"fahrenheit"}]`
	if !bytes.Contains(req.Body, []byte(want)) {
		t.Errorf("the request\n%s\ndoes not carry %s", req.Body, want)
	}
	if n := bytes.Count(req.Body, []byte(`"input_examples"`)); n != 1 {
		t.Errorf("the request has input_examples %d times, want once: the tool without examples has none", n)
	}
	if beta := req.Header.Values("Anthropic-Beta"); len(beta) != 0 {
		t.Errorf("the request has the beta header %q, want none", beta)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		status  int
		kind    error
		code    string
	}{
		{"error_400", http.StatusBadRequest, provider.ErrInvalidRequest, "invalid_request_error"},
		{"error_429", http.StatusTooManyRequests, provider.ErrRateLimit, "rate_limit_error"},
		{"error_529", 529, provider.ErrUnavailable, "overloaded_error"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			m := newModel(t, srv, anthropic.Options{})
			resp, err := m.Generate(t.Context(), providertest.FirstTurn())
			if err == nil {
				t.Fatalf("Generate = %s, nil; want an error", providertest.Show(resp))
			}
			providertest.APIError(t, err, "anthropic", tt.status, tt.kind, tt.code)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("the server got %d requests, want 1 (MaxRetries < 0 disables retries)", n)
			}
		})
	}
}

// TestRetry checks that MaxRetries reaches the SDK: an overload is sent
// again.
func TestRetry(t *testing.T) {
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, "testdata/error_529_retry.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	m := newModel(t, srv, anthropic.Options{MaxRetries: 1})
	providertest.Generate(t, m, providertest.FirstTurn(), answer)
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the server got %d requests, want 2", n)
	}
}

func TestConformance(t *testing.T) {
	srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
		replay.Load(t, "testdata/tool_calls.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	agenttest.TestModel(t, newModel(t, srv, anthropic.Options{}))
}

func TestNew(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *anthropic.Options
		ok   bool
	}{
		{"nil", nil, false},
		{"no model", &anthropic.Options{APIKey: apiKey}, false},
		{"negative max tokens", &anthropic.Options{Model: "claude-sonnet-5-5", MaxTokens: -1}, false},
		{"negative thinking budget", &anthropic.Options{Model: "claude-sonnet-5-5", ThinkingBudget: -1}, false},
		{"thinking budget above max tokens", &anthropic.Options{Model: "claude-sonnet-5-5", ThinkingBudget: anthropic.DefaultMaxTokens}, false},
		{"thinking", &anthropic.Options{Model: "claude-sonnet-5-5", APIKey: apiKey, MaxTokens: 16000, ThinkingBudget: 10000}, true},
		{"defaults", &anthropic.Options{Model: "claude-sonnet-5-5", APIKey: apiKey}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := anthropic.New(tt.opts)
			if tt.ok && (err != nil || m == nil) {
				t.Errorf("New(%+v) = %v, %v; want a model", tt.opts, m, err)
			}
			if !tt.ok && err == nil {
				t.Errorf("New(%+v) = %v, nil; want an error", tt.opts, m)
			}
		})
	}
}

// TestStreams checks that Streams reports Options.Stream, which tracing
// records as gen_ai.request.stream: Stream always exists, and streams only
// when asked to.
func TestStreams(t *testing.T) {
	for _, stream := range []bool{false, true} {
		m, err := anthropic.New(&anthropic.Options{Model: "claude-sonnet-5-5", APIKey: apiKey, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Streams(); got != stream {
			t.Errorf("with Stream %v, Streams() = %v", stream, got)
		}
	}
}
