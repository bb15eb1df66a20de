package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/tool"
)

type noteArgs struct {
	Title string `json:"title" tool:"minLength=1"`
}

// recorder builds tools that append their name and argument to a shared log.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) tool(name string, opts ...tool.Option) *tool.Tool[noteArgs, string] {
	return tool.New(name, "Record a call.", func(ctx context.Context, a noteArgs) (string, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.log = append(r.log, name+":"+a.Title)
		return name + " " + a.Title, nil
	}, opts...)
}

func call(id, name, args string) tool.Call {
	return tool.Call{ID: id, Name: name, Args: json.RawMessage(args)}
}

// badName is an Interface whose spec has a name tool.New would refuse.
type badName struct{ tool.Interface }

func (badName) Name() string    { return "bad name" }
func (badName) Spec() tool.Spec { return tool.Spec{Name: "bad name"} }

func TestNewRegistryNames(t *testing.T) {
	var rec recorder
	a, b := rec.tool("get_user"), rec.tool("list_notes")
	for _, tt := range []struct {
		name    string
		scopes  []*tool.Scope
		errs    []string // the *NameError texts expected, in order
		is      error
		scopes2 [][]string
	}{
		{name: "ok", scopes: []*tool.Scope{{Name: "a", Tools: []tool.Interface{a}}, {Name: "b", Tools: []tool.Interface{b}}}},
		{name: "twice in one scope", scopes: []*tool.Scope{{Name: "a", Tools: []tool.Interface{a, a}}},
			is: tool.ErrDuplicateName, scopes2: [][]string{{"a", "a"}}},
		{name: "across scopes", scopes: []*tool.Scope{{Name: "users", Tools: []tool.Interface{a}}, {Name: "admin", Tools: []tool.Interface{rec.tool("get_user")}}},
			is: tool.ErrDuplicateName, scopes2: [][]string{{"users", "admin"}}},
		{name: "hyphen and case", scopes: []*tool.Scope{{Name: "users", Tools: []tool.Interface{a}}, {Name: "admin", Tools: []tool.Interface{rec.tool("Get-User")}}},
			is: tool.ErrDuplicateName, scopes2: [][]string{{"users", "admin"}}},
		{name: "invalid name", scopes: []*tool.Scope{{Name: "odd", Tools: []tool.Interface{badName{}}}},
			is: tool.ErrInvalidName, scopes2: [][]string{{"odd"}}},
		{name: "every problem at once", scopes: []*tool.Scope{{Name: "a", Tools: []tool.Interface{a, badName{}, a}}},
			is: tool.ErrDuplicateName, scopes2: [][]string{{"a"}, {"a", "a"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := tool.NewRegistry(tt.scopes...)
			if tt.is == nil {
				if err != nil || reg == nil {
					t.Fatalf("NewRegistry = %v, %v", reg, err)
				}
				return
			}
			if !errors.Is(err, tt.is) {
				t.Fatalf("NewRegistry error = %v, want one matching %v", err, tt.is)
			}
			var got [][]string
			var nerrs []error
			if joined, ok := err.(interface{ Unwrap() []error }); ok {
				nerrs = joined.Unwrap()
			} else {
				nerrs = []error{err}
			}
			for _, e := range nerrs {
				nerr, ok := errors.AsType[*tool.NameError](e)
				if !ok {
					t.Fatalf("error %v is not a *NameError", e)
				}
				got = append(got, nerr.Scopes)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.scopes2) {
				t.Errorf("errors name scopes %v, want %v (%v)", got, tt.scopes2, err)
			}
		})
	}
}

func TestZeroRegistry(t *testing.T) {
	var reg tool.Registry
	if specs := reg.Specs(t.Context()); len(specs) != 0 {
		t.Errorf("Specs = %v", specs)
	}
	res := tool.Run(t.Context(), &reg, call("1", "anything", `{}`))
	if _, ok := errors.AsType[*tool.UnknownToolError](res.Err); !ok || !strings.Contains(res.Content, "No tools are available") {
		t.Errorf("Run on a zero Registry = %+v", res)
	}
}

func TestEnabledAtListingAndAtCall(t *testing.T) {
	var rec recorder
	var toolOn, scopeOn atomic.Bool
	toolOn.Store(true)
	scopeOn.Store(true)
	gated := rec.tool("delete_note", tool.WithEnabled(func(context.Context) bool { return toolOn.Load() }))
	admin := rec.tool("ban_user")
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "notes", Tools: []tool.Interface{rec.tool("create_note"), gated}},
		&tool.Scope{Name: "admin", Tools: []tool.Interface{admin}, Enabled: func(context.Context) bool { return scopeOn.Load() }},
	)
	if err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		var out []string
		for _, s := range reg.Specs(t.Context()) {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"create_note", "delete_note", "ban_user"}) {
		t.Errorf("Specs = %v", got)
	}
	// The model saw delete_note on this turn; it is disabled before its call
	// arrives.
	toolOn.Store(false)
	scopeOn.Store(false)
	if got := names(); !slices.Equal(got, []string{"create_note"}) {
		t.Errorf("Specs after disabling = %v", got)
	}
	for _, name := range []string{"delete_note", "ban_user"} {
		res := tool.Run(t.Context(), reg, call("c", name, `{"title":"x"}`))
		derr, ok := errors.AsType[*tool.DisabledToolError](res.Err)
		if !ok || derr.Tool != name || !res.IsError || !strings.Contains(res.Content, "not available") {
			t.Errorf("stale call to %s = %+v, want a *DisabledToolError result", name, res)
		}
	}
	if len(rec.log) != 0 {
		t.Errorf("a disabled tool ran: %v", rec.log)
	}
}

