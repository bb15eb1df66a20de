package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/tool"
)

// FirstTurn returns the request of the exchange's first turn.
func FirstTurn() *agent.Request {
	return &agent.Request{
		System:   agenttest.System,
		Messages: []agent.Message{agent.UserText(agenttest.Prompt)},
		Tools:    []tool.Spec{agenttest.Weather().Spec()},
	}
}

// SecondTurn returns the request of the exchange's second turn: the model
// said text and called the tool for Paris with ID parisID and for Atlantis
// with ID atlantisID, and the call for Atlantis failed. The messages in
// more follow.
func SecondTurn(text, parisID, atlantisID string, more ...agent.Message) *agent.Request {
	req := FirstTurn()
	req.Messages = append(req.Messages, ExchangeCalls(text, parisID, atlantisID)...)
	req.Messages = append(req.Messages, more...)
	return req
}

// ExchangeCalls returns the assistant's message with the two calls, and
// their results as agent.Run records them.
func ExchangeCalls(text, parisID, atlantisID string) []agent.Message {
	return []agent.Message{
		{Role: agent.RoleAssistant, Text: text, Calls: []agent.ToolCall{
			agenttest.Call(parisID, agenttest.WeatherTool, `{"city":"Paris"}`),
			agenttest.Call(atlantisID, agenttest.WeatherTool, `{"city":"Atlantis"}`),
		}},
		{Role: agent.RoleTool, CallID: parisID, Name: agenttest.WeatherTool, Text: agenttest.WeatherReport},
		{Role: agent.RoleTool, CallID: atlantisID, Name: agenttest.WeatherTool, Text: agenttest.NoStation + " Atlantis", IsError: true},
	}
}

// Chart is the image in PartsTurn's result: the eight bytes that open
// every PNG file, enough for a request to carry.
var Chart = []byte("\x89PNG\r\n\x1a\n")

// PartsTurn returns the exchange's second turn with a rich result for
// Paris, as agent.Run records a tool whose output is parts: the report as
// text, a PNG image (when png is true), an image in a type no provider
// takes (SVG), audio, a text resource and a link, with their text
// rendering as the message's Text.
func PartsTurn(text, parisID, atlantisID string, png bool) *agent.Request {
	req := SecondTurn(text, parisID, atlantisID)
	parts := []tool.Part{tool.Text(agenttest.WeatherReport)}
	if png {
		parts = append(parts, tool.Image("image/png", Chart))
	}
	parts = append(parts,
		tool.Image("image/svg+xml", []byte("<svg/>")),
		tool.Audio("audio/wav", []byte("RIFF")),
		tool.Resource("file:///paris/forecast.txt", "text/plain", "Rain tomorrow."),
		tool.Link("https://example.com/paris", "forecast", "text/html"),
	)
	req.Messages[2].Text = tool.PartsText(parts)
	req.Messages[2].Parts = parts
	return req
}

// Calls returns the response of the exchange's first turn.
func Calls(text, parisID, atlantisID string) *agent.Response {
	return &agent.Response{Text: text, Calls: ExchangeCalls(text, parisID, atlantisID)[0].Calls}
}

// ForecastArgs has an optional property with a default and bounds, and an
// enum: what strict dialects must rewrite.
type ForecastArgs struct {
	City  string `json:"city" jsonschema:"the city's name"`
	Days  int    `json:"days,omitempty" jsonschema:"how many days ahead" tool:"minimum=1,maximum=7,default=1"`
	Units string `json:"units,omitempty" jsonschema:"the temperature's units" tool:"enum=celsius|fahrenheit"`
}

// SchemaTurn returns a first turn that offers, beside the exchange's tool,
// a forecast tool with ForecastArgs and a tool without arguments.
func SchemaTurn() *agent.Request {
	forecast := tool.New("get_forecast", "Forecast the weather in a city.",
		func(ctx context.Context, a ForecastArgs) (string, error) { return "", nil })
	cities := tool.New("list_cities", "List the cities that have a weather station.",
		func(ctx context.Context, _ struct{}) ([]string, error) { return nil, nil })
	req := FirstTurn()
	req.Tools = append(req.Tools, forecast.Spec(), cities.Spec())
	return req
}

