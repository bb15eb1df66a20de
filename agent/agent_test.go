package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

type titleArgs struct {
	Title string `json:"title" tool:"minLength=1"`
}

func newRegistry(t testing.TB, scopes ...*tool.Scope) *tool.Registry {
	t.Helper()
	reg, err := tool.NewRegistry(scopes...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func respond(calls ...agent.ToolCall) agent.Response { return agent.Response{Calls: calls} }

func TestEveryCallLeavesTwoRecords(t *testing.T) {
	ok := tool.New("ok", "Succeed.", func(ctx context.Context, a titleArgs) (string, error) { return "ok " + a.Title, nil })
	fail := tool.New("fail", "Fail.", func(context.Context, titleArgs) (string, error) { return "", errors.New("quota exceeded") })
	boom := tool.New("boom", "Panic.", func(context.Context, titleArgs) (string, error) { panic("nil map") })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{ok, fail, boom}})
	model := agenttest.NewScript(
		respond(
			agenttest.Call("a", "ok", `{"title":"x"}`),
			agenttest.Call("b", "fail", `{"title":"x"}`),
			agenttest.Call("c", "ok", `{"title":""}`),
			agenttest.Call("d", "boom", `{"title":"x"}`),
			agenttest.Call("e", "missing", `{}`),
		),
		agent.Response{Text: "done"},
	)
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("go")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1+1+5+1 {
		t.Fatalf("history has %d messages, want 8: %+v", len(history), history)
	}
	calls := history[1].Calls
	for i, want := range []struct {
		isError bool
		text    string
	}{
		{false, "ok x"},
		{true, "quota exceeded"},
		{true, "/title: must be at least 1 character"},
		{true, "internal error"},
		{true, `no tool named "missing"`},
	} {
		m := history[2+i]
		if m.Role != agent.RoleTool || m.CallID != calls[i].ID || m.Name != calls[i].Name {
			t.Errorf("message %d = %+v, want the tool message of call %s", 2+i, m, calls[i].ID)
		}
		if m.IsError != want.isError || !strings.Contains(m.Text, want.text) {
			t.Errorf("message for %s = %v %q, want %v and %q", calls[i].ID, m.IsError, m.Text, want.isError, want.text)
		}
	}
	// The second turn saw every result.
	if got := len(model.Requests()[1].Messages); got != 7 {
		t.Errorf("the second request had %d messages, want 7", got)
	}
}

