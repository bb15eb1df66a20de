package otelhands_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/otelhands"
	"github.com/hands-go/hands/tool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is an in-memory tracer and meter.
type telemetry struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	opts   *otelhands.Options
}

func newTelemetry(t *testing.T) *telemetry {
	spans := tracetest.NewInMemoryExporter()
	reader := sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	return &telemetry{spans: spans, reader: reader, opts: &otelhands.Options{
		TracerProvider: tp, MeterProvider: mp, AgentName: "notes", Provider: "openai", Model: "gpt-test",
	}}
}

func attrs(s tracetest.SpanStub) map[string]any {
	m := map[string]any{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// find returns the one span named name.
func find(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1", len(found), name)
	}
	return found[0]
}

// checkAttrs checks that the span has the attributes of want (a nil value:
// that it lacks the key).
func checkAttrs(t *testing.T, s tracetest.SpanStub, want map[string]any) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if v == nil {
			if g, ok := got[k]; ok {
				t.Errorf("span %q has %s = %v, want none", s.Name, k, g)
			}
			continue
		}
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("span %q: %s = %v (%T), want %v (%T)", s.Name, k, got[k], got[k], v, v)
		}
	}
}

type noteArgs struct {
	Title string `json:"title" tool:"minLength=1"`
}

func notesRegistry(t *testing.T) *tool.Registry {
	create := tool.New("create_note", "Save a note.", func(ctx context.Context, a noteArgs) (string, error) { return "saved " + a.Title, nil })
	fail := tool.New("sync_notes", "Sync notes.", func(ctx context.Context, _ struct{}) (string, error) { return "", errors.New("sync server down") })
	purge := tool.New("purge_notes", "Delete every note.", func(ctx context.Context, _ struct{}) (string, error) { return "purged", nil },
		tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "notes", Tools: []tool.Interface{create, fail, purge}})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// A run with a validation error, a handler error, a successful call and a