// ExamplesTurn returns a first turn that offers, beside the exchange's
// tool, a forecast tool with two examples of its calls: one with the city
// alone, one with every argument, in the order of the schema's
// properties.
func ExamplesTurn() *agent.Request {
	forecast := tool.New("get_forecast", "Forecast the weather in a city.",
		func(ctx context.Context, a ForecastArgs) (string, error) { return "", nil },
		tool.WithExamples(ForecastArgs{City: "Paris"}, ForecastArgs{City: "Lima", Days: 3, Units: "fahrenheit"}))
	req := FirstTurn()
	req.Tools = append(req.Tools, forecast.Spec())
	return req
}

// Generate runs one turn of m and fails the test when the response is not
// want, in the fields want sets: text and calls always; the finish
// reasons, the state, the calls' state and the usage when want has them.
func Generate(t testing.TB, m agent.Model, req *agent.Request, want *agent.Response) *agent.Response {
	t.Helper()
	got, err := m.Generate(t.Context(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if p := Project(got, want); !reflect.DeepEqual(p, want) {
		t.Errorf("Generate = %s, want %s", Show(p), Show(want))
	}
	return got
}

// Project returns a copy of got with only the fields that want sets, as
// Generate compares them.
func Project(got, want *agent.Response) *agent.Response {
	p := *got
	if want.FinishReason == "" {
		p.FinishReason, p.RawFinishReason = "", ""
	}
	if want.FinishMessage == "" {
		p.FinishMessage = ""
	}
	if want.State == nil {
		p.State = nil
	}
	if want.Usage == (agent.Usage{}) {
		p.Usage = agent.Usage{}
	}
	if !slices.ContainsFunc(want.Calls, func(c agent.ToolCall) bool { return c.State != nil }) {
		p.Calls = slices.Clone(p.Calls)
		for i := range p.Calls {
			p.Calls[i].State = nil
		}
	}
	return &p
}

// APIError fails the test unless err, from Generate, matches kind and holds
// a *provider.Error from the provider named name, with the given status and
// code and a message.
func APIError(t testing.TB, err error, name string, status int, kind error, code string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Errorf("Generate: %v; want an error that matches %v", err, kind)
	}
	perr, ok := errors.AsType[*provider.Error](err)
	if !ok {
		t.Fatalf("Generate: %v; want a *provider.Error", err)
	}
	if perr.Provider != name || perr.StatusCode != status || perr.Code != code || perr.Message == "" {
		t.Errorf("Generate: %#v; want %s, status %d, code %q and a message", perr, name, status, code)
	}
}

// Show renders a response for a failure message.
func Show(r *agent.Response) string {
	data, _ := json.Marshal(r)
	return string(data)
}

// Inputs that some dialect rejects.
type (
	// Labels holds a map, which strict modes and Gemini's parameters
	// cannot express.
	Labels struct {
		Labels map[string]string `json:"labels"`
	}
	// Kebab has a property name Gemini's parameters do not accept.
	Kebab struct {
		UserID string `json:"user-id"`
	}
	// Tree recurses through a required property.
	Tree struct {
		Name string `json:"name"`
		Kids []Tree `json:"kids"`
	}
)

// Spec returns the spec of a tool named name with input In.
func Spec[In any](name string) tool.Spec {
	return tool.New(name, "A tool.", func(context.Context, In) (string, error) { return "", nil }).Spec()
}

// Rejected fails the test unless m refuses a first turn that also offers
// spec, before it sends anything to srv, with an error that matches
// dialect.ErrRejected and names the tool and the path of the problem.
func Rejected(t testing.TB, m agent.Model, srv *replay.Server, spec tool.Spec, path string) {
	t.Helper()
	req := FirstTurn()
	req.Tools = append(req.Tools, spec)
	_, err := m.Generate(t.Context(), req)
	if !errors.Is(err, dialect.ErrRejected) {
		t.Fatalf("Generate: %v; want an error that matches dialect.ErrRejected", err)
	}
	rerr, ok := errors.AsType[*dialect.RejectError](err)
	if !ok {
		t.Fatalf("Generate: %v; want a *dialect.RejectError", err)
	}
	if !slices.ContainsFunc(rerr.Problems, func(p dialect.Problem) bool { return p.Tool == spec.Name && p.Path == path && p.Fix != "" }) {
		t.Errorf("Generate: %v; want a problem of tool %s at %q with a fix", err, spec.Name, path)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server received %d requests; want none", n)
	}
}

// registry returns a registry of the exchange's tool, and a counter of the
// calls it ran.
func registry(t testing.TB) (*tool.Registry, *atomic.Int32) {
	t.Helper()
	var ran atomic.Int32
	w := agenttest.Weather()
	counted := tool.New(agenttest.WeatherTool, w.Spec().Description, func(ctx context.Context, a agenttest.WeatherArgs) (string, error) {
		ran.Add(1)
		return w.Call(ctx, a)
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{counted}})
	if err != nil {
		t.Fatal(err)
	}
	return reg, &ran
}

// Incomplete runs the exchange's first turn through agent.Run and fails the
// test unless the run ends with an *agent.IncompleteError that matches
// want, without running a call and with the history as it was. It returns
// the error's response.
func Incomplete(t testing.TB, m agent.Model, want error) *agent.Response {
	t.Helper()
	reg, ran := registry(t)
	start := agent.History{agent.UserText(agenttest.Prompt)}
	history, err := agent.Run(t.Context(), m, reg, start, &agent.Options{System: agenttest.System})
	if !errors.Is(err, want) {
		t.Fatalf("agent.Run: %v; want an error that matches %v", err, want)
	}
	ierr, ok := errors.AsType[*agent.IncompleteError](err)
	if !ok {
		t.Fatalf("agent.Run: %v; want an *agent.IncompleteError", err)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d calls ran; the calls of an incomplete response must not run", n)
	}
	if !reflect.DeepEqual(history, start) {
		t.Errorf("history = %s; want it as it was before the turn", dumpHistory(history))
	}
	return ierr.Response
}

// Resume runs the exchange's first turn through agent.Run on first, encodes
// the history to JSON, decodes it, and runs the rest of the exchange on
// second, a Model made afresh, as another process would. It returns the
// final history.
func Resume(t testing.TB, first, second agent.Model) agent.History {
	t.Helper()
	reg, _ := registry(t)
	opts := &agent.Options{System: agenttest.System, MaxTurns: 1}
	history, err := agent.Run(t.Context(), first, reg, agent.History{agent.UserText(agenttest.Prompt)}, opts)
	if !errors.Is(err, agent.ErrTurnLimit) {
		t.Fatalf("agent.Run of the first turn: %v; want the turn limit", err)
	}
	data, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var decoded agent.History
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	opts.MaxTurns = 2
	final, err := agent.Run(t.Context(), second, reg, decoded, opts)
	if err != nil {
		t.Fatalf("agent.Run of the rest: %v", err)
	}
	return final
}

// Stream runs one turn of m through its Stream and fails the test unless
// the deltas add up to the response: their text to its text, each call's
// pieces to its ID, name and arguments. It returns the response and the
// deltas.
func Stream(t testing.TB, m agent.StreamingModel, req *agent.Request) (*agent.Response, []agent.Delta) {
	t.Helper()
	var (
		resp   *agent.Response
		deltas []agent.Delta
	)
	for chunk, err := range m.Stream(t.Context(), req) {
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if chunk.Response != nil {
			resp = chunk.Response
			continue
		}
		deltas = append(deltas, chunk.Delta)
	}
	if resp == nil {
		t.Fatal("Stream yielded no response")
	}
	var text string
	var calls []agent.ToolCall
	for _, d := range deltas {
		text += d.Text
		if c := d.Call; c != nil {
			for len(calls) <= c.Index {
				calls = append(calls, agent.ToolCall{})
			}
			calls[c.Index].ID += c.ID
			calls[c.Index].Name += c.Name
			calls[c.Index].Args = append(calls[c.Index].Args, c.Args...)
		}
	}
	if text != resp.Text {
		t.Errorf("the text deltas add up to %q, want the response's %q", text, resp.Text)
	}
	if len(calls) != len(resp.Calls) {
		t.Fatalf("the deltas hold %d calls, want the response's %d", len(calls), len(resp.Calls))
	}
	for i, c := range calls {
		w := resp.Calls[i]
		if c.ID != w.ID || c.Name != w.Name || string(c.Args) != string(w.Args) {
			t.Errorf("the deltas of call %d add up to %s %s %s, want %s %s %s", i, c.ID, c.Name, c.Args, w.ID, w.Name, w.Args)
		}
	}
	return resp, deltas
}

func dumpHistory(h agent.History) string {
	data, _ := json.Marshal(h)
	return string(data)
}

// Answer returns the request of the turn after req: req's messages, then
// resp as the assistant's message, with its state, and a tool message for
// each of resp's calls with the result text results[i], as agent.Run
// records them.
func Answer(req *agent.Request, resp *agent.Response, results ...string) *agent.Request {
	next := *req
	next.Messages = append(slices.Clone(req.Messages), agent.Message{
		Role: agent.RoleAssistant, Text: resp.Text, Calls: resp.Calls, State: resp.State,
	})
	for i, c := range resp.Calls {
		next.Messages = append(next.Messages, agent.Message{Role: agent.RoleTool, CallID: c.ID, Name: c.Name, Text: results[i]})
	}
	return &next
}

// At returns the value at the JSON Pointer ptr (RFC 6901) in the JSON
// document doc, compacted, and fails the test if there is none.
func At(t testing.TB, doc []byte, ptr string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("At(%s): %v", ptr, err)
	}
	if ptr != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch x := v.(type) {
			case map[string]any:
				var ok bool
				if v, ok = x[tok]; !ok {
					t.Fatalf("At(%s): no member %q in %s", ptr, tok, doc)
				}
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					t.Fatalf("At(%s): no element %q in %s", ptr, tok, doc)
				}
				v = x[i]
			default:
				t.Fatalf("At(%s): %q reaches into a scalar in %s", ptr, tok, doc)
			}
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Shape returns the structure of the JSON value at ptr in doc: each object
// as its member names with their shapes, each array as its elements'
// shapes, and each scalar as its JSON type. Two requests with the same
// shape at a pointer are built alike there, whatever their text.
func Shape(t testing.TB, doc []byte, ptr string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(At(t, doc, ptr)), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(shape(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = shape(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = shape(e)
		}
		return s
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	default:
		return "null"
	}
}

// StringAt returns the string at the JSON Pointer ptr in doc, and fails
// the test if there is none.
func StringAt(t testing.TB, doc []byte, ptr string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(At(t, doc, ptr)), &s); err != nil {
		t.Fatalf("StringAt(%s): %v", ptr, err)
	}
	return s
}