func TestPanickingPredicateHidesTool(t *testing.T) {
	var rec recorder
	var logs bytes.Buffer
	broken := rec.tool("broken", tool.WithEnabled(func(context.Context) bool { panic("auth service down") }))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("fine"), broken}})
	if err != nil {
		t.Fatal(err)
	}
	reg.SetLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	specs := reg.Specs(t.Context())
	if len(specs) != 1 || specs[0].Name != "fine" {
		t.Errorf("Specs = %v, want only fine", specs)
	}
	res := tool.Run(t.Context(), reg, call("c", "broken", `{"title":"x"}`))
	if _, ok := errors.AsType[*tool.DisabledToolError](res.Err); !ok {
		t.Errorf("call to broken = %+v, want a *DisabledToolError result", res)
	}
	if !strings.Contains(logs.String(), "auth service down") || !strings.Contains(logs.String(), "tool=broken") {
		t.Errorf("the panic was not logged: %q", logs.String())
	}
}

func TestUnknownTool(t *testing.T) {
	var rec recorder
	reg, err := tool.NewRegistry(&tool.Scope{Name: "notes", Tools: []tool.Interface{rec.tool("create_note"), rec.tool("list_notes")}})
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Run(t.Context(), reg, call("c9", "createNote", `{}`))
	uerr, ok := errors.AsType[*tool.UnknownToolError](res.Err)
	if !ok || uerr.Tool != "createNote" || !slices.Equal(uerr.Available, []string{"create_note", "list_notes"}) {
		t.Fatalf("Run(createNote) = %+v, want an *UnknownToolError listing the tools", res)
	}
	for _, want := range []string{`no tool named "createNote"`, `Did you mean "create_note"?`, `"create_note", "list_notes"`} {
		if !strings.Contains(strings.ToLower(res.Content), strings.ToLower(want)) {
			t.Errorf("Content %q does not say %q", res.Content, want)
		}
	}
	if res.CallID != "c9" || res.Tool != "createNote" {
		t.Errorf("result for %q/%q, want c9/createNote", res.CallID, res.Tool)
	}
}

func TestRunAllKeepsOrderAndGivesEveryCallAResult(t *testing.T) {
	var rec recorder
	failing := tool.New("fail", "Fail.", func(context.Context, noteArgs) (string, error) { return "", errors.New("disk full") })
	panicking := tool.New("panic", "Panic.", func(context.Context, noteArgs) (string, error) { panic("bug") })
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("a"), rec.tool("b"), failing, panicking}})
	if err != nil {
		t.Fatal(err)
	}
	calls := []tool.Call{
		call("1", "b", `{"title":"first"}`),
		call("2", "a", `{"title":"second"}`),
		call("3", "a", `{"title":""}`),
		call("4", "fail", `{"title":"x"}`),
		call("5", "panic", `{"title":"x"}`),
		call("6", "nope", `{}`),
		call("7", "b", `{"title":"last"}`),
	}
	results := tool.RunAll(t.Context(), reg, calls, nil)
	if !slices.Equal(rec.log, []string{"b:first", "a:second", "b:last"}) {
		t.Errorf("tools ran in order %v", rec.log)
	}
	if len(results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(results), len(calls))
	}
	wantErr := []bool{false, false, true, true, true, true, false}
	for i, res := range results {
		if res.CallID != calls[i].ID || res.IsError != wantErr[i] {
			t.Errorf("result %d = %+v, want call %s with IsError=%v", i, res, calls[i].ID, wantErr[i])
		}
	}
	if _, ok := errors.AsType[*tool.ValidationError](results[2].Err); !ok {
		t.Errorf("result 3 = %v, want a validation error", results[2].Err)
	}
	if _, ok := errors.AsType[*tool.PanicError](results[4].Err); !ok {
		t.Errorf("result 5 = %v, want a panic error", results[4].Err)
	}
}

func TestCancelMidBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var ran []string
	step := func(name string) *tool.Tool[noteArgs, string] {
		return tool.New(name, "A step.", func(ctx context.Context, a noteArgs) (string, error) {
			ran = append(ran, name)
			if name == "stop" {
				cancel()
			}
			return name, ctx.Err()
		})
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{step("one"), step("stop"), step("three")}})
	if err != nil {
		t.Fatal(err)
	}
	calls := []tool.Call{call("1", "one", `{"title":"x"}`), call("2", "stop", `{"title":"x"}`), call("3", "three", `{"title":"x"}`), call("4", "missing", `{}`)}
	results := tool.RunAll(ctx, reg, calls, nil)
	if len(results) != 4 {
		t.Fatalf("%d results for 4 calls", len(results))
	}
	if results[0].IsError {
		t.Errorf("the call before the cancellation failed: %+v", results[0])
	}
	for _, res := range results[1:3] {
		if !errors.Is(res.Err, context.Canceled) || !strings.Contains(res.Content, "cancelled") {
			t.Errorf("result %s = %+v, want a cancellation", res.CallID, res)
		}
	}
	if !results[3].IsError || results[3].CallID != "4" {
		t.Errorf("the unknown call after the cancellation = %+v", results[3])
	}
	if !slices.Equal(ran, []string{"one", "stop"}) {
		t.Errorf("handlers ran: %v; none may start after the cancellation", ran)
	}
}

func TestRunAllParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, peak atomic.Int32
		sleepy := tool.New("sleep", "Sleep.", func(ctx context.Context, a struct {
			MS int `json:"ms"`
		}) (string, error) {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Duration(a.MS) * time.Millisecond)
			return fmt.Sprint(a.MS), nil
		})
		reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{sleepy}})
		if err != nil {
			t.Fatal(err)
		}
		var calls []tool.Call
		for i, ms := range []int{40, 30, 20, 10, 1, 25} {
			calls = append(calls, call(fmt.Sprint(i), "sleep", fmt.Sprintf(`{"ms":%d}`, ms)))
		}
		start := time.Now()
		results := tool.RunAll(t.Context(), reg, calls, &tool.BatchOptions{Parallel: 3})
		// Three at a time: 40, 30 and 20 start at once, 10 when 20 ends,
		// 1 and 25 when 30 and 10 end at 30ms; the batch ends at 55ms.
		if elapsed := time.Since(start); elapsed != 55*time.Millisecond {
			t.Errorf("RunAll took %v, want 55ms with three calls at a time", elapsed)
		}
		for i, res := range results {
			if res.CallID != calls[i].ID || res.IsError {
				t.Errorf("result %d = %+v, want call %s", i, res, calls[i].ID)
			}
		}
		if p := peak.Load(); p != 3 {
			t.Errorf("peak concurrency %d, want 3 with a limit of 3", p)
		}
	})
}