// call that waits for approval: the span tree, names, attributes, status
// and metrics.
func TestRunSpansAndMetrics(t *testing.T) {
	tel := newTelemetry(t)
	reg := notesRegistry(t)
	opts := &agent.Options{NeedsApproval: agent.Destructive(reg), Middleware: []agent.Middleware{otelhands.Middleware(tel.opts)}}
	model := agenttest.NewScript(agent.Response{
		Calls: []agent.ToolCall{
			agenttest.Call("c1", "create_note", `{"title":""}`),
			agenttest.Call("c2", "sync_notes", `{}`),
			agenttest.Call("c3", "create_note", `{"title":"milk"}`),
			agenttest.Call("c4", "purge_notes", `{}`),
		},
		Usage:        agent.Usage{InputTokens: 120, OutputTokens: 30},
		FinishReason: agent.FinishToolCalls,
	})
	_, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("note milk, sync, purge")}, opts)
	if !errors.Is(err, agent.ErrPaused) {
		t.Fatalf("Run = %v, want an *Interrupt", err)
	}

	spans := tel.spans.GetSpans()
	if len(spans) != 5 {
		t.Errorf("%d spans, want 5: the run, a model call, three tool calls", len(spans))
	}
	run := find(t, spans, "invoke_agent notes")
	if run.Parent.IsValid() || run.SpanKind != trace.SpanKindInternal {
		t.Errorf("the run's span has parent %v and kind %v, want a root and internal", run.Parent, run.SpanKind)
	}
	checkAttrs(t, run, map[string]any{
		"gen_ai.operation.name":      "invoke_agent",
		"gen_ai.agent.name":          "notes",
		"gen_ai.provider.name":       "openai",
		"gen_ai.request.model":       "gpt-test",
		"gen_ai.usage.input_tokens":  int64(120),
		"gen_ai.usage.output_tokens": int64(30),
		"hands.run.paused":           true,
		"error.type":                 nil,
	})
	if run.Status.Code != codes.Unset {
		t.Errorf("a paused run's span has status %v, want unset: a pause is not an error", run.Status)
	}
	if len(run.Events) != 1 || run.Events[0].Name != "hands.pending" {
		t.Fatalf("the run's events = %+v, want one hands.pending", run.Events)
	}
	pending := map[string]any{}
	for _, kv := range run.Events[0].Attributes {
		pending[string(kv.Key)] = kv.Value.AsInterface()
	}
	if want := map[string]any{"gen_ai.tool.name": "purge_notes", "gen_ai.tool.call.id": "c4", "hands.pending.kind": "approval"}; !reflect.DeepEqual(pending, want) {
		t.Errorf("hands.pending = %v, want %v", pending, want)
	}

	chat := find(t, spans, "chat gpt-test")
	if chat.Parent.SpanID() != run.SpanContext.SpanID() || chat.SpanKind != trace.SpanKindClient {
		t.Errorf("the model call's span: parent %v, kind %v; want a client span in the run's", chat.Parent.SpanID(), chat.SpanKind)
	}
	checkAttrs(t, chat, map[string]any{
		"gen_ai.operation.name":          "chat",
		"gen_ai.provider.name":           "openai",
		"gen_ai.request.model":           "gpt-test",
		"gen_ai.usage.input_tokens":      int64(120),
		"gen_ai.usage.output_tokens":     int64(30),
		"gen_ai.response.finish_reasons": []string{string(agent.FinishToolCalls)},
		"gen_ai.request.stream":          true, // a Script is a StreamingModel
		// The provider reported neither parts of the usage nor an ID.
		"gen_ai.usage.cache_read.input_tokens":     nil,
		"gen_ai.usage.cache_creation.input_tokens": nil,
		"gen_ai.usage.reasoning.output_tokens":     nil,
		"gen_ai.response.id":                       nil,
		"gen_ai.response.model":                    nil,
	})

	var tools []tracetest.SpanStub
	for _, s := range spans {
		if attrs(s)["gen_ai.operation.name"] == "execute_tool" {
			tools = append(tools, s)
		}
	}
	sort.Slice(tools, func(i, j int) bool {
		return attrs(tools[i])["gen_ai.tool.call.id"].(string) < attrs(tools[j])["gen_ai.tool.call.id"].(string)
	})
	for i, want := range []struct {
		name, id, errorType string
		status              codes.Code
	}{
		{"execute_tool create_note", "c1", "invalid_arguments", codes.Error},
		{"execute_tool sync_notes", "c2", "tool_error", codes.Error},
		{"execute_tool create_note", "c3", "", codes.Unset},
	} {
		if i >= len(tools) {
			t.Fatalf("%d tool spans, want 3", len(tools))
		}
		s := tools[i]
		if s.Name != want.name || s.Parent.SpanID() != run.SpanContext.SpanID() || s.Status.Code != want.status {
			t.Errorf("tool span %d: %q in %v, status %v; want %q in the run's, status %v", i, s.Name, s.Parent.SpanID(), s.Status, want.name, want.status)
		}
		wantAttrs := map[string]any{
			"gen_ai.tool.call.id":        want.id,
			"gen_ai.tool.name":           attrs(s)["gen_ai.tool.name"],
			"gen_ai.tool.description":    map[string]any{"create_note": "Save a note.", "sync_notes": "Sync notes."}[attrs(s)["gen_ai.tool.name"].(string)],
			"gen_ai.tool.type":           "function",
			"gen_ai.tool.call.arguments": nil, // not recorded by default
			"gen_ai.tool.call.result":    nil,
			"error.type":                 nil,
		}
		if want.errorType != "" {
			wantAttrs["error.type"] = want.errorType
		}
		checkAttrs(t, s, wantAttrs)
	}

	rm := collect(t, tel.reader)
	if got, want := sums(t, rm, "hands.tool.errors", "error.type"), map[string]int64{"invalid_arguments": 1, "tool_error": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("hands.tool.errors = %v, want %v", got, want)
	}
	if got, want := histogramCounts(t, rm, "gen_ai.client.operation.duration", "gen_ai.operation.name"), map[string]uint64{"invoke_agent": 1, "chat": 1, "execute_tool": 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("gen_ai.client.operation.duration counts = %v, want %v", got, want)
	}
	if got, want := histogramSums(t, rm, "gen_ai.client.token.usage", "gen_ai.token.type"), map[string]int64{"input": 120, "output": 30}; !reflect.DeepEqual(got, want) {
		t.Errorf("gen_ai.client.token.usage = %v, want %v", got, want)
	}

	// The resumed run has its own span, with the approved call and the
	// next model call in it.
	tel.spans.Reset()
	in, _ := errors.AsType[*agent.Interrupt](err)
	_, err = agent.Resume(t.Context(), agenttest.NewScript(agent.Response{Text: "done"}), reg, in, []agent.Decision{agent.Approve("c4")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	spans = tel.spans.GetSpans()
	run = find(t, spans, "invoke_agent notes")
	for _, name := range []string{"execute_tool purge_notes", "chat gpt-test"} {
		if s := find(t, spans, name); s.Parent.SpanID() != run.SpanContext.SpanID() {
			t.Errorf("%q is not in the resumed run's span", name)
		}
	}
	checkAttrs(t, run, map[string]any{"hands.run.paused": nil})
}

// generateOnly hides a model's Stream: a model that does not stream.
type generateOnly struct{ agent.Model }

// configured is a StreamingModel that says whether it streams, as the
// provider adapters do.
type configured struct {
	*agenttest.Script
	stream bool
}

func (c configured) Streams() bool { return c.stream }

// TestChatResponse checks the chat span's attributes from the response
// and the usage, and gen_ai.request.stream for a model that streams and
// one that does not; and that the run's span sums the usage's parts.
func TestChatResponse(t *testing.T) {
	turn := func() agent.Response {
		return agent.Response{
			Text: "done", FinishReason: agent.FinishStop,
			ID: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", Model: "gpt-test-2026-04-23",
			Usage: agent.Usage{InputTokens: 1642, OutputTokens: 212, CachedInputTokens: 1400, CacheWriteTokens: 230, ReasoningTokens: 96},
		}
	}
	for _, tt := range []struct {
		name   string
		model  agent.Model
		stream bool
	}{
		{"stream", agenttest.NewStreamScript(agenttest.Turn{Deltas: []agent.Delta{{Text: "do"}, {Text: "ne"}}, Response: turn()}), true},
		{"generate", generateOnly{agenttest.NewScript(turn())}, false},
		{"configured not to stream", configured{agenttest.NewScript(turn()), false}, false},
		{"configured to stream", configured{agenttest.NewScript(turn()), true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			opts := &agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(tel.opts)}}
			if _, err := agent.Run(t.Context(), tt.model, nil, agent.History{agent.UserText("hi")}, opts); err != nil {
				t.Fatal(err)
			}
			spans := tel.spans.GetSpans()
			checkAttrs(t, find(t, spans, "chat gpt-test"), map[string]any{
				"gen_ai.request.stream":                    tt.stream,
				"gen_ai.response.id":                       "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
				"gen_ai.response.model":                    "gpt-test-2026-04-23",
				"gen_ai.request.model":                     "gpt-test",
				"gen_ai.usage.input_tokens":                int64(1642),
				"gen_ai.usage.output_tokens":               int64(212),
				"gen_ai.usage.cache_read.input_tokens":     int64(1400),
				"gen_ai.usage.cache_creation.input_tokens": int64(230),
				"gen_ai.usage.reasoning.output_tokens":     int64(96),
			})
			checkAttrs(t, find(t, spans, "invoke_agent notes"), map[string]any{
				"gen_ai.usage.input_tokens":                int64(1642),
				"gen_ai.usage.cache_read.input_tokens":     int64(1400),
				"gen_ai.usage.cache_creation.input_tokens": int64(230),
				"gen_ai.usage.reasoning.output_tokens":     int64(96),
				"gen_ai.request.stream":                    nil, // a chat attribute
			})
		})
	}
}

