package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/hands-go/hands/tool"
)

// The weather tool's input before and after a breaking change: town
// became city, and units became required.
type weatherV1 struct {
	Town string `json:"town" tool:"minLength=1"`
}

type weatherV2 struct {
	City  string `json:"city" tool:"minLength=1"`
	Units string `json:"units" tool:"enum=metric|imperial"`
}

func TestMigrate(t *testing.T) {
	var got []weatherV2
	w := tool.New("weather_migrating", "Report the weather.", func(ctx context.Context, a weatherV2) (string, error) {
		got = append(got, a)
		return "sunny in " + a.City, nil
	}, tool.WithVersion("2"), tool.Migrate("1", func(old weatherV1) (weatherV2, error) {
		if old.Town == "Atlantis" {
			return weatherV2{}, errors.New("no such town any more")
		}
		return weatherV2{City: old.Town, Units: "metric"}, nil
	}))
	for _, tt := range []struct {
		name     string
		args     string
		content  string // "" for an error result
		migrated bool
		issueAt  string // the path of an issue of the validation error, against the current input
	}{
		{name: "a current call", args: `{"city":"Oslo","units":"imperial"}`, content: "sunny in Oslo"},
		{name: "a call against the old input", args: `{"town":"Bergen"}`, content: "sunny in Bergen", migrated: true},
		{name: "neither", args: `{"town":""}`, issueAt: ""}, // city is missing: the error is the current input's
		{name: "the upgrade refuses", args: `{"town":"Atlantis"}`, issueAt: ""},
		{name: "a current call with a mistake", args: `{"city":"Oslo","units":"kelvin"}`, issueAt: "/units"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Run(t.Context(), w, tool.Call{ID: "1", Name: "weather_migrating", Args: json.RawMessage(tt.args)})
			migrated := slices.ContainsFunc(res.Repairs, func(r tool.Repair) bool { return r.Kind == tool.RepairMigrated })
			if migrated != tt.migrated {
				t.Errorf("repairs %v, migrated %v, want %v", res.Repairs, migrated, tt.migrated)
			}
			if res.Version != "2" {
				t.Errorf("result version %q, want the version that ran the call, 2", res.Version)
			}
			if migrated && !slices.Contains(res.Repairs, tool.Repair{Kind: tool.RepairMigrated, Version: "1"}) {
				t.Errorf("repairs %v, want the migration to record the version the call was made against, 1", res.Repairs)
			}
			if tt.content != "" {
				if res.IsError || res.Content != tt.content {
					t.Errorf("result %q (error %v), want %q", res.Content, res.Err, tt.content)
				}
				return
			}
			verr, ok := errors.AsType[*tool.ValidationError](res.Err)
			if !ok {
				t.Fatalf("result error %v, want a *ValidationError against the current input", res.Err)
			}
			if !slices.ContainsFunc(verr.Issues, func(is tool.Issue) bool {
				return is.Path == tt.issueAt && (tt.issueAt != "" || is.Keyword == "required")
			}) {
				t.Errorf("issues %v, want one at %q", verr.Issues, tt.issueAt)
			}
		})
	}
	if v := w.Spec().Version; v != "2" {
		t.Errorf("Spec().Version = %q, want 2", v)
	}
	if len(got) != 2 || got[1] != (weatherV2{City: "Bergen", Units: "metric"}) {
		t.Errorf("the handler received %+v, want the current call and the upgraded one", got)
	}
	// A direct call takes the same path.
	if out, err := w.CallJSON(t.Context(), json.RawMessage(`{"town":"Tromsø"}`)); err != nil || out != "sunny in Tromsø" {
		t.Errorf("CallJSON of an old call = %q, %v", out, err)
	}
}

