package openai_test

import (
	"net/http"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
)

// The tests in this file replay hand-written API responses
// (testdata/*.response.json, in the API's documented wire format; see
// testdata/README.md) from a local server, and compare the requests the SDK
// sent with golden files (testdata/*.request.json; go test -update rewrites
// them). Traffic recorded from the live API is replayed in recorded_test.go.

const apiKey = "sk-test-0123456789"

// The IDs of the calls in the hand-written tool-call turns.
const (
	parisCall    = "call_Qm3XyT8pLr2VwZ9aKd4FhN7s"
	atlantisCall = "call_Bv6NcR1tYe5UoP0gHs8JmW2q"
)

var apis = []struct {
	api    openai.API
	prefix string // of the testdata files
	path   string // the endpoint
	// The IDs of the hand-written tool-call turn and answer.
	callsID, answerID string
}{
	{openai.Responses, "responses", "/v1/responses", "resp_0a1b2c3d4e5f6a7b0068f1c2d3e4f5a6b7c8d9e0f1a2b3c4", "resp_0a1b2c3d4e5f6a7b0068f1c2d9e8f7a6b5c4d3e2f1a0b9c8"},
	{openai.ChatCompletions, "chat", "/v1/chat/completions", "chatcmpl-CRp2mTq8vXw1yZ3aB5cD7eF9gH1j", "chatcmpl-CRp2oKz4wNq6sYb8tLc0uMd2vOe4"},
}

// fixtureModel is the model the hand-written responses name.
const fixtureModel = "gpt-5.5-2026-04-23"

func newModel(t *testing.T, srv *replay.Server, opts openai.Options) *openai.Model {
	t.Helper()
	opts.APIKey = apiKey
	opts.BaseURL = srv.URL + "/v1"
	opts.Model = "gpt-5.5"
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1
	}
	m, err := openai.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// twoCalls returns the hand-written tool-call turn, with the response ID id.
func twoCalls(id string) *agent.Response {
	return withID(providertest.Calls("", parisCall, atlantisCall), id)
}

// answer returns the hand-written answer, with the response ID id.
func answer(id string) *agent.Response {
	return withID(&agent.Response{Text: "It is sunny and 18 degrees Celsius in Paris; I could not get the weather for Atlantis, which has no weather station."}, id)
}

// withID returns resp with the response ID id and the fixtures' model.
func withID(resp *agent.Response, id string) *agent.Response {
	resp.ID, resp.Model = id, fixtureModel
	return resp
}

// keepingExamples returns OpenAIStrict with the examples kept, as a
// compatible server that reads a schema's examples would have it.
func keepingExamples() *dialect.Dialect {
	d := dialect.OpenAIStrict()
	d.Examples = dialect.Keep
	return d
}