// TestToolDescription checks where an execute_tool span finds the tool's
// description: in the registry an agent run calls, in Options.Registry for
// middleware a registry installs, and nowhere otherwise.
func TestToolDescription(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(tel *telemetry, reg *tool.Registry) tool.Handler
		call  string
		want  any // nil: no description
	}{
		{"agent", nil, "create_note", "Save a note."},
		{"agent unknown tool", nil, "lost_note", nil},
		{"registry option", func(tel *telemetry, reg *tool.Registry) tool.Handler {
			tel.opts.Registry = reg
			reg.Use(otelhands.Tools(tel.opts))
			return reg
		}, "purge_notes", "Delete every note."},
		{"wrapping the registry", func(tel *telemetry, reg *tool.Registry) tool.Handler {
			return otelhands.Tools(tel.opts)(reg)
		}, "sync_notes", "Sync notes."},
		{"inside the registry without the option", func(tel *telemetry, reg *tool.Registry) tool.Handler {
			reg.Use(otelhands.Tools(tel.opts))
			return reg
		}, "create_note", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t)
			reg := notesRegistry(t)
			call := tool.Call{ID: "d1", Name: tt.call, Args: []byte(`{"title":"milk"}`)}
			if tt.setup == nil {
				opts := &agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(tel.opts)}}
				model := agenttest.NewScript(agent.Response{Calls: []agent.ToolCall{agenttest.Call(call.ID, call.Name, string(call.Args))}}, agent.Response{Text: "done"})
				if _, err := agent.Run(t.Context(), model, reg, agent.History{agent.UserText("note milk")}, opts); err != nil {
					t.Fatal(err)
				}
			} else {
				tool.Run(t.Context(), tt.setup(tel, reg), call)
			}
			checkAttrs(t, find(t, tel.spans.GetSpans(), "execute_tool "+tt.call), map[string]any{
				"gen_ai.tool.description": tt.want,
				"gen_ai.tool.call.id":     "d1",
			})
		})
	}
}