func TestMigrateDefinitionErrors(t *testing.T) {
	type other struct {
		X string `json:"x"`
	}
	run := func(context.Context, weatherV2) (string, error) { return "", nil }
	isDef := func(err error) bool { _, ok := errors.AsType[*tool.DefinitionError](err); return ok }
	if _, err := tool.Define("w", "W.", run, tool.Migrate("", func(weatherV1) (other, error) { return other{}, nil })); !isDef(err) {
		t.Errorf("Migrate to another type than the input: %v, want a definition error", err)
	}
	if _, err := tool.Define("w", "W.", run, tool.Migrate[weatherV1, weatherV2]("", nil)); !isDef(err) {
		t.Errorf("Migrate(nil): %v, want a definition error", err)
	}
	up := func(old weatherV1) (weatherV2, error) { return weatherV2{City: old.Town}, nil }
	for _, tt := range []struct {
		name string
		opts []tool.Option
	}{
		{"an empty version", []tool.Option{tool.WithVersion(" ")}},
		{"a migration from a version, the tool without one", []tool.Option{tool.Migrate("1", up)}},
		{"a versioned tool, a migration from no version", []tool.Option{tool.WithVersion("2"), tool.Migrate("", up)}},
		{"a migration from the tool's own version", []tool.Option{tool.WithVersion("2"), tool.Migrate("2", up)}},
		{"MigrateJSON from the tool's own version", []tool.Option{tool.WithVersion("2"), tool.MigrateJSON("2", "2", func(a json.RawMessage) (json.RawMessage, error) { return a, nil })}},
	} {
		if _, err := tool.Define("w", "W.", run, tt.opts...); !isDef(err) {
			t.Errorf("%s: %v, want a definition error", tt.name, err)
		}
	}
	var spec tool.Spec
	if err := json.Unmarshal([]byte(`{"name":"r","description":"R.","inputSchema":{"type":"object"}}`), &spec); err != nil {
		t.Fatal(err)
	}
	if _, err := tool.DefineRaw(spec, nil, func(context.Context, json.RawMessage) (any, error) { return "", nil },
		tool.Migrate("", func(weatherV1) (weatherV2, error) { return weatherV2{}, nil })); !isDef(err) {
		t.Errorf("Migrate on a raw tool: %v, want a definition error", err)
	}
}

func TestMigrateJSON(t *testing.T) {
	var spec tool.Spec
	if err := json.Unmarshal([]byte(`{"name":"echo_raw","description":"Echo.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}}`), &spec); err != nil {
		t.Fatal(err)
	}
	validate := func(args json.RawMessage) error {
		var v struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal(args, &v) != nil || v.Text == nil {
			return errors.New("text is required")
		}
		return nil
	}
	echo, err := tool.DefineRaw(spec, validate, func(ctx context.Context, args json.RawMessage) (any, error) { return string(args), nil },
		tool.WithVersion("2026-11"), tool.MigrateJSON("2026-10", "2026-11", func(args json.RawMessage) (json.RawMessage, error) {
			var old struct {
				Message *string `json:"message"`
			}
			if json.Unmarshal(args, &old) != nil || old.Message == nil {
				return nil, errors.New("not a call of the previous version")
			}
			return json.Marshal(map[string]string{"text": *old.Message})
		}))
	if err != nil {
		t.Fatal(err)
	}
	if v := echo.Spec().Version; v != "2026-11" {
		t.Errorf("Spec().Version = %q, want 2026-11", v)
	}
	res := tool.Run(t.Context(), echo, tool.Call{ID: "1", Name: "echo_raw", Args: json.RawMessage(`{"message":"hi"}`)})
	if res.IsError || res.Content != `{"text":"hi"}` || res.Version != "2026-11" || !slices.Contains(res.Repairs, tool.Repair{Kind: tool.RepairMigrated, Version: "2026-10"}) {
		t.Errorf("an old call of a raw tool: %q (%v), repairs %v; want the upgraded arguments", res.Content, res.Err, res.Repairs)
	}
	res = tool.Run(t.Context(), echo, tool.Call{ID: "2", Name: "echo_raw", Args: json.RawMessage(`{"other":1}`)})
	if !errors.Is(res.Err, tool.ErrInvalidArguments) {
		t.Errorf("a call of neither version: %v, want invalid arguments", res.Err)
	}
}

