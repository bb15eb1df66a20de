package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/tool"
)

type greetArgs struct {
	Name  string `json:"name" jsonschema:"who to greet" tool:"minLength=1,maxLength=20"`
	Times int    `json:"times,omitempty" tool:"minimum=1,maximum=3,default=1"`
	Mood  string `json:"mood,omitempty" tool:"enum=happy|grumpy"`
}

func newGreet(run func(ctx context.Context, a greetArgs) (string, error)) *tool.Tool[greetArgs, string] {
	if run == nil {
		run = func(ctx context.Context, a greetArgs) (string, error) {
			return strings.Repeat("hi "+a.Name+"! ", a.Times), nil
		}
	}
	return tool.New("greet", "Greet someone.", run)
}

// panicMessage runs f and returns what it panicked with, or "".
func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestNewPanicsOnDefinitionMistakes(t *testing.T) {
	run := func(context.Context, greetArgs) (string, error) { return "", nil }
	type chanField struct {
		C chan int `json:"c"`
	}
	type badTag struct {
		N string `json:"n" tool:"minLength"`
	}
	type unknownKey struct {
		N string `json:"n" tool:"minlength=3"`
	}
	type misfit struct {
		N int `json:"n" tool:"minLength=3"`
	}
	type badDefault struct {
		N int `json:"n" tool:"minimum=5,default=3"`
	}
	type invopop struct {
		N string `json:"n" jsonschema:"description=the name,enum=a"`
	}
	type mapKey struct {
		M map[int]string `json:"m"`
	}
	type complexField struct {
		C complex128 `json:"c"`
	}
	for _, tt := range []struct {
		name string
		f    func()
		want []string // every one must appear in the panic message
	}{
		{"empty name", func() { tool.New("", "d", run) }, []string{"1 to 64"}},
		{"space in name", func() { tool.New("a b", "d", run) }, []string{`"a b"`, "^[a-zA-Z0-9_-]{1,64}$"}},
		{"long name", func() { tool.New(strings.Repeat("x", 65), "d", run) }, []string{"1 to 64"}},
		{"empty description", func() { tool.New("t", "  ", run) }, []string{"description is empty"}},
		{"nil handler", func() { tool.New[greetArgs, string]("t", "d", nil) }, []string{"handler is nil"}},
		{"not a struct", func() {
			tool.New("t", "d", func(context.Context, int) (string, error) { return "", nil })
		}, []string{"must be a struct"}},
		{"chan field", func() {
			tool.New("t", "d", func(context.Context, chanField) (string, error) { return "", nil })
		}, []string{"chanField", "field C", "chan"}},
		{"complex field", func() {
			tool.New("t", "d", func(context.Context, complexField) (string, error) { return "", nil })
		}, []string{"complexField", "field C", "complex128"}},
		{"map key", func() {
			tool.New("t", "d", func(context.Context, mapKey) (string, error) { return "", nil })
		}, []string{"mapKey", "field M", "map key"}},
		{"malformed tag", func() {
			tool.New("t", "d", func(context.Context, badTag) (string, error) { return "", nil })
		}, []string{"badTag", "field N", `tool:"minLength"`, "needs a value"}},
		{"unknown key", func() {
			tool.New("t", "d", func(context.Context, unknownKey) (string, error) { return "", nil })
		}, []string{"unknownKey", "field N", `tool:"minlength=3"`, `did you mean "minLength"`}},
		{"constraint misfit", func() {
			tool.New("t", "d", func(context.Context, misfit) (string, error) { return "", nil })
		}, []string{"misfit", "field N", "minLength applies to strings"}},
		{"default breaks constraints", func() {
			tool.New("t", "d", func(context.Context, badDefault) (string, error) { return "", nil })
		}, []string{"badDefault", "field N", "default 3 fails", "at least 5"}},
		{"invopop tag", func() {
			tool.New("t", "d", func(context.Context, invopop) (string, error) { return "", nil })
		}, []string{"invopop", "field N", `jsonschema:"description=the name,enum=a"`, "the whole jsonschema tag is the description"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := panicMessage(tt.f)
			if msg == "" {
				t.Fatal("New did not panic")
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("panic %q does not mention %q", msg, w)
				}
			}
		})
	}
}