func TestModelErrorAndTurnLimit(t *testing.T) {
	tel := newTelemetry(t)
	opts := &agent.Options{Middleware: []agent.Middleware{otelhands.Middleware(tel.opts)}}
	_, err := agent.Run(t.Context(), agenttest.NewScript(), nil, agent.History{agent.UserText("hi")}, opts)
	if !errors.Is(err, agenttest.ErrScriptEnded) {
		t.Fatalf("Run = %v", err)
	}
	spans := tel.spans.GetSpans()
	for _, name := range []string{"chat gpt-test", "invoke_agent notes"} {
		s := find(t, spans, name)
		if s.Status.Code != codes.Error {
			t.Errorf("%q has status %v, want an error", name, s.Status)
		}
		checkAttrs(t, s, map[string]any{"error.type": "_OTHER"})
	}

	tel.spans.Reset()
	loop := tool.New("again", "Again.", func(context.Context, struct{}) (string, error) { return "again", nil })
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{loop}})
	if err != nil {
		t.Fatal(err)
	}
	opts.MaxTurns = 1
	_, err = agent.Run(t.Context(), agenttest.NewScript(agent.Response{Calls: []agent.ToolCall{agenttest.Call("1", "again", `{}`)}}), reg, nil, opts)
	if !errors.Is(err, agent.ErrTurnLimit) {
		t.Fatalf("Run = %v", err)
	}
	checkAttrs(t, find(t, tel.spans.GetSpans(), "invoke_agent notes"), map[string]any{"error.type": "turn_limit"})
}

func TestRecordContent(t *testing.T) {
	tel := newTelemetry(t)
	tel.opts.RecordContent = true
	tel.opts.MaxContentBytes = 12
	reg := notesRegistry(t)
	reg.Use(otelhands.Tools(tel.opts))
	res := tool.Run(t.Context(), reg, tool.Call{ID: "x", Name: "create_note", Args: []byte(`{"title":"crème brûlée"}`)})
	if res.IsError {
		t.Fatal(res.Err)
	}
	s := find(t, tel.spans.GetSpans(), "execute_tool create_note")
	if s.Parent.IsValid() {
		t.Errorf("a registry's call outside a run has parent %v, want none", s.Parent)
	}
	checkAttrs(t, s, map[string]any{
		"gen_ai.tool.call.arguments": `{"title":"cr…`,
		"gen_ai.tool.call.result":    "saved crème…",
		"gen_ai.tool.call.id":        "x",
	})
}

