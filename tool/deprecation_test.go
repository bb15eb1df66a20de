package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/tool"
)

type weatherArgs struct {
	City  string `json:"city,omitempty"`
	Town  string `json:"town,omitempty" tool:"deprecated='use city'"`
	Units struct {
		Old bool `json:"old,omitempty" tool:"deprecated"`
	} `json:"units,omitzero"`
}

func report(context.Context, weatherArgs) (string, error) { return "sunny", nil }

// deprecatedRuns numbers the runs of the deprecation tests in this process:
// the first use of a deprecated tool is logged once per process, so each
// run (go test -count) names its tools afresh to see its own first use.
var deprecatedRuns atomic.Int64

// freshName returns name with a suffix unique to this run.
func freshName(name string) string {
	return fmt.Sprintf("%s_%d", name, deprecatedRuns.Add(1))
}

// captureLogs sends slog's default logger to a buffer until the test ends.
func captureLogs(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

func TestDeprecatedTool(t *testing.T) {
	logs := captureLogs(t)
	sunset := time.Now().Add(48 * time.Hour)
	name := freshName("weather_v1")
	old := tool.New(name, "Report the weather.", report,
		tool.WithDeprecated(tool.Deprecation{Message: "use forecast", Sunset: sunset}))
	spec := old.Spec()
	want := "Report the weather.\n\nThis tool is deprecated: use forecast. It will be removed on " + sunset.UTC().Format(time.DateOnly) + "."
	if spec.Description != want || spec.Deprecation == nil || spec.Deprecation.Message != "use forecast" {
		t.Errorf("Spec: description %q, deprecation %+v; want %q and the deprecation", spec.Description, spec.Deprecation, want)
	}
	reg, err := tool.NewRegistry(&tool.Scope{Name: "w", Tools: []tool.Interface{old}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res := tool.Run(t.Context(), reg, tool.Call{ID: "1", Name: name, Args: json.RawMessage(`{"city":"Oslo"}`)})
		if res.IsError || !strings.HasPrefix(res.Content, "sunny\n\nNote: the tool "+name+" is deprecated: use forecast.") || !slices.Equal(res.Deprecated, []string{""}) {
			t.Errorf("a call of a deprecated tool: content %q, deprecated %q", res.Content, res.Deprecated)
		}
	}
	if n := strings.Count(logs.String(), "a deprecated tool was used"); n != 1 {
		t.Errorf("two calls logged %d times, want once:\n%s", n, logs)
	}
}

func TestSunsetDisablesTheTool(t *testing.T) {
	gone := tool.New("weather_v0", "Report the weather.", report,
		tool.WithDeprecated(tool.Deprecation{Message: "use forecast", Sunset: time.Now().Add(-time.Hour)}))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "w", Tools: []tool.Interface{gone}})
	if err != nil {
		t.Fatal(err)
	}
	if specs := reg.Specs(t.Context()); len(specs) != 0 {
		t.Errorf("a tool past its sunset is listed: %v", specs)
	}
	res := tool.Run(t.Context(), reg, tool.Call{ID: "1", Name: "weather_v0", Args: json.RawMessage(`{}`)})
	if !errors.Is(res.Err, tool.ErrDisabled) {
		t.Errorf("a call of a tool past its sunset = %v, want ErrDisabled", res.Err)
	}
}

func TestDeprecatedArguments(t *testing.T) {
	logs := captureLogs(t)
	name := freshName("weather_fields")
	w := tool.New(name, "Report the weather.", report)
	if spec := w.Spec(); spec.Deprecation != nil || spec.Description != "Report the weather." {
		t.Errorf("a tool with deprecated fields is not itself deprecated: %+v", spec)
	}
	for _, tt := range []struct {
		args       string
		deprecated []string
		note       string
	}{
		{`{"city":"Oslo"}`, nil, ""},
		{`{"town":"Oslo"}`, []string{"/town"}, "Note: the argument /town is deprecated: use city."},
		{`{"town":"Oslo","units":{"old":true}}`, []string{"/town", "/units/old"}, "Note: the argument /units/old is deprecated."},
	} {
		res := tool.Run(t.Context(), w, tool.Call{ID: "1", Name: name, Args: json.RawMessage(tt.args)})
		if res.IsError || !slices.Equal(res.Deprecated, tt.deprecated) || !strings.Contains(res.Content, tt.note) {
			t.Errorf("call with %s: content %q, deprecated %q; want %q and a note %q", tt.args, res.Content, res.Deprecated, tt.deprecated, tt.note)
		}
		if tt.deprecated == nil && res.Content != "sunny" {
			t.Errorf("call with %s: content %q, want no note", tt.args, res.Content)
		}
	}
	if n := strings.Count(logs.String(), "a deprecated argument /town was used"); n != 1 {
		t.Errorf("two calls that sent town logged %d times, want once:\n%s", n, logs)
	}
}

func TestDeprecatedArgumentOfARawTool(t *testing.T) {
	var in map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{"q":{"type":"string","deprecated":true,"description":"the query\nDeprecated: use query"},"query":{"type":"string"}}}`), &in)
	data, _ := json.Marshal(in)
	var spec tool.Spec
	spec.Name, spec.Description = "search_raw", "Search."
	if err := json.Unmarshal([]byte(`{"name":"search_raw","description":"Search.","inputSchema":`+string(data)+`}`), &spec); err != nil {
		t.Fatal(err)
	}
	raw := tool.NewRaw(spec, nil, func(context.Context, json.RawMessage) (any, error) { return "found", nil })
	res := tool.Run(t.Context(), raw, tool.Call{ID: "1", Name: "search_raw", Args: json.RawMessage(`{"q":"x"}`)})
	if !slices.Equal(res.Deprecated, []string{"/q"}) || !strings.HasSuffix(res.Content, "Note: the argument /q is deprecated: use query.") {
		t.Errorf("a raw tool's deprecated argument: content %q, deprecated %q", res.Content, res.Deprecated)
	}
}