func TestSpec(t *testing.T) {
	greet := tool.New("greet", "Greet someone.", func(context.Context, greetArgs) (string, error) { return "", nil }, tool.WithTitle("Greeter"))
	spec := greet.Spec()
	if spec.Name != "greet" || spec.Title != "Greeter" || spec.Description != "Greet someone." {
		t.Errorf("Spec() = %q %q %q", spec.Name, spec.Title, spec.Description)
	}
	if spec.OutputSchema != nil {
		t.Errorf("a string output has OutputSchema %v, want nil", spec.OutputSchema)
	}
	if got := spec.InputSchema.Properties["name"].Description; got != "who to greet" {
		t.Errorf("name description = %q", got)
	}
	spec.InputSchema.Properties["name"].Description = "changed"
	if got := greet.Spec().InputSchema.Properties["name"].Description; got != "who to greet" {
		t.Errorf("changing a Spec's schema changed the tool's: %q", got)
	}
}

// events drains a stream.
func events(seq func(func(tool.Event) bool)) []tool.Event {
	var out []tool.Event
	for ev := range seq {
		out = append(out, ev)
	}
	return out
}

func TestStreamEndsWithExactlyOneResult(t *testing.T) {
	handlerErr := errors.New("the greeting service is down")
	failing := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
		tool.Progress(ctx, "trying")
		return "", handlerErr
	})
	panicking := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
		tool.Progress(ctx, "about to panic")
		var m map[string]int
		m["boom"]++
		return "", nil
	})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	for _, tt := range []struct {
		name     string
		tool     *tool.Tool[greetArgs, string]
		ctx      context.Context
		args     string
		progress int
		check    func(t *testing.T, err error)
	}{
		{"ok", newGreet(nil), context.Background(), `{"name":"Ann"}`, 0, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("Err = %v, want nil", err)
			}
		}},
		{"bad JSON", newGreet(nil), context.Background(), `{"name":`, 0, func(t *testing.T, err error) {
			verr, ok := errors.AsType[*tool.ValidationError](err)
			if !ok || verr.Issues[0].Keyword != "syntax" {
				t.Errorf("Err = %v, want a syntax issue", err)
			}
		}},
		{"validation", newGreet(nil), context.Background(), `{"name":"","times":5,"mood":"sad"}`, 0, func(t *testing.T, err error) {
			verr, ok := errors.AsType[*tool.ValidationError](err)
			if !ok || len(verr.Issues) != 3 {
				t.Errorf("Err = %v, want 3 issues", err)
			}
		}},
		{"handler error", failing, context.Background(), `{"name":"Ann"}`, 1, func(t *testing.T, err error) {
			if !errors.Is(err, handlerErr) {
				t.Errorf("Err = %v, want the handler's error", err)
			}
		}},
		{"panic", panicking, context.Background(), `{"name":"Ann"}`, 1, func(t *testing.T, err error) {
			perr, ok := errors.AsType[*tool.PanicError](err)
			if !ok || !strings.Contains(string(perr.Stack), "goroutine") {
				t.Errorf("Err = %v, want a *PanicError with a stack", err)
			}
		}},
		{"cancelled", newGreet(nil), cancelled, `{"name":"Ann"}`, 0, func(t *testing.T, err error) {
			if _, ok := errors.AsType[*tool.CanceledError](err); !ok || !errors.Is(err, context.Canceled) {
				t.Errorf("Err = %v, want a *CanceledError matching context.Canceled", err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			call := tool.Call{ID: "id-1", Name: "greet", Args: json.RawMessage(tt.args)}
			evs := events(tt.tool.Stream(tt.ctx, call))
			if len(evs) != tt.progress+1 {
				t.Fatalf("got %d events, want %d progress events and one result", len(evs), tt.progress)
			}
			for _, ev := range evs[:tt.progress] {
				if ev.Result != nil {
					t.Fatalf("a result came before the last event")
				}
			}
			res := evs[len(evs)-1].Result
			if res == nil {
				t.Fatal("the last event is not a result")
			}
			if res.CallID != "id-1" || res.Tool != "greet" {
				t.Errorf("result is for %q/%q, want id-1/greet", res.CallID, res.Tool)
			}
			if res.IsError != (res.Err != nil) {
				t.Errorf("IsError = %v but Err = %v", res.IsError, res.Err)
			}
			if res.IsError && strings.Contains(res.Content, "goroutine") {
				t.Errorf("the model would see a stack: %q", res.Content)
			}
			tt.check(t, res.Err)

			// Run is the same, drained.
			run := tool.Run(tt.ctx, tt.tool, call)
			if run.IsError != res.IsError || run.Content != res.Content {
				t.Errorf("Run = %v %q, Stream's result = %v %q", run.IsError, run.Content, res.IsError, res.Content)
			}
		})
	}
}

func TestStreamStoppedEarlyCancelsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan error, 1)
		slow := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
			tool.Progress(ctx, 1)
			tool.Progress(ctx, 2) // dropped: the consumer has gone
			select {
			case <-ctx.Done():
				done <- ctx.Err()
				return "", ctx.Err()
			case <-time.After(time.Minute):
				done <- nil
				return "too late", nil
			}
		})
		var got []tool.Event
		for ev := range slow.Stream(t.Context(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}) {
			got = append(got, ev)
			break
		}
		if len(got) != 1 || got[0].Progress != 1 {
			t.Fatalf("got %v, want the first progress event only", got)
		}
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the handler saw %v, want its context cancelled", err)
		}
	})
}

func TestProgressFromAnotherGoroutine(t *testing.T) {
	fanOut := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { tool.Progress(ctx, i) })
		}
		wg.Wait()
		return "done", nil
	})
	evs := events(fanOut.Stream(t.Context(), tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)}))
	if len(evs) != 5 || evs[4].Result == nil || evs[4].Result.Content != "done" {
		t.Fatalf("got %d events (%v), want 4 progress events and the result", len(evs), evs)
	}
}

func TestCallFrom(t *testing.T) {
	var seen []string
	probe := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
		call, ok := tool.CallFrom(ctx)
		seen = append(seen, fmt.Sprintf("%v %s %v", ok, call.ID, call.State["user"]))
		tool.Progress(ctx, "no-op outside Stream")
		return "", nil
	})
	call := tool.Call{ID: "c7", Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`), State: map[string]any{"user": "u1"}}
	tool.Run(t.Context(), probe, call)
	events(probe.Stream(t.Context(), call))
	if _, err := probe.Call(t.Context(), greetArgs{Name: "Ann"}); err != nil {
		t.Fatal(err)
	}
	if _, err := probe.CallJSON(t.Context(), json.RawMessage(`{"name":"Ann"}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{"true c7 u1", "true c7 u1", "false  <nil>", "false  <nil>"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("CallFrom saw %q, want %q", seen, want)
	}
}

func TestCallAndCallJSON(t *testing.T) {
	greet := newGreet(nil)
	ctx := t.Context()

	// CallJSON applies the default. Call applies none: times has omitempty,
	// so its zero is absent from the encoding, which is valid, and the
	// handler sees the zero the caller chose.
	out, err := greet.CallJSON(ctx, json.RawMessage(`{"name":"Ann"}`))
	if err != nil || out != "hi Ann! " {
		t.Errorf("CallJSON = %q, %v; want the default of one greeting", out, err)
	}
	out, err = greet.Call(ctx, greetArgs{Name: "Ann"})
	if err != nil || out != "" {
		t.Errorf("Call(times=0) = %q, %v; want no greeting and no error", out, err)
	}
	if _, err := greet.Call(ctx, greetArgs{Name: "Ann", Times: 9}); err == nil {
		t.Error("Call(times=9) succeeded; want the maximum enforced on Go values too")
	}

	_, err = greet.CallJSON(ctx, json.RawMessage(`{"name":"","times":0}`))
	verr, ok := errors.AsType[*tool.ValidationError](err)
	if !ok {
		t.Fatalf("CallJSON error = %v, want a *ValidationError", err)
	}
	if verr.Tool != "greet" || len(verr.Issues) != 2 || verr.Issues[0].Path != "/name" || verr.Issues[1].Path != "/times" {
		t.Errorf("issues = %+v, want /name and /times", verr.Issues)
	}

	boom := newGreet(func(context.Context, greetArgs) (string, error) { panic("boom") })
	if _, err := boom.CallJSON(ctx, json.RawMessage(`{"name":"Ann"}`)); err == nil {
		t.Error("a panicking handler returned no error")
	} else if perr, ok := errors.AsType[*tool.PanicError](err); !ok || perr.Value != "boom" {
		t.Errorf("err = %v, want a *PanicError with the value", err)
	}
}

