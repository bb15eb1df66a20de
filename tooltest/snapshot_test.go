package tooltest_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
)

// fatal is what snapRecorder.Fatalf panics with.
type fatal struct{}

// snapRecorder keeps what Snapshot reports, Fatalf included.
type snapRecorder struct {
	recorder
	fatals []string
}

func (r *snapRecorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	panic(fatal{})
}

func (r *snapRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// snapshot runs tooltest.SnapshotTools with -update on or off.
func snapshot(t *testing.T, path string, update bool, tools ...tool.Interface) *snapRecorder {
	t.Helper()
	if err := flag.Set("update", fmt.Sprint(update)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("update", "false") })
	r := &snapRecorder{}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(fatal); !ok {
					panic(p)
				}
			}
		}()
		tooltest.SnapshotTools(r, path, tools...)
	}()
	flag.Set("update", "false")
	return r
}

type forecastV1 struct {
	City string `json:"city" jsonschema:"the city"`
	Days int    `json:"days,omitempty" tool:"minimum=1,maximum=7"`
}

type forecastV2 struct { // days narrowed, units added
	City  string `json:"city" jsonschema:"the city"`
	Days  int    `json:"days,omitempty" tool:"minimum=1,maximum=5"`
	Units string `json:"units,omitempty" tool:"enum=metric|imperial"`
}

type forecastV3 struct { // units added, optional: compatible
	City  string `json:"city" jsonschema:"the city"`
	Days  int    `json:"days,omitempty" tool:"minimum=1,maximum=7"`
	Units string `json:"units,omitempty" tool:"enum=metric|imperial"`
}

func forecast[In any](desc string) tool.Interface {
	return tool.New("forecast", desc, run[In])
}

func TestSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "tools.json")
	v1 := forecast[forecastV1]("Forecast the weather.")

	r := snapshot(t, path, false, v1)
	if len(r.fatals) != 1 || !strings.Contains(r.fatals[0], "-update") {
		t.Fatalf("Snapshot without a file: fatals %q, want one that says -update writes it", r.fatals)
	}
	if r := snapshot(t, path, true, v1); len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("Snapshot -update: errors %q %q", r.errors, r.fatals)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := snapshot(t, path, false, v1); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("Snapshot of the same tools: errors %q %q", r.errors, r.fatals)
	}

	r = snapshot(t, path, false, forecast[forecastV2]("Forecast the weather."))
	if len(r.errors) != 2 || !strings.Contains(r.errors[0], "/inputSchema/properties/days/maximum") || !strings.Contains(r.errors[1], "break the tools' callers: 1") {
		t.Errorf("Snapshot of a narrowed tool: errors %q, want the breaking change and a summary", r.errors)
	}
	r = snapshot(t, path, false, forecast[forecastV3]("Forecast the weather."))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "out of date") || len(r.logs) == 0 {
		t.Errorf("Snapshot of a compatible change: errors %q logs %q, want one out-of-date error and the change logged", r.errors, r.logs)
	}
	r = snapshot(t, path, false)
	if len(r.errors) != 2 || !strings.Contains(r.errors[0], "tool removed") {
		t.Errorf("Snapshot of no tools: errors %q, want the removal", r.errors)
	}
	if got, _ := os.ReadFile(path); string(got) != string(written) {
		t.Errorf("Snapshot without -update changed the file")
	}

	if r := snapshot(t, path, true, forecast[forecastV2]("Forecast the weather.")); len(r.errors) != 0 || len(r.logs) == 0 {
		t.Errorf("Snapshot -update of a breaking change: errors %q logs %q, want it accepted and logged", r.errors, r.logs)
	}
	if r := snapshot(t, path, false, forecast[forecastV2]("Forecast the weather.")); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("Snapshot after -update: errors %q %q", r.errors, r.fatals)
	}
}

func TestSnapshotUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte(`{"tools": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := snapshot(t, path, false, forecast[forecastV1]("Forecast the weather."))
	if len(r.fatals) != 1 {
		t.Errorf("Snapshot of a broken file: fatals %q, want one", r.fatals)
	}
}

// TestSnapshotFile keeps testdata/forecast.json, the snapshot of a small
// registry: the file shows what a snapshot looks like.
func TestSnapshotFile(t *testing.T) {
	reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{
		forecast[forecastV1]("Forecast the weather."),
		tool.New("alerts", "List the weather alerts for a region.", func(ctx context.Context, a struct {
			Region string `json:"region" tool:"pattern=^[A-Z]{2}$"`
		}) (string, error) {
			return "", nil
		}, tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}), tool.WithVersion("2026-11-01")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	tooltest.Snapshot(t, "testdata/forecast.json", reg)
}

// TestSnapshotVersions changes a versioned tool's input in a way that
// breaks old calls: keeping the version is reported as such, raising it
// leaves the break, and raising it with a migration from the old version
// covers it.
func TestSnapshotVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	v1 := tool.New("forecast", "Forecast the weather.", run[forecastV1], tool.WithVersion("1"))
	if r := snapshot(t, path, true, v1); len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("Snapshot -update: errors %q %q", r.errors, r.fatals)
	}
	up := tool.Migrate("1", func(old forecastV1) (forecastV2, error) {
		return forecastV2{City: old.City, Days: min(old.Days, 5)}, nil
	})
	for _, tt := range []struct {
		name   string
		opts   []tool.Option
		errors []string // a substring of each error, in order
	}{
		{"the version kept", []tool.Option{tool.WithVersion("1")},
			[]string{"without a version bump", "/inputSchema/properties/days/maximum", "break the tools' callers: 2"}},
		{"the version raised", []tool.Option{tool.WithVersion("2")},
			[]string{"/inputSchema/properties/days/maximum", "break the tools' callers: 1"}},
		{"the version raised, with a migration", []tool.Option{tool.WithVersion("2"), up},
			[]string{"out of date"}},
	} {
		r := snapshot(t, path, false, tool.New("forecast", "Forecast the weather.", run[forecastV2], tt.opts...))
		ok := len(r.errors) == len(tt.errors)
		for i := 0; ok && i < len(tt.errors); i++ {
			ok = strings.Contains(r.errors[i], tt.errors[i])
		}
		if !ok {
			t.Errorf("%s: errors %q, want %q", tt.name, r.errors, tt.errors)
		}
	}
	// Accepted, the snapshot records the version and the migration.
	snapshot(t, path, true, tool.New("forecast", "Forecast the weather.", run[forecastV2], tool.WithVersion("2"), up))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"com.github.hands-go/version": "2"`) || !strings.Contains(string(data), `"com.github.hands-go/migratesFrom": [`) {
		t.Errorf("the snapshot does not record the version and the migration:\n%s", data)
	}
}

type placeArgs struct { // fields out of alphabetical order
	Zone string `json:"zone"`
	Area int    `json:"area,omitempty"`
}

// TestSnapshotComparesCanonicalSpecs: the tools of the registry are
// compared with the file in the form the file holds them, so that a
// schema from Go types (its properties in field order) and the same
// schema read back are the same: a renamed tool is named as such.
func TestSnapshotComparesCanonicalSpecs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "tools.json")
	if r := snapshot(t, path, true, tool.New("place", "Find a place.", run[placeArgs])); len(r.errors) > 0 || len(r.fatals) > 0 {
		t.Fatalf("-update: %v %v", r.errors, r.fatals)
	}
	if r := snapshot(t, path, false, tool.New("place", "Find a place.", run[placeArgs])); len(r.errors) > 0 || len(r.fatals) > 0 {
		t.Fatalf("the same tools: %v %v", r.errors, r.fatals)
	}
	r := snapshot(t, path, false, tool.New("find_place", "Find a place.", run[placeArgs]))
	if !slices.ContainsFunc(r.errors, func(e string) bool { return strings.Contains(e, `renamed to "find_place"`) }) {
		t.Errorf("a rename is not named as one: %q", r.errors)
	}
}

// TestSnapshotTriesMigrations: a migration is not taken on the word of the
// tool's metadata: calls made against the old version, built from the
// snapshot's input schema, are run through it, and each one it refuses,
// or upgrades to arguments the new input refuses, breaks.
func TestSnapshotTriesMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	v1 := tool.New("forecast", "Forecast the weather.", run[forecastV1], tool.WithVersion("1"))
	if r := snapshot(t, path, true, v1); len(r.errors)+len(r.fatals) != 0 {
		t.Fatalf("Snapshot -update: errors %q %q", r.errors, r.fatals)
	}
	for _, tt := range []struct {
		name string
		up   func(forecastV1) (forecastV2, error)
	}{
		{"refuses every call", func(forecastV1) (forecastV2, error) { return forecastV2{}, errors.New("not yet") }},
		{"produces what the new input refuses", func(old forecastV1) (forecastV2, error) { return forecastV2{City: old.City, Days: old.Days}, nil }},
	} {
		r := snapshot(t, path, false, tool.New("forecast", "Forecast the weather.", run[forecastV2], tool.WithVersion("2"), tool.Migrate("1", tt.up)))
		refused := 0
		for _, e := range r.errors {
			if strings.Contains(e, `a call made against version "1"`) && strings.Contains(e, "is refused after its migration") {
				refused++
			}
		}
		t.Logf("%s: %q", tt.name, r.errors)
		if refused == 0 || !slices.ContainsFunc(r.errors, func(e string) bool { return strings.Contains(e, "break the tools' callers") }) {
			t.Errorf("%s: errors %q, want refused calls reported as breaking", tt.name, r.errors)
		}
	}
}
