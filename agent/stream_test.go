package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// describe renders an event as one short line.
func describe(ev agent.Event) string {
	s := fmt.Sprintf("%d %s", ev.Turn, ev.Kind)
	switch ev.Kind {
	case agent.EventDelta:
		s += fmt.Sprintf(" %q", ev.Delta.Text)
	case agent.EventResponse:
		s += fmt.Sprintf(" %q %d call(s)", ev.Response.Text, len(ev.Response.Calls))
	case agent.EventUsage:
		s += fmt.Sprintf(" %d+%d", ev.Usage.InputTokens, ev.Usage.OutputTokens)
	case agent.EventCallStart:
		s += " " + ev.Call.ID
	case agent.EventCallProgress:
		s += fmt.Sprintf(" %s %v", ev.Call.ID, ev.Progress)
	case agent.EventCallResult:
		s += fmt.Sprintf(" %s %q", ev.Call.ID, ev.Result.Content)
	case agent.EventPending:
		s += fmt.Sprintf(" %s %s", ev.Call.ID, ev.Pending.Kind)
	case agent.EventEnd:
		s += fmt.Sprintf(" %d message(s) %d+%d", len(ev.History), ev.Usage.InputTokens, ev.Usage.OutputTokens)
	}
	return s
}

func collect(t *testing.T, events iter.Seq2[agent.Event, error]) ([]string, error) {
	t.Helper()
	var got []string
	var last error
	for ev, err := range events {
		got = append(got, describe(ev))
		if err != nil {
			if ev.Kind != agent.EventEnd {
				t.Errorf("error %v came with a %s event, want it with the end", err, ev.Kind)
			}
			last = err
		}
	}
	return got, last
}

func TestStreamEvents(t *testing.T) {
	count := tool.New("count", "Count.", func(ctx context.Context, _ struct{}) (string, error) {
		for i := 1; i <= 2; i++ {
			tool.Progress(ctx, i)
		}
		return "counted", nil
	})
	del := tool.New("delete", "Delete.", func(ctx context.Context, _ struct{}) (string, error) { return "deleted", nil },
		tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{count, del}})
	opts := &agent.Options{NeedsApproval: agent.Destructive(reg)}

	first := agenttest.Streamed("Let me ", "count.")
	first.Response.Calls = []agent.ToolCall{agenttest.Call("c1", "count", `{}`), agenttest.Call("c2", "delete", `{}`)}
	first.Response.Usage = agent.Usage{InputTokens: 10, OutputTokens: 4}
	got, err := collect(t, agent.Stream(t.Context(), agenttest.NewStreamScript(first), reg, agent.History{agent.UserText("go")}, opts))
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("the stream ended with %v, want an *Interrupt", err)
	}
	want := []string{
		`1 delta "Let me "`,
		`1 delta "count."`,
		`1 response "Let me count." 2 call(s)`,
		`1 usage 10+4`,
		`1 call_start c1`,
		`1 call_progress c1 1`,
		`1 call_progress c1 2`,
		`1 call_result c1 "counted"`,
		`1 pending c2 approval`,
		`1 end 3 message(s) 10+4`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n%q\nwant:\n%q", got, want)
	}

	in, _ := errors.AsType[*agent.Interrupt](err)
	second := agent.Response{Text: "done", Usage: agent.Usage{InputTokens: 20, OutputTokens: 1}}
	got, err = collect(t, agent.ResumeStream(t.Context(), agenttest.NewScript(second), reg, in, []agent.Decision{agent.Approve("c2")}, opts))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		`1 call_start c2`,
		`1 call_result c2 "deleted"`,
		`2 response "done" 0 call(s)`,
		`2 usage 20+1`,
		`2 end 5 message(s) 20+1`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed events:\n%q\nwant:\n%q", got, want)
	}
}