func TestMiddleware(t *testing.T) {
	var rec recorder
	var order []string
	trace := func(name string) tool.Middleware {
		return func(next tool.Handler) tool.Handler {
			return tool.HandlerFunc(func(ctx context.Context, c tool.Call) iter.Seq[tool.Event] {
				order = append(order, name+">")
				return func(yield func(tool.Event) bool) {
					for ev := range next.Stream(ctx, c) {
						if ev.Result != nil {
							order = append(order, "<"+name)
						}
						if !yield(ev) {
							return
						}
					}
				}
			})
		}
	}
	progress := tool.New("progress", "Report progress.", func(ctx context.Context, a noteArgs) (string, error) {
		tool.Progress(ctx, "half")
		return "done", nil
	})
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("note"), progress}})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(trace("a"), trace("b"))
	// The result hooks go outside BeforeCall, so that they see its denials.
	reg.Use(
		tool.OnError(func(ctx context.Context, c tool.Call, res *tool.Result) {
			res.Content = "[handled] " + res.Content
		}),
		tool.OnResult(func(ctx context.Context, c tool.Call, res *tool.Result) {
			if !res.IsError {
				res.Content = strings.ToUpper(res.Content)
			}
		}),
		tool.BeforeCall(func(ctx context.Context, c *tool.Call) error {
			if c.Name == "note" {
				c.Args = json.RawMessage(`{"title":"rewritten"}`)
			}
			if bytes.Contains(c.Args, []byte("forbidden")) {
				return errors.New("the policy forbids this title")
			}
			return nil
		}),
	)

	res := tool.Run(t.Context(), reg, call("1", "note", `{"title":"original"}`))
	if res.Content != "NOTE REWRITTEN" || !slices.Equal(rec.log, []string{"note:rewritten"}) {
		t.Errorf("Run = %q, log %v; want the rewritten call and the replaced result", res.Content, rec.log)
	}
	if !slices.Equal(order, []string{"a>", "b>", "<b", "<a"}) {
		t.Errorf("middleware order = %v, want a outermost", order)
	}

	res = tool.Run(t.Context(), reg, call("2", "progress", `{"title":"forbidden"}`))
	derr, ok := errors.AsType[*tool.DeniedError](res.Err)
	if !ok || !strings.HasPrefix(res.Content, "[handled] ") || !strings.Contains(res.Content, "the policy forbids this title") || derr.Tool != "progress" {
		t.Errorf("denied call = %+v", res)
	}

	var evs []tool.Event
	for ev := range reg.Stream(t.Context(), call("3", "progress", `{"title":"ok"}`)) {
		evs = append(evs, ev)
	}
	if len(evs) != 2 || evs[0].Progress != "half" || evs[1].Result == nil || evs[1].Result.Content != "DONE" {
		t.Errorf("Stream through middleware = %v, want the progress event and the result", evs)
	}
}

func TestMiddlewareMisbehaving(t *testing.T) {
	var rec recorder
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("note")}})
	if err != nil {
		t.Fatal(err)
	}
	mode := ""
	reg.Use(func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c tool.Call) iter.Seq[tool.Event] {
			return func(yield func(tool.Event) bool) {
				switch mode {
				case "swallow":
					for range next.Stream(ctx, c) {
					}
				case "twice":
					first := tool.Result{Content: "first"}
					second := tool.Result{Content: "second"}
					if yield(tool.Event{Result: &first}) {
						yield(tool.Event{Result: &second})
					}
				case "panic":
					panic("middleware bug")
				}
			}
		})
	})
	for _, tt := range []struct {
		mode  string
		check func(res tool.Result) bool
	}{
		{"swallow", func(res tool.Result) bool { return res.IsError && strings.Contains(res.Content, "without a result") }},
		{"twice", func(res tool.Result) bool { return res.Content == "first" && res.CallID == "1" && res.Tool == "note" }},
		{"panic", func(res tool.Result) bool {
			_, ok := errors.AsType[*tool.PanicError](res.Err)
			return ok
		}},
	} {
		mode = tt.mode
		var results []tool.Result
		for ev := range reg.Stream(t.Context(), call("1", "note", `{"title":"x"}`)) {
			results = append(results, *ev.Result)
		}
		if len(results) != 1 || !tt.check(results[0]) {
			t.Errorf("%s: results = %+v, want exactly one, as checked", tt.mode, results)
		}
	}

	// A panic in the caller's own loop body is not turned into a result.
	mode = ""
	reg2, _ := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("note")}})
	got := panicMessage(func() {
		for range reg2.Stream(t.Context(), call("1", "note", `{"title":"x"}`)) {
			panic("caller bug")
		}
	})
	if got != "caller bug" {
		t.Errorf("the caller's panic became %q", got)
	}
}

func TestToolTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := tool.New("slow", "Be slow.", func(ctx context.Context, a noteArgs) (string, error) {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Minute):
				return "late", nil
			}
		}, tool.WithTimeout(20*time.Millisecond))
		reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{slow}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res := tool.Run(t.Context(), reg, call("1", "slow", `{"title":"x"}`))
		if !errors.Is(res.Err, context.DeadlineExceeded) || !strings.Contains(res.Content, "timed out") {
			t.Errorf("Run = %+v, want a timeout result", res)
		}
		if elapsed := time.Since(start); elapsed != 20*time.Millisecond {
			t.Errorf("Run answered after %v, want the timeout of 20ms", elapsed)
		}
	})
}

func TestConcurrentRegistryUse(t *testing.T) {
	var rec recorder
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{rec.tool("a"), rec.tool("b")}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 25 {
				calls := []tool.Call{call("1", "a", fmt.Sprintf(`{"title":"%d-%d"}`, i, j)), call("2", "b", `{"title":"x"}`), call("3", "zzz", `{}`)}
				results := tool.RunAll(t.Context(), reg, calls, nil)
				if len(results) != 3 || results[0].IsError || results[1].IsError || !results[2].IsError {
					t.Errorf("RunAll = %+v", results)
					return
				}
				_ = reg.Specs(t.Context())
			}
		})
	}
	wg.Go(func() { reg.Use(tool.OnResult(func(context.Context, tool.Call, *tool.Result) {})) })
	wg.Wait()
	if len(rec.log) != 8*25*2 {
		t.Errorf("%d calls ran, want %d", len(rec.log), 8*25*2)
	}
}

// renamed is a tool whose spec names it differently from its Name.
type renamed struct{ ownTool }

func (r renamed) Spec() tool.Spec {
	s := r.ownTool.Spec()
	s.Name = "greet_v2"
	return s
}

// TestSpecNameMustBeTheName checks that a registry refuses a tool whose
// spec shows the model another name than the one it is called by: listed
// under one name and reachable under the other, it could never be called.
func TestSpecNameMustBeTheName(t *testing.T) {
	bad := renamed{ownTool{newGreetWith(nil)}}
	_, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{bad}})
	nerr, ok := errors.AsType[*tool.NameError](err)
	if !ok || !errors.Is(err, tool.ErrNameMismatch) || nerr.Name != "greet" || nerr.Other != "greet_v2" {
		t.Fatalf("NewRegistry(a tool named greet whose spec says greet_v2) = %v, want a *NameError matching ErrNameMismatch", err)
	}
	var reg tool.Registry
	if err := reg.Add(&tool.Scope{Name: "s", Tools: []tool.Interface{bad}}); !errors.Is(err, tool.ErrNameMismatch) {
		t.Errorf("Add = %v, want ErrNameMismatch", err)
	}
	if len(reg.Tools()) != 0 {
		t.Errorf("Add kept %d tools, want none", len(reg.Tools()))
	}
	if _, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{ownTool{newGreetWith(nil)}}}); err != nil {
		t.Errorf("NewRegistry(a user's tool with a matching spec) = %v", err)
	}
}

// drifting is a tool of the user's own, without SpecVersion, whose spec
// names it as specName says, which may change after it is added.
type drifting struct {
	ownTool
	specName *atomic.Value
}

func (d drifting) Spec() tool.Spec {
	s := d.ownTool.Spec()
	s.Name = d.specName.Load().(string)
	return s
}

// TestSpecsListsTheNameCallTakes checks that a tool whose spec changes
// its name after the registry took it is listed under the name the
// registry calls it by, so that a model calling what it is shown reaches
// the tool.
func TestSpecsListsTheNameCallTakes(t *testing.T) {
	var specName atomic.Value
	specName.Store("greet")
	reg := mustRegistry(t, drifting{ownTool{newGreetWith(nil)}, &specName})
	specName.Store("greet_v2")
	specs := reg.Specs(t.Context())
	if len(specs) != 1 {
		t.Fatalf("Specs = %+v, want one spec", specs)
	}
	if specs[0].Name != "greet" {
		t.Errorf("Specs()[0].Name = %q, want greet, the name Call takes", specs[0].Name)
	}
	res := tool.Run(t.Context(), reg, tool.Call{ID: "1", Name: specs[0].Name, Args: json.RawMessage(`{"name":"Ann"}`)})
	if res.IsError || res.Content != "hi Ann" {
		t.Errorf("Run(the listed name %q) = %+v, want hi Ann", specs[0].Name, res)
	}
}