// TestCheck holds arguments to a tool as a call would be held, migrations
// included, without running the handler.
func TestCheck(t *testing.T) {
	ran := false
	typed := tool.New("weather_checked", "Report the weather.", func(ctx context.Context, a weatherV2) (string, error) {
		ran = true
		return "", nil
	}, tool.WithVersion("2"), tool.Migrate("1", func(old weatherV1) (weatherV2, error) {
		if old.Town == "Atlantis" {
			return weatherV2{}, errors.New("no such town any more")
		}
		return weatherV2{City: old.Town, Units: "metric"}, nil
	}))
	raw := tool.NewRaw(tool.Spec{Name: "echo_checked", Description: "Echo.", InputSchema: typed.Spec().InputSchema},
		func(args json.RawMessage) error {
			var v weatherV2
			if json.Unmarshal(args, &v) != nil || v.City == "" {
				return errors.New("city is required")
			}
			return nil
		}, func(ctx context.Context, args json.RawMessage) (any, error) { ran = true; return "", nil },
		tool.WithVersion("2"), tool.MigrateJSON("1", "2", func(args json.RawMessage) (json.RawMessage, error) {
			var old weatherV1
			if json.Unmarshal(args, &old) != nil || old.Town == "" || old.Town == "Atlantis" {
				return nil, errors.New("not a call of version 1")
			}
			return json.Marshal(weatherV2{City: old.Town, Units: "metric"})
		}))
	for _, c := range []interface {
		Name() string
		Check(json.RawMessage) (string, error)
	}{typed, raw} {
		for _, tt := range []struct {
			args, from string
			ok         bool
		}{
			{`{"city":"Paris","units":"metric"}`, "", true},
			{`{"town":"Paris"}`, "1", true},
			{`{"town":"Atlantis"}`, "", false},
			{`{"other":1}`, "", false},
		} {
			from, err := c.Check(json.RawMessage(tt.args))
			if (err == nil) != tt.ok || from != tt.from {
				t.Errorf("%s: Check(%s) = %q, %v; want %q, ok %v", c.Name(), tt.args, from, err, tt.from, tt.ok)
			}
		}
	}
	if ran {
		t.Error("Check ran a handler")
	}
}

// Three versions of the forecast tool's input: town became city (2), then
// days became required (3).
type forecastV1 struct {
	Town string `json:"town"`
}

type forecastV2 struct {
	City string `json:"city" tool:"minLength=1"`
}

type forecastV3 struct {
	City string `json:"city" tool:"minLength=1"`
	Days int    `json:"days" tool:"minimum=1,maximum=7"`
}