func TestStreamEndsWithTheModelError(t *testing.T) {
	got, err := collect(t, agent.Stream(t.Context(), agenttest.NewScript(), nil, agent.History{agent.UserText("hi")}, nil))
	if !errors.Is(err, agenttest.ErrScriptEnded) {
		t.Errorf("err = %v, want the model's", err)
	}
	if want := []string{"1 end 1 message(s) 0+0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}

// A consumer that stops early cancels the run: handlers see their context
// end, and no goroutine is left behind (the bubble fails if one is).
func TestStoppingEarlyCancelsTheRun(t *testing.T) {
	for _, tt := range []struct {
		name     string
		parallel int
		stopAt   agent.EventKind
	}{
		{"during the model's output", 0, agent.EventDelta},
		{"at a call's start", 0, agent.EventCallStart},
		{"at progress", 0, agent.EventCallProgress},
		{"parallel, at a call's start", 3, agent.EventCallStart},
		{"parallel, at progress", 3, agent.EventCallProgress},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				started, ended := 0, 0
				block := tool.New("block", "Block.", func(ctx context.Context, _ struct{}) (string, error) {
					mu.Lock()
					started++
					mu.Unlock()
					defer func() {
						mu.Lock()
						ended++
						mu.Unlock()
					}()
					tool.Progress(ctx, "waiting")
					<-ctx.Done()
					return "", ctx.Err()
				})
				reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{block}})
				turn := agenttest.Streamed("one ", "two")
				turn.Response.Calls = []agent.ToolCall{agenttest.Call("a", "block", `{}`), agenttest.Call("b", "block", `{}`), agenttest.Call("c", "block", `{}`)}
				model := agenttest.NewStreamScript(turn, agenttest.Streamed("never"))

				var seen []agent.EventKind
				for ev, err := range agent.Stream(t.Context(), model, reg, nil, &agent.Options{Parallel: tt.parallel}) {
					if err != nil {
						t.Fatalf("the stream failed before the consumer stopped: %v", err)
					}
					seen = append(seen, ev.Kind)
					if ev.Kind == tt.stopAt {
						break
					}
				}
				if seen[len(seen)-1] != tt.stopAt {
					t.Fatalf("the stream ended before a %s event: %v", tt.stopAt, seen)
				}
				synctest.Wait() // every goroutine of the run has ended or is stuck
				mu.Lock()
				defer mu.Unlock()
				if started != ended {
					t.Errorf("%d handlers started and %d ended", started, ended)
				}
				if n := len(model.Requests()); n != 1 {
					t.Errorf("the model was asked %d times, want once", n)
				}
			})
		})
	}
}

