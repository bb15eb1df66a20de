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

type pathArgs struct {
	Path string `json:"path" tool:"minLength=1"`
}

// files is a small file system with a destructive tool, for approval
// tests. It records the calls its handlers ran.
type files struct {
	mu  sync.Mutex
	ran []string
}

func (f *files) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, s)
}

func (f *files) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

// registry returns a fresh registry, as a new process would build it.
func (f *files) registry(t testing.TB) *tool.Registry {
	read := tool.New("read", "Read a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("read " + a.Path)
		return "contents of " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{ReadOnly: true}))
	del := tool.New("delete", "Delete a file.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("delete " + a.Path)
		return "deleted " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	shred := tool.New("shred", "Overwrite a file, then delete it.", func(ctx context.Context, a pathArgs) (string, error) {
		f.record("shred " + a.Path)
		return "shredded " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	return newRegistry(t, &tool.Scope{Name: "files", Tools: []tool.Interface{read, del, shred}})
}

// pause runs the model's calls and expects the run to pause.
func pause(t *testing.T, f *files, opts *agent.Options, calls ...agent.ToolCall) *agent.Interrupt {
	t.Helper()
	reg := f.registry(t)
	if opts == nil {
		opts = &agent.Options{}
	}
	if opts.NeedsApproval == nil {
		opts.NeedsApproval = agent.Destructive(reg)
	}
	model := agenttest.NewScript(respond(calls...))
	history, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("tidy up")}, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok || !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("Run = %v, want an *Interrupt", err)
	}
	if !reflect.DeepEqual(history, in.History) {
		t.Errorf("Run returned history %+v, the interrupt holds %+v", history, in.History)
	}
	return in
}

// toolMessages returns the tool messages of a history as "callID error? text".
func toolMessages(h agent.History) []string {
	var out []string
	for _, m := range h {
		if m.Role == agent.RoleTool {
			s := m.CallID + " ok: " + m.Text
			if m.IsError {
				s = m.CallID + " error: " + m.Text
			}
			out = append(out, s)
		}
	}
	return out
}

func pendingIDs(in *agent.Interrupt) []string {
	var ids []string
	for _, p := range in.Pending {
		ids = append(ids, string(p.Kind)+" "+p.Call.ID)
	}
	return ids
}

func TestApprovalStopsBeforeThePendingCall(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil,
		agenttest.Call("r1", "read", `{"path":"a"}`),
		agenttest.Call("d1", "delete", `{"path":"b"}`),
		agenttest.Call("r2", "read", `{"path":"c"}`),
	)
	if got, want := f.calls(), []string{"read a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("before the decision, ran %v, want %v: the calls after the pending one must wait", got, want)
	}
	if got, want := pendingIDs(in), []string{"approval d1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pending = %v, want %v", got, want)
	}
	if got, want := toolMessages(in.History), []string{"r1 ok: contents of a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("paused history's results = %v, want %v", got, want)
	}

	model := agenttest.NewScript(agent.Response{Text: "done"})
	reg := f.registry(t)
	history, err := agent.Resume(t.Context(), model, reg, in, []agent.Decision{agent.Approve("d1")}, &agent.Options{NeedsApproval: agent.Destructive(reg)})
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if got, want := f.calls(), []string{"read a", "delete b", "read c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	want := []string{"r1 ok: contents of a", "d1 ok: deleted b", "r2 ok: contents of c"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	if last := history[len(history)-1]; last.Text != "done" {
		t.Errorf("the run ended with %+v, want the model's answer", last)
	}
	if n := len(model.Requests()[0].Messages); n != 1+1+3 {
		t.Errorf("the model was sent %d messages after the resume, want 5", n)
	}
}

