// Package providertest holds the requests that the adapters' tests send:
// the two turns of the exchange that agenttest.TestModel drives, and tools
// whose schemas each dialect must rewrite.
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/provider"
	"github.com/hands-go/hands/provider/internal/replay"
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

// Generate runs one turn of m and fails the test when the response is not
// want.
func Generate(t testing.TB, m agent.Model, req *agent.Request, want *agent.Response) {
	t.Helper()
	got, err := m.Generate(t.Context(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Generate = %s, want %s", Show(got), Show(want))
	}
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
