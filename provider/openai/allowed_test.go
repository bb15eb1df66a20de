package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/internal/replay"
	"github.com/hands-go/hands/provider/internal/providertest"
	"github.com/hands-go/hands/provider/openai"
	"github.com/hands-go/hands/tool"
)

// TestAllowedTools builds three turns with Options.AllowedTools over a
// registry whose predicate turns get_weather off on the second turn, on
// both APIs: the tools array goes out the same bytes each turn, while
// tool_choice allows the enabled tools alone, in the API's own shape.
func TestAllowedTools(t *testing.T) {
	for _, tt := range []struct {
		api                openai.API
		answer             string
		firstName          string // the pointer to the first tool's name
		allowAll, allowOne string
	}{
		{
			api:       openai.Responses,
			answer:    "testdata/responses_answer.response.json",
			firstName: "/0/name",
			allowAll:  `{"mode":"auto","tools":[{"name":"get_weather","type":"function"},{"name":"send_email","type":"function"}],"type":"allowed_tools"}`,
			allowOne:  `{"mode":"auto","tools":[{"name":"send_email","type":"function"}],"type":"allowed_tools"}`,
		},
		{
			api:       openai.ChatCompletions,
			answer:    "testdata/chat_answer.response.json",
			firstName: "/0/function/name",
			allowAll:  `{"allowed_tools":{"mode":"auto","tools":[{"function":{"name":"get_weather"},"type":"function"},{"function":{"name":"send_email"},"type":"function"}]},"type":"allowed_tools"}`,
			allowOne:  `{"allowed_tools":{"mode":"auto","tools":[{"function":{"name":"send_email"},"type":"function"}]},"type":"allowed_tools"}`,
		},
	} {
		t.Run(string(tt.api), func(t *testing.T) {
			var weather atomic.Bool
			handler := func(context.Context, searchArgs) (string, error) { return "", nil }
			reg, err := tool.NewRegistry(&tool.Scope{Name: "main", Tools: []tool.Interface{
				tool.New("get_weather", "Get the current weather at a specific location", handler,
					tool.WithEnabled(func(context.Context) bool { return weather.Load() })),
				tool.New("send_email", "Send an email to a recipient", handler),
			}})
			if err != nil {
				t.Fatal(err)
			}
			srv := replay.NewServer(t, replay.Always(replay.Load(t, tt.answer)))
			m := newModel(t, srv, openai.Options{API: tt.api, AllowedTools: true})
			if !m.AllowsTools() || m.SearchesTools() {
				t.Fatalf("AllowsTools, SearchesTools = %v, %v; want true, false", m.AllowsTools(), m.SearchesTools())
			}
			history := agent.History{agent.UserText("What's the weather in San Francisco?")}
			for _, on := range []bool{true, false, true} {
				weather.Store(on)
				if _, err := m.Generate(t.Context(), agent.NewRequestFor(t.Context(), m, reg, "", history)); err != nil {
					t.Fatal(err)
				}
			}
			reqs := srv.Requests()
			first := rawTools(t, reqs[0].Body)
			for i, r := range reqs {
				if got := rawTools(t, r.Body); !bytes.Equal(got, first) {
					t.Errorf("request %d's tools differ from the first's:\n%s\n%s", i+1, got, first)
				}
				want := tt.allowAll
				if i == 1 {
					want = tt.allowOne
				}
				if got := providertest.At(t, r.Body, "/tool_choice"); got != want {
					t.Errorf("request %d's tool_choice = %s, want %s", i+1, got, want)
				}
			}
			if got := providertest.At(t, first, tt.firstName); got != `"get_weather"` {
				t.Errorf("the first tool is %s, want get_weather, disabled or not", got)
			}

			// With no tool allowed, the tools still go, and no call may be made.
			req := &agent.Request{Messages: history, Tools: reg.AllSpecs(), Allowed: []string{}}
			if _, err := m.Generate(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			last := srv.Requests()[3].Body
			if got := providertest.At(t, last, "/tool_choice"); got != `"none"` {
				t.Errorf("tool_choice with no tool allowed = %s, want \"none\"", got)
			}
			if got := rawTools(t, last); !bytes.Equal(got, first) {
				t.Errorf("the tools with no tool allowed differ from the first's:\n%s\n%s", got, first)
			}
		})
	}
}

// rawTools returns the tools array of a request's body, byte for byte.
func rawTools(t *testing.T, body []byte) []byte {
	t.Helper()
	var doc struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Tools) == 0 {
		t.Fatalf("the request has no tools: %s", body)
	}
	return doc.Tools
}

// TestAllowedToolsRefused checks that a request that leaves tools out of
// Allowed is refused where the dialect has no allowed_tools, rather than
// sent with every tool allowed, and that New refuses Options.AllowedTools
// with such a dialect.
func TestAllowedToolsRefused(t *testing.T) {
	srv := replay.NewServer(t, replay.Always(replay.Load(t, "testdata/responses_answer.response.json")))
	d := dialect.OpenAIStrict()
	d.Features &^= dialect.AllowedTools
	m := newModel(t, srv, openai.Options{Dialect: d})
	req := searchTurn(t)
	req.Tools = req.Tools[1:2] // send_email alone
	req.Allowed = []string{}
	_, err := m.Generate(t.Context(), req)
	p, ok := errors.AsType[dialect.Problem](err)
	if !errors.Is(err, dialect.ErrRejected) || !ok || p.Keyword != "features" || p.Tool != "send_email" {
		t.Errorf("Generate of a tool not allowed = %v, want a rejection of send_email's features", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests, want none", n)
	}
	if _, err := openai.New(&openai.Options{Model: "gpt-5.5", Dialect: d, AllowedTools: true}); err == nil {
		t.Error("New took Options.AllowedTools with a dialect without allowed_tools")
	}
}