func TestTimeoutBecomesCanceledError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := newGreet(func(ctx context.Context, a greetArgs) (string, error) {
			<-ctx.Done()
			return "", fmt.Errorf("waiting: %w", ctx.Err())
		})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		res := tool.Run(ctx, slow, tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann"}`)})
		if !res.IsError || !errors.Is(res.Err, context.DeadlineExceeded) {
			t.Fatalf("Run = %+v, want a timeout error result", res)
		}
		if !strings.Contains(res.Content, "timed out") {
			t.Errorf("Content = %q, want it to say the call timed out", res.Content)
		}
	})
}

func TestResultContent(t *testing.T) {
	type pair struct {
		A int `json:"a"`
	}
	structured := tool.New("pair", "Return a pair.", func(context.Context, struct{}) (pair, error) { return pair{A: 1}, nil })
	res := tool.Run(t.Context(), structured, tool.Call{Name: "pair", Args: json.RawMessage(`{}`)})
	if res.Content != `{"a":1}` || res.Output != (pair{A: 1}) {
		t.Errorf("Run = %q %v, want JSON content and the typed output", res.Content, res.Output)
	}
	if structured.Spec().OutputSchema == nil {
		t.Error("a struct output has no OutputSchema")
	}
	unencodable := tool.New("bad", "Return a func.", func(context.Context, struct{}) (func(), error) { return func() {}, nil })
	res = tool.Run(t.Context(), unencodable, tool.Call{Name: "bad", Args: json.RawMessage(`{}`)})
	if !res.IsError || res.Err == nil {
		t.Errorf("an output with no JSON form gave %+v, want an error result", res)
	}
}

func TestModelTextNeverEchoesLargeValues(t *testing.T) {
	greet := newGreet(nil)
	huge := strings.Repeat("x", 100_000)
	res := tool.Run(t.Context(), greet, tool.Call{Name: "greet", Args: json.RawMessage(`{"name":"Ann","mood":"` + huge + `"}`)})
	if !res.IsError {
		t.Fatal("a 100 kB mood was accepted")
	}
	if len(res.Content) > 400 {
		t.Errorf("Content is %d bytes; a message must not echo a large value", len(res.Content))
	}
}

