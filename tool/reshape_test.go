package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

// TestStructuredOutputIsKeptApartFromContent checks that middleware that
// rewrites what the model reads leaves the structured output alone.
func TestStructuredOutputIsKeptApartFromContent(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	at := tool.New("at", "Where.", func(context.Context, struct{}) (point, error) { return point{1, 2}, nil })
	text := tool.New("text", "Say.", func(context.Context, struct{}) (string, error) { return "hi", nil })
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{at, text}})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(tool.OnResult(func(_ context.Context, _ tool.Call, res *tool.Result) { res.Content = "rewritten: " + res.Content }))
	res := tool.Run(t.Context(), reg, tool.Call{Name: "at", Args: json.RawMessage(`{}`)})
	if string(res.Structured) != `{"x":1,"y":2}` || res.Content != `rewritten: {"x":1,"y":2}` {
		t.Errorf("Run(at) = Structured %s, Content %q", res.Structured, res.Content)
	}
	if res := tool.Run(t.Context(), reg, tool.Call{Name: "text", Args: json.RawMessage(`{}`)}); res.Structured != nil {
		t.Errorf("a text tool has Structured %s", res.Structured)
	}
	if res := tool.Run(t.Context(), reg, tool.Call{Name: "at", Args: json.RawMessage(`{"x":1}`)}); res.Structured != nil {
		t.Errorf("an error result has Structured %s", res.Structured)
	}
}

