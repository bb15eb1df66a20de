package gemini_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/provider/gemini"
	"github.com/hands-go/hands/provider/internal/providertest"
)

// The tests in this file replay hand-written API responses
// (testdata/*.response.json, in the API's documented wire format; see
// testdata/README.md) from a local server, and compare the requests the SDK
// sent with golden files (testdata/*.request.json; go test -update rewrites
// them). Traffic recorded from the live API is replayed in recorded_test.go.

const (
	apiKey = "AIza-test-0123456789"
	model  = "gemini-3-flash"
	path   = "/v1beta/models/gemini-3-flash:generateContent"
)

func newModel(t *testing.T, srv *replay.Server, opts gemini.Options) *gemini.Model {
	t.Helper()
	opts.APIKey = apiKey
	opts.BaseURL = srv.URL
	opts.Model = model
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1
	}
	m, err := gemini.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The hand-written tool-call turns: one without call IDs, from which the Model
// makes IDs out of the response's ID, and one with them.
var (
	callsWithoutIDs = withID(providertest.Calls("", "call_kCjxaPzEFo2vz7IPpL7n4AQ_1", "call_kCjxaPzEFo2vz7IPpL7n4AQ_2"), "kCjxaPzEFo2vz7IPpL7n4AQ")
	callsWithIDs    = withID(providertest.Calls("Checking both cities.", "wx7p2k9d", "q3m8z1v5"), "pDnxaLa1NeCqz7IP0sW3kAE")
	answer          = withID(&agent.Response{Text: "It is sunny and 18 degrees Celsius in Paris, but I could not get the weather for Atlantis because there is no weather station there."}, "sDnxaMe8J7Sqz7IPrKb1wAg")
)

// withID returns resp with the response ID id and the model version the
// hand-written fixtures give.
func withID(resp *agent.Response, id string) *agent.Response {
	resp.ID, resp.Model = id, model
	return resp
}

func TestGenerate(t *testing.T) {
	for _, tt := range []struct {
		name    string // of the golden request file
		opts    gemini.Options
		req     *agent.Request
		fixture string
		want    *agent.Response
	}{
		{name: "tool_calls", req: providertest.FirstTurn(), fixture: "tool_calls", want: callsWithoutIDs},
		{name: "tool_calls_ids", req: providertest.FirstTurn(), fixture: "tool_calls_ids", want: callsWithIDs},
		{
			// The Model did not return these calls, so it sends neither
			// IDs nor thought signatures with them.
			name: "answer", req: providertest.SecondTurn("Checking both cities.", "toolu_1", "toolu_2"),
			fixture: "answer", want: answer,
		},
		{
			// The PNG goes as inline data of the functionResponse's parts;
			// the output is the text, with a note of each part.
			name: "parts_result", req: providertest.PartsTurn("Checking both cities.", "toolu_1", "toolu_2", true),
			fixture: "answer", want: answer,
		},
		{name: "parts_text", req: providertest.PartsTurn("Checking both cities.", "toolu_1", "toolu_2", false), fixture: "answer", want: answer},
		{name: "schemas", opts: gemini.Options{MaxTokens: 1024}, req: providertest.SchemaTurn(), fixture: "tool_calls", want: callsWithoutIDs},
		{name: "json_schema", opts: gemini.Options{JSONSchema: true}, req: providertest.SchemaTurn(), fixture: "tool_calls", want: callsWithoutIDs},
		// The examples end the description, in either form of schema.
		{name: "examples", req: providertest.ExamplesTurn(), fixture: "tool_calls", want: callsWithoutIDs},
		{name: "json_schema_examples", opts: gemini.Options{JSONSchema: true}, req: providertest.ExamplesTurn(), fixture: "tool_calls", want: callsWithoutIDs},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			m := newModel(t, srv, tt.opts)
			providertest.Generate(t, m, tt.req, tt.want)
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the server got %d requests, want 1", len(reqs))
			}
			if reqs[0].Path != path {
				t.Errorf("request path = %s, want %s", reqs[0].Path, path)
			}
			if got := reqs[0].Header.Get("X-Goog-Api-Key"); got != apiKey {
				t.Errorf("X-Goog-Api-Key = %q, want %q", got, apiKey)
			}
			golden.Check(t, "testdata/"+tt.name+".request.json", reqs[0].Golden())
		})
	}
}