// Parallel calls deliver their events on the consumer's goroutine, and the
// history keeps the calls' order.
func TestStreamParallel(t *testing.T) {
	var mu sync.Mutex
	work := tool.New("work", "Work.", func(ctx context.Context, a titleArgs) (string, error) {
		tool.Progress(ctx, a.Title)
		mu.Lock()
		defer mu.Unlock()
		return "did " + a.Title, nil
	})
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{work}})
	var calls []agent.ToolCall
	for _, id := range []string{"a", "b", "c", "d"} {
		calls = append(calls, agenttest.Call(id, "work", `{"title":"`+id+`"}`))
	}
	counts := map[agent.EventKind]int{}
	var history agent.History
	for ev, err := range agent.Stream(t.Context(), agenttest.NewScript(respond(calls...), agent.Response{Text: "ok"}), reg, nil, &agent.Options{Parallel: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		counts[ev.Kind]++
		history = ev.History
	}
	if counts[agent.EventCallStart] != 4 || counts[agent.EventCallProgress] != 4 || counts[agent.EventCallResult] != 4 {
		t.Errorf("event counts = %v, want 4 starts, progress reports and results", counts)
	}
	if got, want := toolMessages(history), []string{"a ok: did a", "b ok: did b", "c ok: did c", "d ok: did d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
}

type ctxKey struct{}

// Middleware wraps the run, the model and the tool calls, the first listed
// outermost, and a value the Run layer puts in the context reaches both.
func TestMiddleware(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, s)
	}
	layer := func(name string) agent.Middleware {
		return agent.Middleware{
			Run: func(next agent.RunFunc) agent.RunFunc {
				return func(ctx context.Context) iter.Seq2[agent.Event, error] {
					return func(yield func(agent.Event, error) bool) {
						note(name + " run")
						for ev, err := range next(context.WithValue(ctx, ctxKey{}, name)) {
							if ev.Kind == agent.EventEnd {
								note(name + " end")
							}
							if !yield(ev, err) {
								return
							}
						}
					}
				}
			},
			Model: func(next agent.Model) agent.Model {
				return modelFunc(func(ctx context.Context, req *agent.Request) (*agent.Response, error) {
					note(fmt.Sprintf("%s model (ctx %v)", name, ctx.Value(ctxKey{})))
					return next.Generate(ctx, req)
				})
			},
			Tool: tool.BeforeCall(func(ctx context.Context, call *tool.Call) error {
				note(fmt.Sprintf("%s tool %s (ctx %v)", name, call.Name, ctx.Value(ctxKey{})))
				return nil
			}),
		}
	}
	echo := tool.New("echo", "Echo.", func(ctx context.Context, a titleArgs) (string, error) { return a.Title, nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{echo}})
	model := agenttest.NewScript(respond(agenttest.Call("1", "echo", `{"title":"x"}`)), agent.Response{Text: "ok"})
	_, err := agent.Run(t.Context(), model, reg, nil, &agent.Options{Middleware: []agent.Middleware{layer("outer"), layer("inner")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"outer run", "inner run",
		"outer model (ctx inner)", "inner model (ctx inner)",
		"outer tool echo (ctx inner)", "inner tool echo (ctx inner)",
		"outer model (ctx inner)", "inner model (ctx inner)",
		"inner end", "outer end",
	}
	if !reflect.DeepEqual(trace, want) {
		t.Errorf("trace:\n%q\nwant:\n%q", trace, want)
	}
}

type modelFunc func(ctx context.Context, req *agent.Request) (*agent.Response, error)

func (f modelFunc) Generate(ctx context.Context, req *agent.Request) (*agent.Response, error) {
	return f(ctx, req)
}

// TestToolMiddlewarePanicIsAResult checks that a panic in a tool middleware
// of the loop becomes the call's error result, also when the calls of a
// turn run in parallel, rather than ending the process.
func TestToolMiddlewarePanicIsAResult(t *testing.T) {
	echo := tool.New("echo", "Echo.", func(ctx context.Context, a titleArgs) (string, error) { return a.Title, nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{echo}})
	broken := agent.Middleware{Tool: tool.BeforeCall(func(context.Context, *tool.Call) error { panic("broken hook") })}
	for _, parallel := range []int{1, 2} {
		model := agenttest.NewScript(respond(agenttest.Call("1", "echo", `{"title":"x"}`), agenttest.Call("2", "echo", `{"title":"y"}`)), agent.Response{Text: "ok"})
		history, err := agent.Run(t.Context(), model, reg, nil, &agent.Options{Parallel: parallel, Middleware: []agent.Middleware{broken}})
		if err != nil {
			t.Fatalf("Parallel %d: %v", parallel, err)
		}
		errs := 0
		for _, m := range history {
			if m.Role == agent.RoleTool && m.IsError {
				errs++
			}
		}
		if errs != 2 {
			t.Errorf("Parallel %d: %d error results, want 2: %+v", parallel, errs, history)
		}
	}
}

// TestRewrittenContentDropsStructured checks that the history keeps a
// tool's structured output only while the text is the structured output's
// own, so a middleware that redacts the text is not bypassed.
func TestRewrittenContentDropsStructured(t *testing.T) {
	type secret struct {
		Token string `json:"token"`
	}
	leak := tool.New("leak", "Leak.", func(context.Context, struct{}) (secret, error) { return secret{Token: "hunter2"}, nil })
	for _, redact := range []bool{false, true} {
		reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{leak}})
		if redact {
			reg.Use(tool.OnResult(func(_ context.Context, _ tool.Call, res *tool.Result) { res.Content = "[redacted]" }))
		}
		model := agenttest.NewScript(respond(agenttest.Call("1", "leak", `{}`)), agent.Response{Text: "ok"})
		history, err := agent.Run(t.Context(), model, reg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range history {
			if m.Role != agent.RoleTool {
				continue
			}
			if redact && m.Structured != nil {
				t.Errorf("the redacted result kept its structured output %s", m.Structured)
			}
			if !redact && string(m.Structured) != `{"token":"hunter2"}` {
				t.Errorf("Structured = %s, want the output", m.Structured)
			}
		}
	}
}

// TestHistoryKeepsParts checks that a tool message holds the result's
// parts, that they survive a JSON round trip, and that a middleware that
// rewrites the text drops them, as it drops the structured output.
func TestHistoryKeepsParts(t *testing.T) {
	parts := []tool.Part{tool.Text("The chart:"), tool.Image("image/png", []byte("\x89PNG\r\n\x1a\n")), tool.Link("file:///r.pdf", "report", "")}
	chart := tool.New("chart", "Draw a chart.", func(context.Context, struct{}) ([]tool.Part, error) { return parts, nil })
	for _, redact := range []bool{false, true} {
		reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{chart}})
		if redact {
			reg.Use(tool.OnResult(func(_ context.Context, _ tool.Call, res *tool.Result) { res.Content = "[redacted]" }))
		}
		model := agenttest.NewScript(respond(agenttest.Call("1", "chart", `{}`)), agent.Response{Text: "ok"})
		history, err := agent.Run(t.Context(), model, reg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(history)
		if err != nil {
			t.Fatal(err)
		}
		var decoded agent.History
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		for _, m := range decoded {
			if m.Role != agent.RoleTool {
				continue
			}
			var want []tool.Part
			if !redact {
				want = parts
			}
			if !reflect.DeepEqual(m.Parts, want) {
				t.Errorf("redact=%v: the tool message's Parts after a JSON round trip = %+v, want %+v", redact, m.Parts, want)
			}
		}
	}
}