func TestRejectedCallIsAToolMessage(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("d1", "delete", `{"path":"b"}`))
	model := agenttest.NewScript(agent.Response{Text: "I left b alone."})
	var results []*tool.Result
	for ev, err := range agent.ResumeStream(t.Context(), model, f.registry(t), in, []agent.Decision{agent.Reject("d1", "b is still needed")}, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == agent.EventCallStart {
			t.Errorf("a rejected call started: %+v", ev.Call)
		}
		if ev.Kind == agent.EventCallResult {
			results = append(results, ev.Result)
		}
	}
	if len(f.calls()) != 0 {
		t.Errorf("ran %v; a rejected call must not run", f.calls())
	}
	if len(results) != 1 {
		t.Fatalf("%d results, want 1", len(results))
	}
	res := results[0]
	if _, ok := errors.AsType[*agent.RejectionError](res.Err); !ok || !errors.Is(res.Err, tool.ErrDenied) || !errors.Is(res.Err, agent.ErrCallRejected) {
		t.Errorf("result error = %v, want a *tool.DeniedError for an *agent.RejectionError, matching ErrDenied and ErrCallRejected", res.Err)
	}
	msgs := model.Requests()[0].Messages
	last := msgs[len(msgs)-1]
	if last.Role != agent.RoleTool || last.CallID != "d1" || !last.IsError || !strings.Contains(last.Text, "b is still needed") {
		t.Errorf("the model was sent %+v, want d1's rejection with the reason", last)
	}
}

func TestEditedArguments(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("d1", "delete", `{"path":"b"}`))
	const args = `{"path":"b.bak"}`
	history, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), f.registry(t), in,
		[]agent.Decision{agent.Edit("d1", json.RawMessage(args))}, nil)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if got, want := f.calls(), []string{"delete b.bak"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	if msg := history[2]; msg.CallID != "d1" || msg.IsError || msg.Text != "deleted b.bak" {
		t.Errorf("result = %+v, want d1's deleted b.bak", msg)
	}
	if got := string(history[1].Calls[0].Args); got != args {
		t.Errorf("the history records arguments %s, want the edited %s", got, args)
	}
	if got := string(in.History[1].Calls[0].Args); got != `{"path":"b"}` {
		t.Errorf("Resume changed the interrupt's history: %s", got)
	}
}