// LiveModel returns the model a live test uses: the environment variable
// named env when it is set, otherwise def.
func LiveModel(env, def string) string {
	if m := os.Getenv(env); m != "" {
		return m
	}
	return def
}

// Live runs one real exchange on m, a Model that reaches its provider's
// live API: the model is asked to add two numbers with a tool, and the
// test fails unless the tool ran with those numbers and the answer, after
// the tool's result went back, holds their sum. It is the adapters' smoke
// test, run only when an API key is set.
func Live(t testing.TB, m agent.Model) {
	t.Helper()
	type args struct {
		A int `json:"a" jsonschema:"the first addend"`
		B int `json:"b" jsonschema:"the second addend"`
	}
	var (
		mu  sync.Mutex
		ran []args
	)
	add := tool.New("add", "Add two integers and return their sum.", func(ctx context.Context, a args) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, a)
		return strconv.Itoa(a.A + a.B), nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "math", Tools: []tool.Interface{add}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	prompt := agent.UserText("Use the add tool to add 1234 and 5678. Then reply with the sum alone.")
	history, err := agent.Run(ctx, m, reg, agent.History{prompt}, &agent.Options{MaxTurns: 4})
	if err != nil {
		t.Fatalf("agent.Run: %v; history %s", err, dumpHistory(history))
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(ran, args{A: 1234, B: 5678}) && !slices.Contains(ran, args{A: 5678, B: 1234}) {
		t.Errorf("the tool ran with %+v; want 1234 and 5678; history %s", ran, dumpHistory(history))
	}
	last := history[len(history)-1]
	if last.Role != agent.RoleAssistant || !strings.Contains(strings.ReplaceAll(last.Text, ",", ""), "6912") {
		t.Errorf("the answer is %q, want the sum 6912; history %s", last.Text, dumpHistory(history))
	}
}

// Streamed runs one turn of m through Stream, as [Stream] does, and fails
// the test unless the response is want in the fields want sets, as
// [Generate] compares them. It returns the response.
func Streamed(t testing.TB, m agent.StreamingModel, req *agent.Request, want *agent.Response) *agent.Response {
	t.Helper()
	resp, _ := Stream(t, m, req)
	if p := Project(resp, want); !reflect.DeepEqual(p, want) {
		t.Errorf("Stream = %s, want %s", Show(p), Show(want))
	}
	return resp
}