func TestGenerate(t *testing.T) {
	for _, api := range apis {
		for _, tt := range []struct {
			name    string // of the golden request file, after the API's prefix
			opts    openai.Options
			req     *agent.Request
			fixture string // the hand-written response, after the API's prefix
			want    *agent.Response
		}{
			{name: "tool_calls", req: providertest.FirstTurn(), fixture: "tool_calls", want: twoCalls(api.callsID)},
			{name: "answer", req: providertest.SecondTurn("Let me look both up.", parisCall, atlantisCall), fixture: "answer", want: answer(api.answerID)},
			// Responses: the PNG goes as an input_image, the rest of the
			// parts as input_text around it; Chat: the text.
			{name: "parts_result", req: providertest.PartsTurn("Let me look both up.", parisCall, atlantisCall, true), fixture: "answer", want: answer(api.answerID)},
			{name: "parts_text", req: providertest.PartsTurn("Let me look both up.", parisCall, atlantisCall, false), fixture: "answer", want: answer(api.answerID)},
			{name: "schemas", req: providertest.SchemaTurn(), fixture: "tool_calls", want: twoCalls(api.callsID)},
			{name: "non_strict", opts: openai.Options{NonStrict: true, MaxTokens: 1024}, req: providertest.SchemaTurn(), fixture: "tool_calls", want: twoCalls(api.callsID)},
			// The examples end the description; with a dialect that
			// keeps them, they are the parameters' root examples.
			{name: "examples", req: providertest.ExamplesTurn(), fixture: "tool_calls", want: twoCalls(api.callsID)},
			{name: "examples_kept", opts: openai.Options{NonStrict: true, Dialect: keepingExamples()}, req: providertest.ExamplesTurn(), fixture: "tool_calls", want: twoCalls(api.callsID)},
		} {
			t.Run(api.prefix+"/"+tt.name, func(t *testing.T) {
				srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+api.prefix+"_"+tt.fixture+".response.json")))
				tt.opts.API = api.api
				m := newModel(t, srv, tt.opts)
				providertest.Generate(t, m, tt.req, tt.want)
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("the server got %d requests, want 1", len(reqs))
				}
				if got, want := reqs[0].Path, api.path; got != want {
					t.Errorf("request path = %s, want %s", got, want)
				}
				if got, want := reqs[0].Header.Get("Authorization"), "Bearer "+apiKey; got != want {
					t.Errorf("Authorization = %q, want %q", got, want)
				}
				golden.Check(t, "testdata/"+api.prefix+"_"+tt.name+".request.json", reqs[0].Golden())
			})
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, api := range apis {
		for _, tt := range []struct {
			fixture string
			status  int
			kind    error
			code    string
		}{
			{"error_400", http.StatusBadRequest, provider.ErrInvalidRequest, "invalid_function_parameters"},
			{"error_429", http.StatusTooManyRequests, provider.ErrRateLimit, "rate_limit_exceeded"},
		} {
			t.Run(api.prefix+"/"+tt.fixture, func(t *testing.T) {
				srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
				m := newModel(t, srv, openai.Options{API: api.api})
				resp, err := m.Generate(t.Context(), providertest.FirstTurn())
				if err == nil {
					t.Fatalf("Generate = %s, nil; want an error", providertest.Show(resp))
				}
				providertest.APIError(t, err, "openai", tt.status, tt.kind, tt.code)
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("the server got %d requests, want 1 (MaxRetries < 0 disables retries)", n)
				}
			})
		}
	}
}

// TestRetry checks that MaxRetries reaches the SDK: a 503 is sent again.
func TestRetry(t *testing.T) {
	for _, api := range apis {
		t.Run(api.prefix, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Sequence(t,
				replay.Load(t, "testdata/error_503.response.json"),
				replay.Load(t, "testdata/"+api.prefix+"_answer.response.json")))
			m := newModel(t, srv, openai.Options{API: api.api, MaxRetries: 1})
			providertest.Generate(t, m, providertest.FirstTurn(), answer(api.answerID))
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("the server got %d requests, want 2", n)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	for _, api := range apis {
		t.Run(api.prefix, func(t *testing.T) {
			srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
				replay.Load(t, "testdata/"+api.prefix+"_tool_calls.response.json"),
				replay.Load(t, "testdata/"+api.prefix+"_answer.response.json")))
			agenttest.TestModel(t, newModel(t, srv, openai.Options{API: api.api}))
		})
	}
}

func TestNew(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *openai.Options
		ok   bool
	}{
		{"nil", nil, false},
		{"no model", &openai.Options{APIKey: apiKey}, false},
		{"unknown API", &openai.Options{Model: "gpt-5.5", API: "completions"}, false},
		{"default API", &openai.Options{Model: "gpt-5.5", APIKey: apiKey}, true},
		{"chat", &openai.Options{Model: "gpt-5.5", APIKey: apiKey, API: openai.ChatCompletions}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := openai.New(tt.opts)
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
		m, err := openai.New(&openai.Options{Model: "gpt-5.5", APIKey: apiKey, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Streams(); got != stream {
			t.Errorf("with Stream %v, Streams() = %v", stream, got)
		}
	}
}