func TestConcurrentRuns(t *testing.T) {
	greet := newGreet(nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				args := fmt.Sprintf(`{"name":"n%d","times":%d}`, i, j%3+1)
				res := tool.Run(t.Context(), greet, tool.Call{Name: "greet", Args: json.RawMessage(args)})
				if want := strings.Repeat(fmt.Sprintf("hi n%d! ", i), j%3+1); res.Content != want {
					t.Errorf("Run(%s) = %q, want %q", args, res.Content, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

type markdown string

type upper string

func (u upper) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(u))), nil }

// pointerUpper's MarshalText has a pointer receiver, which encoding/json does
// not call on an output value: it is plain text.
type pointerUpper string

func (u *pointerUpper) MarshalText() ([]byte, error) { return []byte(strings.ToUpper(string(*u))), nil }

type selfWritten struct{ N int }

func (s selfWritten) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"n=%d"`, s.N)), nil }

type intKeyed struct {
	Counts map[int]string `json:"counts"`
}

// TestOutputTypes checks that any output encoding/json writes is accepted by
// New, that only describable structs have an output schema, and what the
// model reads of each.
func TestOutputTypes(t *testing.T) {
	ctx := context.Background()
	run := func(i tool.Interface) tool.Result {
		return tool.Run(ctx, i, tool.Call{Name: "out", Args: json.RawMessage(`{"city":"Oslo"}`)})
	}
	at := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		tool       tool.Interface
		content    string
		withSchema bool
	}{
		{tool.New("out", "d", func(context.Context, cityArgs) (time.Time, error) { return at, nil }), `"2026-11-26T03:00:00Z"`, false},
		{tool.New("out", "d", func(context.Context, cityArgs) (selfWritten, error) { return selfWritten{N: 3}, nil }), `"n=3"`, false},
		{tool.New("out", "d", func(context.Context, cityArgs) (intKeyed, error) {
			return intKeyed{Counts: map[int]string{1: "a"}}, nil
		}), `{"counts":{"1":"a"}}`, false},
		{tool.New("out", "d", func(context.Context, cityArgs) (markdown, error) { return "# Oslo", nil }), "# Oslo", false},
		{tool.New("out", "d", func(context.Context, cityArgs) (upper, error) { return "oslo", nil }), `"OSLO"`, false},
		{tool.New("out", "d", func(context.Context, cityArgs) (pointerUpper, error) { return "oslo", nil }), "oslo", false},
		{tool.NewRaw(tool.Spec{Name: "out", Description: "d", InputSchema: &jsonschema.Schema{Type: "object"}}, nil,
			func(context.Context, json.RawMessage) (any, error) { return markdown("# Oslo"), nil }), "# Oslo", false},
		{tool.New("out", "d", func(context.Context, cityArgs) (*cityArgs, error) { return &cityArgs{City: "Oslo"}, nil }), `{"city":"Oslo"}`, true},
	} {
		res := run(tt.tool)
		if res.IsError || res.Content != tt.content {
			t.Errorf("%T: Content = %q (IsError %t), want %q", res.Output, res.Content, res.IsError, tt.content)
		}
		if got := tt.tool.Spec().OutputSchema != nil; got != tt.withSchema {
			t.Errorf("%T: has an output schema = %t, want %t", res.Output, got, tt.withSchema)
		}
	}
}

// TestDirectCallInsideHandler checks that a direct call made by a handler
// serving a streamed call is a call of its own: the inner handler finds no
// Call, and its progress does not reach the outer stream.
func TestDirectCallInsideHandler(t *testing.T) {
	var innerSaw []bool
	inner := tool.New("inner", "d", func(ctx context.Context, a cityArgs) (string, error) {
		_, ok := tool.CallFrom(ctx)
		innerSaw = append(innerSaw, ok)
		tool.Progress(ctx, "inner progress")
		return a.City, nil
	})
	outer := tool.New("outer", "d", func(ctx context.Context, a cityArgs) (string, error) {
		tool.Progress(ctx, "outer progress")
		if _, err := inner.Call(ctx, a); err != nil {
			return "", err
		}
		if _, err := inner.CallJSON(ctx, json.RawMessage(`{"city":"Bergen"}`)); err != nil {
			return "", err
		}
		return "done", nil
	})
	var progress []any
	for ev := range outer.Stream(context.Background(), tool.Call{Name: "outer", Args: json.RawMessage(`{"city":"Oslo"}`)}) {
		if ev.Result == nil {
			progress = append(progress, ev.Progress)
		}
	}
	if len(progress) != 1 || progress[0] != "outer progress" {
		t.Errorf("progress on the outer stream = %v, want only the outer's", progress)
	}
	if len(innerSaw) != 2 || innerSaw[0] || innerSaw[1] {
		t.Errorf("CallFrom inside the direct calls reported a call: %v", innerSaw)
	}
}

type cityArgs struct {
	City string `json:"city"`
}

type manyNumbers struct {
	N []int `json:"n" tool:"minimum=0"`
}

// TestManyIssues checks the issue limit in the model's text: by default 100
// issues and a line saying how many more, and every issue with a negative
// limit.
func TestManyIssues(t *testing.T) {
	args := json.RawMessage(`{"n":[` + strings.Repeat("-1,", 499) + `-1]}`)
	handler := func(context.Context, manyNumbers) (string, error) { return "ok", nil }
	res := tool.Run(context.Background(), tool.New("nums", "d", handler), tool.Call{Name: "nums", Args: args})
	lines := strings.Split(res.Content, "\n")
	if got := strings.Count(res.Content, ": must be at least 0"); got != 100 {
		t.Errorf("default limit: %d issues listed, want 100", got)
	}
	if !slices.Contains(lines, "- 400 more issues not listed; fix these first") {
		t.Errorf("default limit: no line for the 400 more issues in\n%s", strings.Join(lines[len(lines)-3:], "\n"))
	}
	res = tool.Run(context.Background(), tool.New("nums", "d", handler, tool.WithLimits(tool.Limits{MaxIssues: -1})), tool.Call{Name: "nums", Args: args})
	if got := strings.Count(res.Content, ": must be at least 0"); got != 500 || strings.Contains(res.Content, "more issues") {
		t.Errorf("no limit: %d issues listed, want all 500 and no note", got)
	}
}

type mistakenOut struct {
	S string `json:"s" tool:"minLenght=1"`
}

// TestOutputTagMistake checks that a tag mistake in the output type panics
// in New, as one in the input type does: it is a mistake whatever the type
// is for.
func TestOutputTagMistake(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `did you mean "minLength"`) {
			t.Errorf("New recovered %v, want a panic naming the tag mistake", r)
		}
	}()
	tool.New("out", "d", func(context.Context, cityArgs) (mistakenOut, error) { return mistakenOut{}, nil })
}
