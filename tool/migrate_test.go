package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
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
		{"MigrateJSON from the tool's own version", []tool.Option{tool.WithVersion("2"), tool.MigrateJSON("2", func(a json.RawMessage) (json.RawMessage, error) { return a, nil })}},
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
		tool.WithVersion("2026-11"), tool.MigrateJSON("2026-10", func(args json.RawMessage) (json.RawMessage, error) {
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