// TestDeprecatedUses counts the calls of a deprecated tool and of its
// deprecated arguments, and marks their spans.
func TestDeprecatedUses(t *testing.T) {
	tel := newTelemetry(t)
	type args struct {
		Q     string `json:"q,omitempty" tool:"deprecated='use query'"`
		Query string `json:"query,omitempty"`
	}
	search := tool.New("search_v1", "Search.", func(context.Context, args) (string, error) { return "found", nil },
		tool.WithDeprecated(tool.Deprecation{Message: "use search"}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{search}})
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(otelhands.Tools(tel.opts))
	tool.Run(t.Context(), reg, tool.Call{ID: "1", Name: "search_v1", Args: []byte(`{"query":"a"}`)})
	tool.Run(t.Context(), reg, tool.Call{ID: "2", Name: "search_v1", Args: []byte(`{"q":"a"}`)})
	rm := collect(t, tel.reader)
	if got, want := sums(t, rm, "hands.tool.deprecated_uses", "hands.tool.deprecated"), map[string]int64{"": 2, "/q": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("hands.tool.deprecated_uses = %v, want %v", got, want)
	}
	var marked []any
	for _, s := range tel.spans.GetSpans() {
		marked = append(marked, attrs(s)["hands.tool.deprecated"])
	}
	if want := []any{[]string{""}, []string{"", "/q"}}; !reflect.DeepEqual(marked, want) {
		t.Errorf("the spans' hands.tool.deprecated = %v, want %v", marked, want)
	}
}

func TestErrorType(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&tool.ValidationError{Err: tool.ErrInvalidArguments}, "invalid_arguments"},
		{&tool.UnknownToolError{Err: tool.ErrUnknownTool}, "unknown_tool"},
		{&tool.DisabledToolError{Err: tool.ErrDisabled}, "disabled"},
		{&tool.DeniedError{Reason: &agent.RejectionError{}, Err: tool.ErrDenied}, "denied"},
		{&tool.PanicError{Err: tool.ErrPanicked}, "panic"},
		{&tool.TimeoutError{Err: tool.ErrTimedOut}, "timeout"},
		{&tool.CanceledError{Cause: context.Canceled, Err: tool.ErrCanceled}, "canceled"},
		{&tool.NoResultError{Err: tool.ErrNoResult}, "no_result"},
		{&tool.InterruptError{Err: tool.ErrInterrupted}, "interrupted"},
		{fmt.Errorf("proxy: %w", tool.ErrUpstream), "upstream"},
		{&tool.CanceledError{Cause: context.Canceled}, "tool_error"}, // without its sentinel, a detail type matches nothing
		{errors.New("disk full"), "tool_error"},
	} {
		if got := otelhands.ErrorType(tt.err); got != tt.want {
			t.Errorf("ErrorType(%T) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func collect(t *testing.T, r *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func metricNamed(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Aggregation {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	t.Fatalf("no metric %q", name)
	return nil
}

func value(set attribute.Set, key string) string {
	v, _ := set.Value(attribute.Key(key))
	return v.Emit()
}

func sums(t *testing.T, rm metricdata.ResourceMetrics, name, key string) map[string]int64 {
	out := map[string]int64{}
	for _, dp := range metricNamed(t, rm, name).(metricdata.Sum[int64]).DataPoints {
		out[value(dp.Attributes, key)] += dp.Value
	}
	return out
}

func histogramCounts(t *testing.T, rm metricdata.ResourceMetrics, name, key string) map[string]uint64 {
	out := map[string]uint64{}
	for _, dp := range metricNamed(t, rm, name).(metricdata.Histogram[float64]).DataPoints {
		out[value(dp.Attributes, key)] += dp.Count
	}
	return out
}

func histogramSums(t *testing.T, rm metricdata.ResourceMetrics, name, key string) map[string]int64 {
	out := map[string]int64{}
	for _, dp := range metricNamed(t, rm, name).(metricdata.Histogram[int64]).DataPoints {
		out[value(dp.Attributes, key)] += dp.Sum
	}
	return out
}