func TestMigrationChain(t *testing.T) {
	var steps []string // the steps that ran, for each call
	step1 := tool.Migrate("1", func(old forecastV1) (forecastV2, error) {
		steps = append(steps, "1→2")
		return forecastV2{City: old.Town}, nil
	})
	step2 := tool.Migrate("2", func(old forecastV2) (forecastV3, error) {
		steps = append(steps, "2→3")
		return forecastV3{City: old.City, Days: 1}, nil
	})
	run := func(ctx context.Context, a forecastV3) (string, error) {
		return fmt.Sprintf("%s for %d days", a.City, a.Days), nil
	}
	for _, order := range [][]tool.Option{{step1, step2}, {step2, step1}} {
		f := tool.New("forecast_chain", "Forecast the weather.", run, append([]tool.Option{tool.WithVersion("3")}, order...)...)
		if got, want := f.Spec().MigratesFrom, []string{"2", "1"}; !slices.Equal(got, want) {
			t.Errorf("Spec().MigratesFrom = %q, want %q, nearest first", got, want)
		}
		for _, tt := range []struct {
			name    string
			args    string
			content string   // "" for an error result
			from    string   // the version the call was made against, when migrated
			steps   []string // the migrations that ran
		}{
			{name: "a current call", args: `{"city":"Oslo","days":3}`, content: "Oslo for 3 days"},
			{name: "a call against version 2", args: `{"city":"Oslo"}`, content: "Oslo for 1 days", from: "2", steps: []string{"2→3"}},
			{name: "a call against version 1", args: `{"town":"Bergen"}`, content: "Bergen for 1 days", from: "1", steps: []string{"1→2", "2→3"}},
			// Version 1 allowed an empty town; version 2 refuses the empty
			// city the first step makes of it, so the second never runs.
			{name: "a call against version 1 that version 2 refuses", args: `{"town":""}`, steps: []string{"1→2"}},
			{name: "a call of no version", args: `{"village":"Å"}`},
		} {
			steps = nil
			res := tool.Run(t.Context(), f, tool.Call{ID: "1", Name: "forecast_chain", Args: json.RawMessage(tt.args)})
			if tt.content != "" && (res.IsError || res.Content != tt.content) {
				t.Errorf("%s: result %q (error %v), want %q", tt.name, res.Content, res.Err, tt.content)
			}
			if tt.content == "" && !errors.Is(res.Err, tool.ErrInvalidArguments) {
				t.Errorf("%s: result %q (error %v), want invalid arguments against the current input", tt.name, res.Content, res.Err)
			}
			var want []tool.Repair
			if tt.from != "" {
				want = []tool.Repair{{Kind: tool.RepairMigrated, Version: tt.from}}
			}
			if !slices.Equal(res.Repairs, want) {
				t.Errorf("%s: repairs %v, want %v", tt.name, res.Repairs, want)
			}
			if !slices.Equal(steps, tt.steps) {
				t.Errorf("%s: the steps that ran: %v, want %v", tt.name, steps, tt.steps)
			}
			if res.Version != "3" {
				t.Errorf("%s: ran as version %q, want 3", tt.name, res.Version)
			}
		}
	}
}

func TestMigrationChainOfJSON(t *testing.T) {
	// Version k takes {"v": k}; each step adds one.
	const last = tool.MaxMigrations
	var ran int
	opts := []tool.Option{tool.WithVersion(strconv.Itoa(last))}
	for k := range last {
		opts = append(opts, tool.MigrateJSON(strconv.Itoa(k), strconv.Itoa(k+1), func(args json.RawMessage) (json.RawMessage, error) {
			ran++
			var a struct{ V *int }
			if json.Unmarshal(args, &a) != nil || a.V == nil || *a.V != k {
				return nil, errors.New("not a call of this version")
			}
			if k == 7 && bytes.Contains(args, []byte(`"refuse"`)) {
				return nil, errors.New("refused")
			}
			return fmt.Appendf(nil, `{"v":%d,%s`, k+1, args[bytes.IndexByte(args, ',')+1:]), nil
		}))
	}
	validate := func(args json.RawMessage) error {
		var a struct{ V int }
		if json.Unmarshal(args, &a) != nil || a.V != last {
			return fmt.Errorf("v must be %d", last)
		}
		return nil
	}
	var spec tool.Spec
	if err := json.Unmarshal([]byte(`{"name":"counter","description":"Count.","inputSchema":{"type":"object"}}`), &spec); err != nil {
		t.Fatal(err)
	}
	counter, err := tool.DefineRaw(spec, validate, func(ctx context.Context, args json.RawMessage) (any, error) { return string(args), nil }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args    string
		content string // "" for an error result
		from    string
	}{
		{args: `{"v":16,"x":0}`, content: `{"v":16,"x":0}`},
		{args: `{"v":15,"x":0}`, content: `{"v":16,"x":0}`, from: "15"},
		{args: `{"v":0,"x":0}`, content: `{"v":16,"x":0}`, from: "0"},
		{args: `{"v":0,"x":"refuse"}`},
		{args: `{"v":-1,"x":0}`},
	} {
		ran = 0
		res := tool.Run(t.Context(), counter, tool.Call{Name: "counter", Args: json.RawMessage(tt.args)})
		if res.Content != tt.content && (tt.content != "" || !res.IsError) {
			t.Errorf("%s: result %q (error %v), want %q", tt.args, res.Content, res.Err, tt.content)
		}
		if tt.from != "" && !slices.Contains(res.Repairs, tool.Repair{Kind: tool.RepairMigrated, Version: tt.from}) {
			t.Errorf("%s: repairs %v, want a migration from %s", tt.args, res.Repairs, tt.from)
		}
		// The bound: one first step per earlier version to find the call's,
		// then the rest of its chain.
		if ran > 2*tool.MaxMigrations {
			t.Errorf("%s: %d steps ran, more than 2×MaxMigrations", tt.args, ran)
		}
	}
}

