package compat_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/internal/mcpmeta"
)

func snapshot(t *testing.T, doc string) []compat.Tool {
	t.Helper()
	s, err := compat.ParseSnapshot([]byte(doc))
	if err != nil {
		t.Fatalf("ParseSnapshot: %v", err)
	}
	return s.Tools
}

func TestTools(t *testing.T) {
	const obj = `{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`
	for _, tt := range []struct {
		name     string
		old, new string
		want     []want // among the changes, with Tool "t" unless the pointer says otherwise
		kinds    []string
		breaks   bool
	}{
		{name: "same", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[{"name":"t","inputSchema":` + obj + `}]`},
		{name: "removed", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[]`, breaks: true, kinds: []string{compat.KindTool}},
		{name: "renamed", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[{"name":"u","inputSchema":` + obj + `}]`, breaks: true, kinds: []string{compat.KindTool, compat.KindTool}},
		{name: "added", old: `[]`, new: `[{"name":"t","inputSchema":` + obj + `}]`, kinds: []string{compat.KindTool}},
		{name: "read-only to destructive", old: `[{"name":"t","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}}]`, new: `[{"name":"t","inputSchema":` + obj + `,"annotations":{"destructiveHint":true}}]`,
			breaks: true, want: []want{{"/annotations/readOnlyHint", compat.Breaking}, {"/annotations/destructiveHint", compat.Breaking}, {"/annotations/idempotentHint", compat.Breaking}}},
		{name: "made read-only", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[{"name":"t","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}}]`,
			want: []want{{"/annotations/readOnlyHint", compat.Compatible}, {"/annotations/destructiveHint", compat.Compatible}}},
		{name: "closed world opened", old: `[{"name":"t","inputSchema":` + obj + `,"annotations":{"openWorldHint":false}}]`, new: `[{"name":"t","inputSchema":` + obj + `,"annotations":{}}]`,
			breaks: true, want: []want{{"/annotations/openWorldHint", compat.Breaking}}},
		{name: "output schema removed", old: `[{"name":"t","inputSchema":` + obj + `,"outputSchema":` + obj + `}]`, new: `[{"name":"t","inputSchema":` + obj + `}]`,
			breaks: true, want: []want{{"/outputSchema", compat.Breaking}}},
		{name: "output schema added", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[{"name":"t","inputSchema":` + obj + `,"outputSchema":` + obj + `}]`,
			want: []want{{"/outputSchema", compat.Compatible}}},
		{name: "output gains a field", old: `[{"name":"t","inputSchema":` + obj + `,"outputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]`,
			new: `[{"name":"t","inputSchema":` + obj + `,"outputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}}]`},
		{name: "input narrowed", old: `[{"name":"t","inputSchema":` + obj + `}]`, new: `[{"name":"t","inputSchema":{"type":"object","properties":{"city":{"type":"string","maxLength":3}},"additionalProperties":false}}]`,
			breaks: true, want: []want{{"/inputSchema/properties/city/maxLength", compat.Breaking}}},
		{name: "description changed", old: `[{"name":"t","description":"a","inputSchema":` + obj + `}]`, new: `[{"name":"t","description":"b","inputSchema":` + obj + `}]`,
			want: []want{{"/description", compat.Compatible}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			changes := compat.Tools(snapshot(t, tt.old), snapshot(t, tt.new), nil)
			if got := compat.Breaks(changes); got != tt.breaks {
				t.Errorf("Tools breaks = %v, want %v; changes:\n%s", got, tt.breaks, lines(changes))
			}
			for _, w := range tt.want {
				found := false
				for _, c := range changes {
					found = found || c.Tool == "t" && c.Pointer == w.pointer && c.Effect == w.effect
				}
				if !found {
					t.Errorf("no %v change at %q; changes:\n%s", w.effect, w.pointer, lines(changes))
				}
			}
			if tt.kinds != nil {
				var got []string
				for _, c := range changes {
					got = append(got, c.Kind)
				}
				if strings.Join(got, ",") != strings.Join(tt.kinds, ",") {
					t.Errorf("kinds %v, want %v; changes:\n%s", got, tt.kinds, lines(changes))
				}
			}
		})
	}
}

func TestParseSnapshot(t *testing.T) {
	for _, tt := range []struct {
		name    string
		doc     string
		tools   int
		tooBig  bool
		wantErr bool
	}{
		{name: "tools/list result", doc: `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`, tools: 2},
		{name: "bare list", doc: `[{"name":"a","inputSchema":{"type":"object"}}]`, tools: 1},
		{name: "duplicate", doc: `[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]`, wantErr: true},
		{name: "no name", doc: `[{"inputSchema":{}}]`, wantErr: true},
		{name: "not JSON", doc: `{"tools":`, wantErr: true},
		{name: "too deep", doc: `[{"name":"a","inputSchema":` + strings.Repeat(`{"not":`, 300) + `{}` + strings.Repeat(`}`, 300) + `}]`, wantErr: true, tooBig: true},
		{name: "brackets in strings", doc: `[{"name":"a","description":"` + strings.Repeat(`[{`, 300) + `","inputSchema":{}}]`, tools: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := compat.ParseSnapshot([]byte(tt.doc))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseSnapshot = %d tools, want an error", len(s.Tools))
				}
				if got := errors.Is(err, compat.ErrSnapshotTooLarge); got != tt.tooBig {
					t.Errorf("ParseSnapshot error %v: errors.Is(ErrSnapshotTooLarge) = %v, want %v", err, got, tt.tooBig)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSnapshot: %v", err)
			}
			if len(s.Tools) != tt.tools {
				t.Errorf("ParseSnapshot = %d tools, want %d", len(s.Tools), tt.tools)
			}
			data, err := s.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			again, err := compat.ParseSnapshot(data)
			if err != nil {
				t.Fatalf("ParseSnapshot(Marshal()): %v", err)
			}
			if changes := compat.Tools(s.Tools, again.Tools, nil); len(changes) != 0 {
				t.Errorf("a snapshot read back differs from itself:\n%s", lines(changes))
			}
		})
	}
}

// meta is the _meta of a tool of version v that migrates from the
// versions from.
func meta(v string, from ...string) string {
	m := map[string]any{mcpmeta.Version: v}
	if from != nil {
		m[mcpmeta.MigratesFrom] = from
	}
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return `,"_meta":` + string(data)
}

func TestToolVersions(t *testing.T) {
	const (
		obj          = `"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`
		narrow       = `"inputSchema":{"type":"object","properties":{"city":{"type":"string","maxLength":3}},"additionalProperties":false}`
		out          = `,"outputSchema":{"type":"object"}`
		narrower     = `"inputSchema":{"type":"object","properties":{"city":{"type":"string","maxLength":2}},"additionalProperties":false}`
		input        = "/inputSchema/properties/city/maxLength"
		migratesFrom = "/_meta/com.github.hands-go~1migratesFrom"
		version      = "/_meta/com.github.hands-go~1version"
	)
	tool := func(parts ...string) string { return `[{"name":"t",` + strings.Join(parts, "") + `}]` }
	for _, tt := range []struct {
		name     string
		old, new string
		breaks   bool
		want     []want // among the changes
		versions int    // how many KindVersion changes
	}{
		{name: "a break, the version kept", old: tool(obj, meta("1")), new: tool(narrow, meta("1")), breaks: true,
			want: []want{{input, compat.Breaking}, {version, compat.Breaking}}, versions: 1},
		{name: "a break, the version removed", old: tool(obj, meta("1")), new: tool(narrow), breaks: true,
			want: []want{{input, compat.Breaking}, {version, compat.Breaking}}, versions: 1},
		{name: "a break, the version raised", old: tool(obj, meta("1")), new: tool(narrow, meta("2")), breaks: true,
			want: []want{{input, compat.Breaking}, {version, compat.Compatible}}, versions: 1},
		{name: "a break, the version raised, migrated", old: tool(obj, meta("1")), new: tool(narrow, meta("2", "1")),
			want: []want{{input, compat.Migrated}, {version, compat.Compatible}}, versions: 1},
		{name: "a break, migrated through a chain", old: tool(obj, meta("1")), new: tool(narrow, meta("3", "2", "1")),
			want: []want{{input, compat.Migrated}}, versions: 1},
		{name: "a break, migrated from another version", old: tool(obj, meta("1")), new: tool(narrow, meta("3", "2")), breaks: true,
			want: []want{{input, compat.Breaking}}, versions: 1},
		{name: "a migration does not cover the output", old: tool(obj, out, meta("1")), new: tool(narrow, meta("2", "1")), breaks: true,
			want: []want{{input, compat.Migrated}, {"/outputSchema", compat.Breaking}}, versions: 1},
		{name: "a migration and a version kept", old: tool(obj, meta("1")), new: tool(narrow, meta("1", "0")), breaks: true,
			want: []want{{input, compat.Breaking}, {version, compat.Breaking}}, versions: 1},
		{name: "a break of a tool without versions", old: tool(obj), new: tool(narrow), breaks: true,
			want: []want{{input, compat.Breaking}}},
		{name: "a break, a version declared", old: tool(obj), new: tool(narrow, meta("1")), breaks: true,
			want: []want{{input, compat.Breaking}, {version, compat.Compatible}}, versions: 1},
		{name: "no break, the version kept", old: tool(obj, meta("1")), new: tool(obj, meta("1"))},
		{name: "no break, the version raised", old: tool(obj, meta("1")), new: tool(obj, meta("2")),
			want: []want{{version, compat.Compatible}}, versions: 1},
		// v1 → v2 migrates from 1, v2 → v3 from 2 only: each step is
		// covered, but the calls made against 1 now fail.
		{name: "a migration dropped", old: tool(narrow, meta("2", "1")), new: tool(narrower, meta("3", "2")), breaks: true,
			want: []want{{input, compat.Migrated}, {migratesFrom, compat.Breaking}}, versions: 2},
		{name: "a migration kept through a chain", old: tool(narrow, meta("2", "1")), new: tool(narrower, meta("3", "2", "1")),
			want: []want{{input, compat.Migrated}}, versions: 1},
		{name: "not versions", old: tool(obj, `,"_meta":{"com.github.hands-go/version":1,"other":"x"}`), new: tool(narrow, `,"_meta":{"com.github.hands-go/version":" 1"}`), breaks: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			changes := compat.Tools(snapshot(t, tt.old), snapshot(t, tt.new), nil)
			if got := compat.Breaks(changes); got != tt.breaks {
				t.Errorf("Tools breaks = %v, want %v; changes:\n%s", got, tt.breaks, lines(changes))
			}
			for _, w := range tt.want {
				if !slices.ContainsFunc(changes, func(c compat.Change) bool { return c.Pointer == w.pointer && c.Effect == w.effect }) {
					t.Errorf("no %v change at %q; changes:\n%s", w.effect, w.pointer, lines(changes))
				}
			}
			if got := len(slices.DeleteFunc(slices.Clone(changes), func(c compat.Change) bool { return c.Kind != compat.KindVersion })); got != tt.versions {
				t.Errorf("%d changes of version, want %d; changes:\n%s", got, tt.versions, lines(changes))
			}
		})
	}
}

// TestSnapshotMeta reads a tools/list whose _meta holds versions among
// other keys: a snapshot keeps the versions alone, under the keys hands'
// server writes them.
func TestSnapshotMeta(t *testing.T) {
	s, err := compat.ParseSnapshot([]byte(`[{"name":"a","inputSchema":{}` + meta("2", "1") + `},{"name":"b","inputSchema":{},"_meta":{"x":1}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Tools[0].Meta; m == nil || m.Version != "2" || !slices.Equal(m.MigratesFrom, []string{"1"}) {
		t.Errorf("a's Meta = %+v, want version 2 migrating from 1", m)
	}
	if m := s.Tools[1].Meta; m != nil {
		t.Errorf("b's Meta = %+v, want none", m)
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `"_meta": {
        "com.github.hands-go/version": "2",
        "com.github.hands-go/migratesFrom": [
          "1"
        ]
      }`
	if !strings.Contains(string(data), want) || strings.Count(string(data), `"_meta"`) != 1 {
		t.Errorf("Marshal =\n%s\nwant a's _meta alone, as\n%s", data, want)
	}
}
