package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
)

var objectSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"q": {Type: "string"}}}

func TestRawTool(t *testing.T) {
	requireQ := func(args json.RawMessage) error {
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			return err
		}
		if _, ok := m["q"]; !ok {
			return &schema.Error{Issues: []schema.Issue{{Keyword: "required", Message: `missing required property "q"`}}}
		}
		return nil
	}
	search := tool.NewRaw(tool.Spec{Name: "search", Title: "Search", Description: "Search the index.", InputSchema: objectSchema,
		OutputSchema: &jsonschema.Schema{Type: "object"}, Annotations: &tool.Annotations{ReadOnly: true}},
		requireQ,
		func(ctx context.Context, args json.RawMessage) (any, error) {
			tool.Progress(ctx, "searching")
			call, _ := tool.CallFrom(ctx)
			return map[string]any{"id": call.ID, "args": args}, nil
		})
	spec := search.Spec()
	if spec.Name != "search" || spec.Title != "Search" || spec.Annotations == nil || !spec.Annotations.ReadOnly || spec.OutputSchema == nil {
		t.Errorf("Spec = %+v", spec)
	}
	spec.InputSchema.Type = "array"
	if search.Spec().InputSchema.Type != "object" {
		t.Error("changing a spec changed the tool")
	}

	var evs []tool.Event
	for ev := range search.Stream(t.Context(), tool.Call{ID: "r1", Name: "search", Args: json.RawMessage(`{"q":"go"}`)}) {
		evs = append(evs, ev)
	}
	if len(evs) != 2 || evs[0].Progress != "searching" || evs[1].Result.Content != `{"args":{"q":"go"},"id":"r1"}` {
		t.Errorf("Stream = %+v", evs)
	}
	res := tool.Run(t.Context(), search, tool.Call{Name: "search", Args: json.RawMessage(`{}`)})
	if verr, ok := errors.AsType[*tool.ValidationError](res.Err); !ok || verr.Issues[0].Keyword != "required" {
		t.Errorf("Run without q = %+v", res)
	}
	if _, err := search.CallJSON(t.Context(), json.RawMessage(`{"q":1}`)); err != nil {
		t.Errorf("CallJSON = %v", err)
	}
	res = tool.Run(t.Context(), search, tool.Call{Name: "search", Args: json.RawMessage(`"{\"q\":\"x\"}"`)})
	if res.IsError || len(res.Repairs) != 1 || res.Repairs[0].Kind != tool.RepairStringArguments {
		t.Errorf("string-wrapped arguments = %+v", res)
	}

	// Without a validator, the arguments need only be an object; outputs
	// that are strings or raw JSON reach the model as they are.
	for _, tt := range []struct {
		out     any
		args    string
		content string
		isError bool
	}{
		{"plain text", `{}`, "plain text", false},
		{json.RawMessage(`{"raw":true}`), `{"x":1}`, `{"raw":true}`, false},
		{func() {}, `{}`, "", true},
		{"never", `[1]`, "", true},
		{"never", `{"a":`, "", true},
	} {
		out := tt.out
		echo := tool.NewRaw(tool.Spec{Name: "echo", Description: "Echo.", InputSchema: objectSchema}, nil,
			func(context.Context, json.RawMessage) (any, error) { return out, nil })
		res := tool.Run(t.Context(), echo, tool.Call{Name: "echo", Args: json.RawMessage(tt.args)})
		if res.IsError != tt.isError || (!tt.isError && res.Content != tt.content) {
			t.Errorf("echo %T on %s = %+v", tt.out, tt.args, res)
		}
	}

	boom := tool.NewRaw(tool.Spec{Name: "boom", Description: "Panic.", InputSchema: objectSchema}, nil,
		func(context.Context, json.RawMessage) (any, error) { panic("raw bug") })
	if _, err := boom.CallJSON(t.Context(), json.RawMessage(`{}`)); err == nil {
		t.Error("a panicking raw handler returned no error")
	} else if _, ok := errors.AsType[*tool.PanicError](err); !ok {
		t.Errorf("CallJSON = %v, want a *PanicError", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := boom.CallJSON(ctx, json.RawMessage(`{}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("CallJSON on a cancelled context = %v", err)
	}

	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"nil run", func() { tool.NewRaw(tool.Spec{Name: "x", Description: "d", InputSchema: objectSchema}, nil, nil) }},
		{"array schema", func() {
			tool.NewRaw(tool.Spec{Name: "x", Description: "d", InputSchema: &jsonschema.Schema{Type: "array"}}, nil,
				func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}},
		{"bad name", func() {
			tool.NewRaw(tool.Spec{Name: "x y", Description: "d", InputSchema: objectSchema}, nil,
				func(context.Context, json.RawMessage) (any, error) { return nil, nil })
		}},
	} {
		if panicMessage(tt.f) == "" {
			t.Errorf("NewRaw with %s did not panic", tt.name)
		}
	}
}

func TestOptionsAndLookup(t *testing.T) {
	small := tool.New("small", "Take small arguments.", func(ctx context.Context, a noteArgs) (string, error) { return a.Title, nil },
		tool.WithLimits(tool.Limits{MaxBytes: 32, MaxDepth: 2, MaxIssues: 1}), tool.WithAnnotations(tool.Annotations{Idempotent: true}))
	if small.Name() != "small" || !small.Spec().Annotations.Idempotent {
		t.Errorf("Name/Annotations = %q %+v", small.Name(), small.Spec().Annotations)
	}
	res := tool.Run(t.Context(), small, tool.Call{Name: "small", Args: json.RawMessage(`{"title":"` + strings.Repeat("x", 40) + `"}`)})
	if verr, ok := errors.AsType[*tool.ValidationError](res.Err); !ok || verr.Issues[0].Keyword != "limit" {
		t.Errorf("a 50-byte call under a 32-byte limit = %+v", res)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{small}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := reg.Lookup("small"); !ok || got.Spec().Name != "small" {
		t.Errorf("Lookup(small) = %v, %v", got, ok)
	}
	if _, ok := reg.Lookup("big"); ok {
		t.Error("Lookup(big) found a tool")
	}
	if scopes := reg.Scopes(); len(scopes) != 1 || scopes[0].Name != "s" {
		t.Errorf("Scopes = %v", scopes)
	}
}

func TestErrorTexts(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&tool.ValidationError{Tool: "t", Issues: []tool.Issue{{Path: "/a", Message: "bad"}}}, "tool t: invalid arguments\n/a: bad"},
		{&tool.PanicError{Tool: "t", Value: "oops"}, "tool t panicked: oops"},
		{&tool.CanceledError{Tool: "t", Cause: context.Canceled}, "tool t: cancelled: context canceled"},
		{&tool.CanceledError{Tool: "t", Cause: context.DeadlineExceeded}, "tool t: cancelled: context deadline exceeded"},
		{&tool.TimeoutError{Tool: "t", Timeout: time.Second}, "tool t: timed out after 1s"},
		{&tool.DefinitionError{Tool: "t", Err: errors.New("bad")}, `tool: tool "t": bad`},
		{&tool.UnknownToolError{Tool: "x"}, `tool: no tool named "x"`},
		{&tool.DisabledToolError{Tool: "x"}, "tool: x is not enabled now"},
		{&tool.DeniedError{Tool: "t", Reason: errors.New("no")}, "tool t: denied: no"},
		{&tool.NameError{Name: "a b", Scopes: []string{"s"}, Err: tool.ErrInvalidName}, `tool: name "a b" in scope "s" is invalid`},
		{&tool.NameError{Name: "a", Other: "a", Scopes: []string{"s", "t"}, Err: tool.ErrDuplicateName}, `tool: name "a" is used twice (scopes "s", "t")`},
	} {
		if got := tt.err.Error(); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%T.Error() = %q, want it to start with %q", tt.err, got, tt.want)
		}
	}
	wrapped := errors.New("inner")
	if !errors.Is(&tool.PanicError{Value: wrapped}, wrapped) {
		t.Error("a *PanicError does not unwrap an error value")
	}
	verr := &tool.ValidationError{Tool: "other", Issues: []tool.Issue{{Path: "/a", Keyword: "type", Message: "bad"}}, Err: tool.ErrInvalidArguments}
	own := tool.NewRaw(tool.Spec{Name: "own", Description: "d", InputSchema: objectSchema}, func(json.RawMessage) error { return verr },
		func(context.Context, json.RawMessage) (any, error) { return "ran", nil })
	res := tool.Run(t.Context(), own, tool.Call{ID: "1", Name: "own", Args: json.RawMessage(`{}`)})
	if got, ok := errors.AsType[*tool.ValidationError](res.Err); !ok || got.Tool != "own" || got.CallID != "1" || len(got.Issues) != 1 || got.Issues[0].Path != "/a" {
		t.Errorf("a validator's *ValidationError became %#v, want its issues under the tool's name", res.Err)
	}
}

// TestRawHandlerReturnsResult checks that a raw tool's handler can answer
// with a whole Result — parts and structured output included — which the
// call's result carries as it is, with the call's ID, the tool's name and
// the repairs filled in; and that its IsError and Err cannot turn it into a
// failure, which a handler reports by returning an error.
func TestRawHandlerReturnsResult(t *testing.T) {
	parts := []tool.Part{tool.Text("a chart"), tool.Image("image/png", []byte{1, 2, 3})}
	full := tool.Result{Content: "a chart [image]", Parts: parts, Structured: json.RawMessage(`{"n":1}`), Output: 42, IsError: true, Err: errors.New("ignored")}
	chart := tool.NewRaw(tool.Spec{Name: "chart", Description: "Draw a chart.", InputSchema: objectSchema}, nil,
		func(context.Context, json.RawMessage) (any, error) { return full, nil })
	for _, ctx := range []context.Context{context.Background(), t.Context()} {
		res := tool.Run(ctx, chart, tool.Call{ID: "7", Name: "chart", Args: json.RawMessage(`{}`)})
		if res.IsError || res.Err != nil || res.CallID != "7" || res.Tool != "chart" {
			t.Fatalf("Run = %+v, want a success of call 7", res)
		}
		if res.Content != full.Content || len(res.Parts) != 2 || string(res.Structured) != `{"n":1}` || res.Output != 42 {
			t.Errorf("Run = %+v, want the handler's result", res)
		}
		if len(res.Repairs) != 0 {
			t.Errorf("Run repairs = %v, want none", res.Repairs)
		}
	}
}