func TestMigrationChainDefinitionErrors(t *testing.T) {
	type a struct {
		A string `json:"a"`
	}
	type b struct {
		B string `json:"b"`
	}
	run := func(context.Context, forecastV3) (string, error) { return "", nil }
	same := func(args json.RawMessage) (json.RawMessage, error) { return args, nil }
	tooMany := []tool.Option{tool.WithVersion("last")}
	for k := range tool.MaxMigrations + 1 {
		tooMany = append(tooMany, tool.MigrateJSON(strconv.Itoa(k), "last", same))
	}
	for _, tt := range []struct {
		name string
		opts []tool.Option
	}{
		{"two migrations from one version", []tool.Option{tool.WithVersion("3"),
			tool.Migrate("2", func(forecastV2) (forecastV3, error) { return forecastV3{}, nil }),
			tool.Migrate("2", func(forecastV1) (forecastV3, error) { return forecastV3{}, nil })}},
		{"a typed gap: version 2's input has no migration", []tool.Option{tool.WithVersion("3"),
			tool.Migrate("1", func(forecastV1) (forecastV2, error) { return forecastV2{}, nil })}},
		{"a JSON gap: version 2 has no migration", []tool.Option{tool.WithVersion("3"), tool.MigrateJSON("1", "2", same)}},
		{"a JSON migration to itself", []tool.Option{tool.WithVersion("3"), tool.MigrateJSON("1", "1", same)}},
		{"a JSON cycle", []tool.Option{tool.WithVersion("3"), tool.MigrateJSON("1", "2", same), tool.MigrateJSON("2", "1", same)}},
		{"a typed cycle", []tool.Option{tool.WithVersion("3"),
			tool.Migrate("1", func(a) (b, error) { return b{}, nil }), tool.Migrate("2", func(b) (a, error) { return a{}, nil })}},
		{"two migrations take what one produces", []tool.Option{tool.WithVersion("4"),
			tool.Migrate("1", func(a) (forecastV1, error) { return forecastV1{}, nil }),
			tool.Migrate("2", func(forecastV1) (forecastV3, error) { return forecastV3{}, nil }),
			tool.Migrate("3", func(forecastV1) (forecastV3, error) { return forecastV3{}, nil })}},
		{"a migration from the current input", []tool.Option{tool.WithVersion("3"),
			tool.Migrate("2", func(forecastV3) (forecastV3, error) { return forecastV3{}, nil })}},
		{"more than MaxMigrations", tooMany},
	} {
		_, err := tool.Define("forecast", "Forecast.", run, tt.opts...)
		if _, ok := errors.AsType[*tool.DefinitionError](err); !ok {
			t.Errorf("%s: %v, want a definition error", tt.name, err)
		}
	}
	// MaxMigrations themselves are fine.
	if _, err := tool.Define("forecast", "Forecast.", run, tooMany[:tool.MaxMigrations+1]...); err != nil {
		t.Errorf("MaxMigrations migrations: %v", err)
	}
}