func TestToolsEnabledNowAndScopeInstructions(t *testing.T) {
	signedIn := false
	login := tool.New("login", "Sign in.", func(context.Context, struct{}) (string, error) {
		signedIn = true
		return "signed in", nil
	})
	write := tool.New("write", "Write.", func(context.Context, titleArgs) (string, error) { return "written", nil })
	reg := newRegistry(t,
		&tool.Scope{Name: "public", Tools: []tool.Interface{login}, Instructions: "Be brief.", Placement: tool.InSystemPrompt},
		&tool.Scope{Name: "private", Tools: []tool.Interface{write}, Instructions: "The user is signed in.", Placement: tool.AsUserMessage,
			Enabled: func(context.Context) bool { return signedIn }},
	)
	model := agenttest.NewScript(
		respond(agenttest.Call("1", "login", `{}`)),
		respond(agenttest.Call("2", "write", `{"title":"t"}`)),
		agent.Response{Text: "done"},
	)
	_, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("hi")}, &agent.Options{System: "You help."})
	if err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	names := func(r agent.Request) (out []string) {
		for _, s := range r.Tools {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(reqs[0]); !reflect.DeepEqual(got, []string{"login"}) {
		t.Errorf("turn 1 tools = %v", got)
	}
	if got := names(reqs[1]); !reflect.DeepEqual(got, []string{"login", "write"}) {
		t.Errorf("turn 2 tools = %v", got)
	}
	if reqs[0].System != "You help.\n\nBe brief." {
		t.Errorf("turn 1 system = %q", reqs[0].System)
	}
	if reqs[0].Messages[0].Text != "hi" {
		t.Errorf("turn 1 starts with %+v; the private scope's instructions must be left out", reqs[0].Messages[0])
	}
	if m := reqs[1].Messages[0]; m.Role != agent.RoleUser || m.Text != "The user is signed in." {
		t.Errorf("turn 2 starts with %+v, want the private scope's instructions as a user message", m)
	}
}

func TestTurnLimit(t *testing.T) {
	loop := tool.New("again", "Again.", func(context.Context, struct{}) (string, error) { return "again", nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{loop}})
	var responses []agent.Response
	for range 5 {
		responses = append(responses, respond(agenttest.Call("", "again", `{}`)))
	}
	history, err := agent.Run(t.Context(), agenttest.NewScript(responses...), reg, nil, &agent.Options{MaxTurns: 3})
	var limit *agent.TurnLimitError
	if !errors.As(err, &limit) || limit.Turns != 3 || !errors.Is(err, agent.ErrTurnLimit) {
		t.Fatalf("Run = %v, want a *TurnLimitError after 3 turns", err)
	}
	if len(history) != 6 {
		t.Fatalf("history has %d messages, want 3 calls and 3 results", len(history))
	}
	ids := map[string]bool{}
	for i := 0; i < len(history); i += 2 {
		id := history[i].Calls[0].ID
		if id == "" || ids[id] || history[i+1].CallID != id {
			t.Errorf("turn %d: call ID %q, result for %q; IDs must be unique and matched", i/2+1, id, history[i+1].CallID)
		}
		ids[id] = true
	}
}

func TestModelErrorKeepsHistory(t *testing.T) {
	reg := newRegistry(t)
	model := agenttest.NewScript() // no responses at all
	start := agent.History{agent.UserText("hello")}
	history, err := agent.Run(t.Context(), model, reg, start, nil)
	if !errors.Is(err, agenttest.ErrScriptEnded) {
		t.Errorf("Run = %v, want the model's error", err)
	}
	if !reflect.DeepEqual(history, start) {
		t.Errorf("history = %+v, want it unchanged", history)
	}
}

func TestHistoryRoundTripsAndResumes(t *testing.T) {
	echo := tool.New("echo", "Echo.", func(ctx context.Context, a titleArgs) (string, error) { return a.Title, nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{echo}})
	first := agenttest.NewScript(respond(agenttest.Call("x1", "echo", `{"title":"one"}`)), agent.Response{Text: "said one"})
	history, err := agent.Run(t.Context(), first, reg, agent.History{agent.UserText("say one")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	var restored agent.History
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(restored, history) {
		t.Fatalf("the history changed through JSON:\n%+v\n%+v", restored, history)
	}
	restored = append(restored, agent.UserText("again"))
	second := agenttest.NewScript(respond(agenttest.Call("x1", "echo", `{"title":"two"}`)), agent.Response{Text: "said two"})
	resumed, err := agent.Run(t.Context(), second, reg, restored, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.Requests()[0].Messages; len(got) != 5 {
		t.Errorf("the resumed conversation sent %d messages, want 5", len(got))
	}
	// The reused ID x1 was made unique, so each result matches one call.
	last := resumed[len(resumed)-3]
	if last.Calls[0].ID == "x1" || resumed[len(resumed)-2].CallID != last.Calls[0].ID {
		t.Errorf("a repeated call ID was not made unique: %+v", resumed[len(resumed)-3:])
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	stop := tool.New("stop", "Stop.", func(ctx context.Context, _ struct{}) (string, error) {
		cancel()
		return "stopping", nil
	})
	after := tool.New("after", "After.", func(ctx context.Context, _ struct{}) (string, error) { return "ran", nil })
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{stop, after}})
	model := agenttest.NewScript(respond(agenttest.Call("1", "stop", `{}`), agenttest.Call("2", "after", `{}`)), agent.Response{Text: "never"})
	history, err := agent.Run(ctx, model, reg, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if len(history) != 3 || history[2].CallID != "2" || !history[2].IsError {
		t.Errorf("history = %+v, want both calls answered, the second as cancelled", history)
	}
}

func TestParallelKeepsCallOrder(t *testing.T) {
	var mu sync.Mutex
	var started []string
	work := tool.New("work", "Work.", func(ctx context.Context, a titleArgs) (string, error) {
		mu.Lock()
		started = append(started, a.Title)
		mu.Unlock()
		return a.Title, nil
	})
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{work}})
	var calls []agent.ToolCall
	for _, title := range []string{"a", "b", "c", "d"} {
		calls = append(calls, agenttest.Call("id-"+title, "work", `{"title":"`+title+`"}`))
	}
	history, err := agent.Run(t.Context(), agenttest.NewScript(respond(calls...), agent.Response{Text: "ok"}), reg, nil, &agent.Options{Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, title := range []string{"a", "b", "c", "d"} {
		if m := history[1+i]; m.CallID != "id-"+title || m.Text != title {
			t.Errorf("message %d = %+v, want the result of id-%s", 1+i, m, title)
		}
	}
	if len(started) != 4 {
		t.Errorf("%d calls ran", len(started))
	}
}

func TestStateReachesHandlers(t *testing.T) {
	who := tool.New("whoami", "Who am I.", func(ctx context.Context, _ struct{}) (string, error) {
		call, _ := tool.CallFrom(ctx)
		return call.State["user"].(string), nil
	})
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{who}})
	history, err := agent.Run(t.Context(), agenttest.NewScript(respond(agenttest.Call("1", "whoami", `{}`)), agent.Response{Text: "ok"}), reg, nil,
		&agent.Options{State: map[string]any{"user": "ada"}})
	if err != nil || history[1].Text != "ada" {
		t.Errorf("Run = %v, %+v", err, history)
	}
}