// A person's edit that the tool refuses comes back to that person from
// Resume, with the issues; it is not the model's to fix, and nothing runs.
func TestInvalidEditIsThePersons(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   string
		issues []string // path and keyword of each issue
	}{
		{name: "invalid for the schema", args: `{"path":""}`, issues: []string{"/path minLength"}},
		{name: "missing property", args: `{}`, issues: []string{" required"}},
		{name: "not JSON", args: `{"path":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &files{}
			in := pause(t, f, nil, agenttest.Call("r1", "read", `{"path":"a"}`), agenttest.Call("d1", "delete", `{"path":"b"}`), agenttest.Call("r2", "read", `{"path":"c"}`))
			ran := f.calls()
			model := agenttest.NewScript(agent.Response{Text: "never"})
			history, err := agent.Resume(t.Context(), model, f.registry(t), in, []agent.Decision{agent.Edit("d1", json.RawMessage(tt.args))}, nil)
			if !errors.Is(err, agent.ErrInvalidEdit) {
				t.Fatalf("Resume(edit %s) = %v, want ErrInvalidEdit", tt.args, err)
			}
			derr, ok := errors.AsType[*agent.DecisionError](err)
			if !ok || derr.CallID != "d1" {
				t.Fatalf("Resume(edit %s) = %v, want a *DecisionError for d1", tt.args, err)
			}
			var issues []string
			for _, is := range derr.Issues {
				issues = append(issues, is.Path+" "+is.Keyword)
			}
			if !reflect.DeepEqual(issues, tt.issues) {
				t.Errorf("Resume(edit %s) issues = %q, want %q", tt.args, issues, tt.issues)
			}
			if got := f.calls(); !reflect.DeepEqual(got, ran) || len(model.Requests()) != 0 {
				t.Errorf("ran %v and asked the model %d times; nothing may run", got, len(model.Requests()))
			}
			if !reflect.DeepEqual(history, in.History) {
				t.Errorf("history = %+v, want the interrupt's", history)
			}
			// The refused edit did not use the interrupt up.
			if _, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), f.registry(t), in, []agent.Decision{agent.Edit("d1", json.RawMessage(`{"path":"b~"}`))}, nil); err != nil {
				t.Fatalf("Resume with a corrected edit: %v", err)
			}
			if got, want := f.calls(), append(ran, "delete b~", "read c"); !reflect.DeepEqual(got, want) {
				t.Errorf("after the corrected edit, ran %v, want %v", got, want)
			}
		})
	}
}

func TestSeveralPendingCallsInOneTurn(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil,
		agenttest.Call("d1", "delete", `{"path":"x"}`),
		agenttest.Call("r1", "read", `{"path":"y"}`),
		agenttest.Call("d2", "delete", `{"path":"z"}`),
	)
	if got, want := pendingIDs(in), []string{"approval d1", "approval d2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	if len(f.calls()) != 0 {
		t.Errorf("ran %v before the first pending call's decision", f.calls())
	}
	history, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), f.registry(t), in,
		[]agent.Decision{agent.Reject("d2", "keep z"), agent.Approve("d1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.calls(), []string{"delete x", "read y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	want := []string{"d1 ok: deleted x", "r1 ok: contents of y", "d2 error: The call to delete was not run: a person rejected the call: keep z"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %q, want %q", got, want)
	}
}

func TestParallelRunsTheCallsBeforeThePendingOne(t *testing.T) {
	f := &files{}
	in := pause(t, f, &agent.Options{Parallel: 4},
		agenttest.Call("r1", "read", `{"path":"a"}`),
		agenttest.Call("r2", "read", `{"path":"b"}`),
		agenttest.Call("d1", "delete", `{"path":"c"}`),
		agenttest.Call("r3", "read", `{"path":"d"}`),
	)
	if got := toolMessages(in.History); len(got) != 2 {
		t.Errorf("paused with results %v, want r1's and r2's", got)
	}
	history, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), f.registry(t), in,
		[]agent.Decision{agent.Approve("d1")}, &agent.Options{Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r1 ok: contents of a", "r2 ok: contents of b", "d1 ok: deleted c", "r3 ok: contents of d"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
}

// The decision comes from another process: the interrupt and the decisions
// go through JSON, and the run resumes with a registry and a model built
// anew.
func TestResumeAfterJSONRoundTrip(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("r1", "read", `{"path":"a"}`), agenttest.Call("d1", "delete", `{"path":"b"}`))
	saved, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	decisions, err := json.Marshal([]agent.Decision{agent.Edit("d1", json.RawMessage(`{"path":"b~"}`))})
	if err != nil {
		t.Fatal(err)
	}

	// Another process.
	var restored agent.Interrupt
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	data := *in
	data.Err = nil // the error's sentinel is not data
	if !reflect.DeepEqual(restored, data) {
		t.Fatalf("the interrupt changed through JSON:\n got %+v\nwant %+v", restored, data)
	}
	var ds []agent.Decision
	if err := json.Unmarshal(decisions, &ds); err != nil {
		t.Fatal(err)
	}
	g := &files{}
	model := agenttest.NewScript(agent.Response{Text: "deleted b~"})
	history, err := agent.Resume(t.Context(), model, g.registry(t), &restored, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.calls(), []string{"delete b~"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the second process ran %v, want %v", got, want)
	}
	want := []string{"r1 ok: contents of a", "d1 ok: deleted b~"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	if _, err := json.Marshal(history); err != nil {
		t.Errorf("the resumed history does not encode: %v", err)
	}
}

func TestDecisionsThatDoNotFit(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("d1", "delete", `{"path":"x"}`), agenttest.Call("d2", "delete", `{"path":"y"}`))
	for _, tt := range []struct {
		name      string
		decisions []agent.Decision
		want      error  // the sentinel
		callID    string // of the first *DecisionError
	}{
		{"stale ID", []agent.Decision{agent.Approve("d1"), agent.Approve("d2"), agent.Approve("call_9_1")}, agent.ErrStaleDecision, "call_9_1"},
		{"missing", []agent.Decision{agent.Approve("d1")}, agent.ErrInvalidDecision, "d2"},
		{"twice", []agent.Decision{agent.Approve("d1"), agent.Reject("d1", "no"), agent.Approve("d2")}, agent.ErrInvalidDecision, "d1"},
		{"answer for an approval", []agent.Decision{agent.Answer("d1", "yes"), agent.Approve("d2")}, agent.ErrInvalidDecision, "d1"},
		{"arguments not JSON", []agent.Decision{agent.Edit("d1", json.RawMessage(`{"path":`)), agent.Approve("d2")}, agent.ErrInvalidEdit, "d1"},
		{"unknown verdict", []agent.Decision{{CallID: "d1", Verdict: "maybe"}, agent.Approve("d2")}, agent.ErrInvalidDecision, "d1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := agenttest.NewScript(agent.Response{Text: "never"})
			history, err := agent.Resume(t.Context(), model, f.registry(t), in, tt.decisions, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Resume = %v, want %v", err, tt.want)
			}
			derr, ok := errors.AsType[*agent.DecisionError](err)
			if !ok || derr.CallID != tt.callID {
				t.Errorf("Resume = %v, want a *DecisionError for %s", err, tt.callID)
			}
			if len(f.calls()) != 0 || len(model.Requests()) != 0 {
				t.Errorf("ran %v and asked the model %d times; nothing may run", f.calls(), len(model.Requests()))
			}
			if !reflect.DeepEqual(history, in.History) {
				t.Errorf("history = %+v, want the interrupt's", history)
			}
		})
	}
}

// TestCheckDecisionIsResumes: CheckDecision refuses, with the same
// sentinel and issues, each single decision Resume refuses, and accepts
// those Resume accepts.
func TestCheckDecisionIsResumes(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("d1", "delete", `{"path":"x"}`))
	p := in.Pending[0]
	for _, tt := range []struct {
		name   string
		d      agent.Decision
		want   error // the sentinel, nil when accepted
		issues []string
	}{
		{name: "approve", d: agent.Approve("d1")},
		{name: "edit", d: agent.Edit("d1", json.RawMessage(`{"path":"y"}`))},
		{name: "reject", d: agent.Reject("d1", "no")},
		{name: "stale ID", d: agent.Approve("d9"), want: agent.ErrStaleDecision},
		{name: "answer for an approval", d: agent.Answer("d1", "yes"), want: agent.ErrInvalidDecision},
		{name: "unknown verdict", d: agent.Decision{CallID: "d1", Verdict: "maybe"}, want: agent.ErrInvalidDecision},
		{name: "edit not JSON", d: agent.Edit("d1", json.RawMessage(`{"path":`)), want: agent.ErrInvalidEdit},
		{name: "edit invalid for the schema", d: agent.Edit("d1", json.RawMessage(`{"path":""}`)), want: agent.ErrInvalidEdit, issues: []string{"/path minLength"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checked := agent.CheckDecision(f.registry(t), p, tt.d)
			if tt.want == nil {
				if checked != nil {
					t.Fatalf("CheckDecision = %v, want nil", checked)
				}
				// Resume accepts it too (it runs; the interrupt is a fresh one).
				in := pause(t, &files{}, nil, agenttest.Call("d1", "delete", `{"path":"x"}`))
				if _, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), (&files{}).registry(t), in, []agent.Decision{tt.d}, nil); err != nil {
					t.Fatalf("Resume = %v, but CheckDecision accepted the decision", err)
				}
				return
			}
			_, resumed := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "never"}), f.registry(t), in, []agent.Decision{tt.d}, nil)
			for _, err := range []error{checked, resumed} {
				if !errors.Is(err, tt.want) {
					t.Fatalf("CheckDecision = %v and Resume = %v, want both %v", checked, resumed, tt.want)
				}
			}
			cerr, _ := errors.AsType[*agent.DecisionError](checked)
			rerr, _ := errors.AsType[*agent.DecisionError](resumed)
			if cerr == nil || rerr == nil || !reflect.DeepEqual(*cerr, *rerr) {
				t.Errorf("CheckDecision's error %#v, Resume's %#v; want the same *DecisionError", cerr, rerr)
			}
			var issues []string
			for _, is := range cerr.Issues {
				issues = append(issues, is.Path+" "+is.Keyword)
			}
			if !reflect.DeepEqual(issues, tt.issues) {
				t.Errorf("issues = %q, want %q", issues, tt.issues)
			}
			if len(f.calls()) != 0 {
				t.Errorf("ran %v; nothing may run", f.calls())
			}
		})
	}
}

// A handler asks a person; the run pauses, and the resumed run calls the
// handler again, in which Ask returns the answer.
func TestToolAsksAQuestion(t *testing.T) {
	var mu sync.Mutex
	runs := 0
	pay := tool.New("pay", "Pay a bill.", func(ctx context.Context, a pathArgs) (string, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		account, err := tool.Ask(ctx, "Which account pays "+a.Path+"?")
		if err != nil {
			return "", err
		}
		confirm, err := tool.Ask(ctx, "Pay "+a.Path+" from "+account+"?")
		if err != nil {
			return "", err
		}
		return a.Path + " paid from " + account + " (" + confirm + ")", nil
	})
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{pay}})
	opts := &agent.Options{NeedsApproval: func(_ context.Context, c tool.Call) bool { return c.ID == "p2" }}

	_, err := agent.Run(t.Context(), agenttest.NewScript(respond(
		agenttest.Call("p1", "pay", `{"path":"rent"}`),
		agenttest.Call("p2", "pay", `{"path":"gas"}`),
	)), reg, nil, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Run = %v, want an *Interrupt", err)
	}
	if got, want := pendingIDs(in), []string{"answer p1", "approval p2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	if q := in.Pending[0].Question; q != "Which account pays rent?" {
		t.Errorf("question = %q", q)
	}

	// p1 asks its second question; p2, approved, waits behind it.
	_, err = agent.Resume(t.Context(), agenttest.NewScript(), reg, in, []agent.Decision{agent.Answer("p1", "savings"), agent.Approve("p2")}, opts)
	in, ok = errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Resume = %v, want an *Interrupt", err)
	}
	if got, want := pendingIDs(in), []string{"answer p1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	if p := in.Pending[0]; p.Question != "Pay rent from savings?" || !reflect.DeepEqual(p.Answers, []string{"savings"}) {
		t.Errorf("pending = %+v, want the second question and the first answer", p)
	}
	if len(in.Decided) != 1 || in.Decided[0].Call.ID != "p2" || in.Decided[0].Decision.Verdict != agent.VerdictApprove {
		t.Errorf("decided = %+v, want p2's approval kept", in.Decided)
	}

	// p2 then asks its own question, and needs no second approval.
	_, err = agent.Resume(t.Context(), agenttest.NewScript(), reg, in, []agent.Decision{agent.Answer("p1", "yes")}, opts)
	in, ok = errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Resume = %v, want an *Interrupt", err)
	}
	if got, want := pendingIDs(in), []string{"answer p2"}; !reflect.DeepEqual(got, want) || !in.Pending[0].Approved {
		t.Fatalf("pending = %+v, want p2's question, approved", in.Pending)
	}
	history, err := agent.Resume(t.Context(), agenttest.NewScript(), reg, in, []agent.Decision{agent.Answer("p2", "current")}, opts)
	in, ok = errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Resume = %v, want an *Interrupt", err)
	}
	history, err = agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "paid"}), reg, in, []agent.Decision{agent.Answer("p2", "ok")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p1 ok: rent paid from savings (yes)", "p2 ok: gas paid from current (ok)"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	if runs != 6 {
		t.Errorf("the handler ran %d times, want 6 (once per question asked, once to finish)", runs)
	}
}

func TestRejectedQuestion(t *testing.T) {
	ask := tool.New("ask", "Ask.", func(ctx context.Context, _ struct{}) (string, error) {
		return tool.Ask(ctx, "Proceed?")
	})
	reg := newRegistry(t, &tool.Scope{Name: "s", Tools: []tool.Interface{ask}})
	_, err := agent.Run(t.Context(), agenttest.NewScript(respond(agenttest.Call("q", "ask", `{}`))), reg, nil, nil)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Run = %v, want an *Interrupt", err)
	}
	history, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), reg, in, []agent.Decision{agent.Reject("q", "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolMessages(history), []string{"q error: The call to ask was not run: a person rejected the call"}; !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
}

func TestScopePolicy(t *testing.T) {
	f := &files{}
	reg := f.registry(t)
	policy := agent.InScopes(reg, "files")
	if !policy(t.Context(), tool.Call{Name: "read"}) || policy(t.Context(), tool.Call{Name: "other"}) {
		t.Error("InScopes must ask for the tools of the scope and no others")
	}
	if d := agent.Destructive(reg); d(t.Context(), tool.Call{Name: "read"}) || !d(t.Context(), tool.Call{Name: "delete"}) {
		t.Error("Destructive must ask for delete and not read")
	}
}

// Destructive asks for a destructive tool added to the registry after it
// was made, such as a remote tool its server began to offer, and not for
// one added that is not destructive.
func TestDestructiveLaterTools(t *testing.T) {
	reg := (&files{}).registry(t)
	d := agent.Destructive(reg)
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	err := reg.Add(&tool.Scope{Name: "later", Tools: []tool.Interface{
		tool.New("wipe", "Wipe the disk.", noop, tool.WithAnnotations(tool.Annotations{Destructive: true})),
		tool.New("list", "List the disk.", noop, tool.WithAnnotations(tool.Annotations{Destructive: true, ReadOnly: true})),
		tool.New("touch", "Touch a file.", noop),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"wipe": true, "list": false, "touch": false, "delete": true, "nosuch": false} {
		if got := d(t.Context(), tool.Call{Name: name}); got != want {
			t.Errorf("Destructive(%s) = %v, want %v", name, got, want)
		}
	}
}

// With parallel calls, every call before the first that waits for approval
// runs, and each of them may ask a question.
func TestParallelQuestions(t *testing.T) {
	ask := tool.New("ask", "Ask.", func(ctx context.Context, a titleArgs) (string, error) {
		answer, err := tool.Ask(ctx, "About "+a.Title+"?")
		if err != nil {
			return "", err
		}
		return a.Title + ": " + answer, nil
	})
	f := &files{}
	reg := f.registry(t)
	reg2 := newRegistry(t, &tool.Scope{Name: "files", Tools: []tool.Interface{ask}}, &tool.Scope{Name: "more", Tools: reg.Scopes()[0].Tools})
	opts := &agent.Options{Parallel: 3, NeedsApproval: agent.Destructive(reg2)}
	_, err := agent.Run(t.Context(), agenttest.NewScript(respond(
		agenttest.Call("q1", "ask", `{"title":"a"}`),
		agenttest.Call("r1", "read", `{"path":"x"}`),
		agenttest.Call("q2", "ask", `{"title":"b"}`),
		agenttest.Call("d1", "delete", `{"path":"y"}`),
	)), reg2, nil, opts)
	in, ok := errors.AsType[*agent.Interrupt](err)
	if !ok {
		t.Fatalf("Run = %v, want an *Interrupt", err)
	}
	if got, want := pendingIDs(in), []string{"answer q1", "answer q2", "approval d1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}
	if got, want := toolMessages(in.History), []string{"r1 ok: contents of x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	history, err := agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "ok"}), reg2, in,
		[]agent.Decision{agent.Answer("q1", "yes"), agent.Answer("q2", "no"), agent.Approve("d1")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"r1 ok: contents of x", "q1 ok: a: yes", "q2 ok: b: no", "d1 ok: deleted y"}
	if got := toolMessages(history); !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
}

// TestResumeAcrossABreakingChange pauses a run before a call, then resumes
// it in a process whose tool's input changed, with a migration from the
// old input: the call written against the old version runs, upgraded.
func TestResumeAcrossABreakingChange(t *testing.T) {
	f := &files{}
	in := pause(t, f, nil, agenttest.Call("d1", "delete", `{"path":"b"}`))

	type fileArgs struct { // path became file
		File string `json:"file" tool:"minLength=1"`
	}
	var ran []string
	del := tool.New("delete", "Delete a file.", func(ctx context.Context, a fileArgs) (string, error) {
		ran = append(ran, a.File)
		return "deleted " + a.File, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithVersion("2"), tool.Migrate("1", func(old pathArgs) (fileArgs, error) { return fileArgs{File: old.Path}, nil }))
	reg := newRegistry(t, &tool.Scope{Name: "files", Tools: []tool.Interface{del}})
	model := agenttest.NewScript(agent.Response{Text: "done"})
	history, err := agent.Resume(t.Context(), model, reg, in, []agent.Decision{agent.Approve("d1")}, nil)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if !reflect.DeepEqual(ran, []string{"b"}) {
		t.Errorf("the new version ran %v, want the old call upgraded", ran)
	}
	if got, want := toolMessages(history), []string{"d1 ok: deleted b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	for _, m := range history {
		if m.Role == agent.RoleTool && (!m.Migrated || m.Version != "1" || m.RanAs != "2") {
			t.Errorf("the tool message %+v does not record that the call was made against version 1 and ran as 2", m)
		}
	}
}

// FuzzCheckDecision: whatever a sender puts in a decision, CheckDecision
// returns nil or a *DecisionError for one of its three sentinels, and it
// accepts exactly the decisions that fit: for the call that waits, a
// rejection, an answer to a question, or an approval of a call waiting
// for one whose edited arguments, if any, the tool accepts.
func FuzzCheckDecision(f *testing.F) {
	f.Add("approve", []byte(nil), true, true)
	f.Add("approve", []byte(`{"path":"y"}`), true, true)
	f.Add("approve", []byte(`{"path":""}`), true, true)
	f.Add("approve", []byte(`{"path":`), true, true)
	f.Add("answer", []byte(nil), false, true)
	f.Add("reject", []byte(nil), false, false)
	f.Add("maybe", []byte(`{}`), true, true)
	reg := (&files{}).registry(f)
	del, _ := reg.Lookup("delete")
	f.Fuzz(func(t *testing.T, verdict string, args []byte, approval, sameCall bool) {
		p := agent.Pending{Kind: agent.PendingAnswer, Call: agent.ToolCall{ID: "d1", Name: "delete", Args: json.RawMessage(`{"path":"x"}`)}}
		if approval {
			p.Kind = agent.PendingApproval
		}
		d := agent.Decision{CallID: "d1", Verdict: agent.Verdict(verdict), Args: args}
		if !sameCall {
			d.CallID = "d2"
		}
		err := agent.CheckDecision(reg, p, d)
		fits := sameCall && (d.Verdict == agent.VerdictReject ||
			d.Verdict == agent.VerdictAnswer && !approval ||
			d.Verdict == agent.VerdictApprove && approval && (args == nil || json.Valid(args) && del.(interface{ CheckArgs(json.RawMessage) error }).CheckArgs(args) == nil))
		if fits != (err == nil) {
			t.Fatalf("CheckDecision(%+v) = %v; the decision fits: %v", d, err, fits)
		}
		if err == nil {
			return
		}
		derr, ok := errors.AsType[*agent.DecisionError](err)
		if !ok || derr.CallID != d.CallID {
			t.Fatalf("CheckDecision = %#v, want a *DecisionError for %s", err, d.CallID)
		}
		switch {
		case errors.Is(err, agent.ErrStaleDecision), errors.Is(err, agent.ErrInvalidDecision):
			if derr.Issues != nil {
				t.Errorf("issues %v on a %v", derr.Issues, derr.Err)
			}
		case errors.Is(err, agent.ErrInvalidEdit):
		default:
			t.Errorf("CheckDecision = %v, for none of the sentinels", err)
		}
	})
}