// TestDirectCallCarriesACallContext checks that WithCall gives a direct
// call's handler its call, and that the call ID reaches the errors.
func TestDirectCallCarriesACallContext(t *testing.T) {
	var seen []tool.Call
	who := newGreetWith(func(ctx context.Context, a greetArgs) (string, error) {
		call, ok := tool.CallFrom(ctx)
		if ok {
			seen = append(seen, call)
		}
		return a.Name, nil
	})
	ctx := tool.WithCall(t.Context(), tool.Call{ID: "d1", State: map[string]any{"user": "ann"}})
	if _, err := who.Call(ctx, greetArgs{Name: "Ann"}); err != nil {
		t.Fatal(err)
	}
	if _, err := who.CallJSON(ctx, json.RawMessage(`{"name":"Bo"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := who.Call(t.Context(), greetArgs{Name: "Cy"}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("the handler found a call %d times, want 2: %+v", len(seen), seen)
	}
	for _, c := range seen {
		if c.ID != "d1" || c.Name != "greet" || c.State["user"] != "ann" {
			t.Errorf("CallFrom = %+v, want ID d1, Name greet and the state", c)
		}
	}
	_, err := who.CallJSON(ctx, json.RawMessage(`{"name":""}`))
	if verr, ok := errors.AsType[*tool.ValidationError](err); !ok || verr.CallID != "d1" {
		t.Errorf("CallJSON = %v, want a *ValidationError of call d1", err)
	}
}

// TestRawToolLimits checks that a raw tool's arguments are held to its
// limits and to JSON's syntax before its validator sees them, and that the
// validator's issues are cut to the issue limit.
func TestRawToolLimits(t *testing.T) {
	validated := 0
	many := func(args json.RawMessage) error {
		validated++
		issues := make([]schema.Issue, 10)
		for i := range issues {
			issues[i] = schema.Issue{Path: "/q", Keyword: "type", Message: "bad"}
		}
		return &schema.Error{Issues: issues}
	}
	echo := tool.NewRaw(tool.Spec{Name: "echo", Description: "d", InputSchema: objectSchema}, many,
		func(_ context.Context, args json.RawMessage) (any, error) { return string(args), nil },
		tool.WithLimits(tool.Limits{MaxBytes: 64, MaxDepth: 3, MaxIssues: 4}))
	for _, tt := range []struct {
		name, args string
		keyword    string
	}{
		{"too large", `{"q":"` + strings.Repeat("x", 64) + `"}`, "limit"},
		{"too deep", `{"q":{"a":{"b":{"c":1}}}}`, "limit"},
		{"invalid UTF-8", "{\"q\":\"\xff\"}", "syntax"},
		{"duplicate", `{"q":1,"q":2}`, "syntax"},
		{"trailing", `{} x`, "syntax"},
		{"not an object", `[1]`, "type"},
	} {
		res := tool.Run(t.Context(), echo, tool.Call{Name: "echo", Args: json.RawMessage(tt.args)})
		verr, ok := errors.AsType[*tool.ValidationError](res.Err)
		if !ok || len(verr.Issues) != 1 || verr.Issues[0].Keyword != tt.keyword {
			t.Errorf("%s: Run = %v, want one %q issue", tt.name, res.Err, tt.keyword)
		}
	}
	if validated != 0 {
		t.Errorf("the validator ran %d times on arguments the limits refused", validated)
	}
	res := tool.Run(t.Context(), echo, tool.Call{Name: "echo", Args: json.RawMessage(`{"q":1}`)})
	verr, ok := errors.AsType[*tool.ValidationError](res.Err)
	if !ok || len(verr.Issues) != 5 || verr.Issues[4].Keyword != "limit" {
		t.Errorf("Run = %v, want 4 issues and a note of 6 more", res.Err)
	}
}

// TestStringWrappedRepairKeepsLimitsAndStrictness checks that arguments
// sent as a JSON string are unwrapped only within the size limit and only
// when the string and the object in it are valid JSON.
func TestStringWrappedRepairKeepsLimitsAndStrictness(t *testing.T) {
	small := newGreetWith(nil, tool.WithLimits(tool.Limits{MaxBytes: 64}))
	wrap := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, tt := range []struct {
		name, args string
		ok         bool
		keyword    string
	}{
		{"wrapped", wrap(`{"name":"Ann"}`), true, ""},
		{"over the size limit", wrap(`{"name":"Ann","mood":"` + strings.Repeat(" ", 60) + `"}`), false, "limit"},
		{"invalid UTF-8 in the string", "\"{\\\"name\\\":\\\"A\xffn\\\"}\"", false, "syntax"},
		{"lone surrogate in the string", `"{\"name\":\"\ud800\"}"`, false, "syntax"},
		{"lone surrogate in the object", `"{\"name\":\"\\ud800\"}"`, false, "type"},
		{"object with trailing data", wrap(`{"name":"Ann"} x`), false, "type"},
	} {
		res := tool.Run(t.Context(), small, tool.Call{Name: "greet", Args: json.RawMessage(tt.args)})
		if tt.ok {
			if res.IsError || len(res.Repairs) != 1 || res.Repairs[0].Kind != tool.RepairStringArguments {
				t.Errorf("%s: Run = %+v, want the repaired call", tt.name, res)
			}
			continue
		}
		verr, ok := errors.AsType[*tool.ValidationError](res.Err)
		if !ok || len(res.Repairs) != 0 || verr.Issues[0].Keyword != tt.keyword {
			t.Errorf("%s: Run = %v (repairs %v), want a %q issue and no repair", tt.name, res.Err, res.Repairs, tt.keyword)
		}
	}
}

// TestPanickingPredicateIsLoggedOnce checks that a predicate that panics
// on every call is logged once, through the registry's logger, until it
// returns normally; then a new panic is logged again.
func TestPanickingPredicateIsLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	panicking := true
	flaky := newGreetWith(nil, tool.WithEnabled(func(context.Context) bool {
		if panicking {
			panic("predicate broke")
		}
		return true
	}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{flaky}})
	if err != nil {
		t.Fatal(err)
	}
	reg.SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	var global bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&global, nil)))
	defer slog.SetDefault(old)

	call := tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}
	for range 5 {
		reg.Specs(t.Context())
		if res := tool.Run(t.Context(), reg, call); !errors.Is(res.Err, tool.ErrDisabled) {
			t.Fatalf("Run = %v, want the tool disabled", res.Err)
		}
	}
	if n := strings.Count(buf.String(), "predicate broke"); n != 1 {
		t.Errorf("the panic was logged %d times, want once:\n%s", n, buf.String())
	}
	if global.Len() != 0 {
		t.Errorf("the registry logged to slog.Default: %s", global.String())
	}
	panicking = false
	if res := tool.Run(t.Context(), reg, call); res.IsError {
		t.Fatalf("Run = %v", res.Err)
	}
	panicking = true
	reg.Specs(t.Context())
	if n := strings.Count(buf.String(), "predicate broke"); n != 2 {
		t.Errorf("a new run of panics was logged %d times in all, want 2", n)
	}
}

// TestNewRegistryReadsOnlyNames checks that building a registry builds a
// spec only to check its name, once, for a tool of the user's own: the
// spec of a *Tool or *RawTool always has its name.
func TestNewRegistryReadsOnlyNames(t *testing.T) {
	counted := &specCounter{Interface: newGreetWith(nil)}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{counted}})
	if err != nil {
		t.Fatal(err)
	}
	if counted.specs != 1 {
		t.Errorf("NewRegistry built %d specs of a user's tool, want one, to check its name", counted.specs)
	}
	tool.Run(t.Context(), reg, tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)})
	if counted.specs != 1 {
		t.Errorf("a call built %d more specs, want none", counted.specs-1)
	}
}

type specCounter struct {
	tool.Interface
	specs int
}

func (s *specCounter) Spec() tool.Spec { s.specs++; return s.Interface.Spec() }