// TestSecondTurn checks what goes back of the calls a Model returned — the
// thought signature that came with the first call, and the API's IDs when
// it gave some — after a JSON round trip of the history, from a Model made
// afresh, as another process would send it.
func TestSecondTurn(t *testing.T) {
	for _, fixture := range []string{"tool_calls", "tool_calls_ids"} {
		t.Run(fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
				replay.Load(t, "testdata/"+fixture+".response.json"),
				replay.Load(t, "testdata/answer.response.json")))
			history := providertest.Resume(t, newModel(t, srv, gemini.Options{}), newModel(t, srv, gemini.Options{}))
			if got := history[len(history)-1].Text; got != answer.Text {
				t.Errorf("the answer = %q, want %q", got, answer.Text)
			}
			golden.Check(t, "testdata/"+fixture+"_second_turn.request.json", srv.Requests()[1].Golden())
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tt := range []struct {
		fixture string
		status  int // 0: not an error status
		kind    error
		code    string
	}{
		{"error_400", http.StatusBadRequest, provider.ErrInvalidRequest, "INVALID_ARGUMENT"},
		{"error_429", http.StatusTooManyRequests, provider.ErrRateLimit, "RESOURCE_EXHAUSTED"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/"+tt.fixture+".response.json")))
			m := newModel(t, srv, gemini.Options{})
			resp, err := m.Generate(t.Context(), providertest.FirstTurn())
			if err == nil {
				t.Fatalf("Generate = %s, nil; want an error", providertest.Show(resp))
			}
			if tt.status == 0 {
				if _, ok := errors.AsType[*provider.Error](err); ok {
					t.Errorf("Generate: %v; want an error that is not a *provider.Error", err)
				}
				return
			}
			providertest.APIError(t, err, "gemini", tt.status, tt.kind, tt.code)
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("the server got %d requests, want 1 (MaxRetries < 0 disables retries)", n)
			}
		})
	}
}

// TestRetry checks that MaxRetries reaches the SDK: a 503 is sent again,
// after the SDK's own delay of a second or two.
func TestRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the SDK's retry delay")
	}
	srv := replay.NewServer(t, replay.Sequence(t,
		replay.Load(t, "testdata/error_503.response.json"),
		replay.Load(t, "testdata/answer.response.json")))
	m := newModel(t, srv, gemini.Options{MaxRetries: 1})
	providertest.Generate(t, m, providertest.FirstTurn(), answer)
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the server got %d requests, want 2", n)
	}
}

func TestConformance(t *testing.T) {
	for _, fixture := range []string{"tool_calls", "tool_calls_ids"} {
		t.Run(fixture, func(t *testing.T) {
			srv := replay.NewServer(t, replay.AfterResult(agenttest.WeatherReport,
				replay.Load(t, "testdata/"+fixture+".response.json"),
				replay.Load(t, "testdata/answer.response.json")))
			agenttest.TestModel(t, newModel(t, srv, gemini.Options{}))
		})
	}
}

func TestNew(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "")
	for _, tt := range []struct {
		name string
		opts *gemini.Options
		ok   bool
	}{
		{"nil", nil, false},
		{"no model", &gemini.Options{APIKey: apiKey}, false},
		{"no API key", &gemini.Options{Model: model}, false},
		{"defaults", &gemini.Options{Model: model, APIKey: apiKey}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := gemini.New(tt.opts)
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
		m, err := gemini.New(&gemini.Options{Model: model, APIKey: apiKey, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Streams(); got != stream {
			t.Errorf("with Stream %v, Streams() = %v", stream, got)
		}
	}
}
