package tooltest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/tool"
)

// Snapshot compares the specs of every tool of reg, enabled or not, with
// the snapshot file at path (testdata/tools.json, say), a JSON file in the
// shape of MCP's tools/list result. It fails the test with one t.Errorf
// per breaking change (package compat decides, with its default options,
// and its rule on versions: a break that keeps a tool's declared version
// is one more breaking change, and a break to the input of a tool whose
// raised version migrates from the old one is not breaking),
// and once more when the snapshot is out of date without breaking anything,
// so that the file always holds the contract as it is now. A migration is
// not taken on the word of the tool's metadata: for each tool whose input
// breaks are covered by one, calls valid under the snapshot's input
// schema are built and held to the tool as a call would be (tool.Tool.Check),
// and each the migration refuses, or upgrades to arguments the current
// input refuses, is one more breaking change. Each compatible change is
// logged with t.Logf. With go test -update it writes the current
// specs to path instead, logging the changes it accepts.
//
// The snapshot is the tools as a client sees them: the same file `hands
// diff` compares with another snapshot or a running server.
func Snapshot(t testing.TB, path string, reg *tool.Registry) {
	t.Helper()
	SnapshotTools(t, path, reg.Tools()...)
}

// SnapshotTools is Snapshot for tools outside a registry.
func SnapshotTools(t testing.TB, path string, tools ...tool.Interface) {
	t.Helper()
	specs := make([]tool.Spec, len(tools))
	for i, tl := range tools {
		specs[i] = tl.Spec()
	}
	cur := SnapshotOf(specs)
	data, err := cur.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && golden.Updating():
		golden.Write(t, path, data)
		t.Logf("%s: snapshot of %d tools written", path, len(specs))
		return
	case errors.Is(err, fs.ErrNotExist):
		t.Fatalf("%s: no snapshot of the tools yet (go test -update writes it)", path)
	case err != nil:
		t.Fatal(err)
	}
	prev, err := compat.ParseSnapshot(old)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// The tools as the file would hold them, read back like the old ones,
	// so that both sides are compared in the same form.
	now, err := compat.ParseSnapshot(data)
	if err != nil {
		t.Fatalf("%s: the current tools: %v", path, err)
	}
	changes := compat.Tools(prev.Tools, now.Tools, nil)
	if golden.Updating() {
		for _, c := range changes {
			t.Logf("%s: accepted: %s", path, c)
		}
		if string(old) != string(data) {
			golden.Write(t, path, data)
		}
		return
	}
	breaking := 0
	for _, c := range changes {
		if c.Breaks() {
			breaking++
			t.Errorf("%s: %s", path, c)
		} else {
			t.Logf("%s: %s", path, c)
		}
	}
	breaking += tryMigrations(t, path, prev.Tools, changes, tools)
	switch {
	case breaking > 0:
		t.Errorf("%s: changes that break the tools' callers: %d (go test -update accepts them, once the callers are ready)", path, breaking)
	case string(old) != string(data):
		t.Errorf("%s: the snapshot is out of date; the changes break no caller (go test -update records them)", path)
	}
}

// A checker holds arguments to a tool's input as a call would, migrations
// included, without calling it (tool.Tool.Check, tool.RawTool.Check).
type checker interface {
	Check(args json.RawMessage) (from string, err error)
}

// tryMigrations runs calls made against the old version of each tool whose
// input breaks were reported Migrated through the tool's migrations: the
// snapshot says a migration exists, this shows it accepts old calls. It
// reports each refused call with t.Errorf and returns how many.
func tryMigrations(t testing.TB, path string, old []compat.Tool, changes []compat.Change, tools []tool.Interface) int {
	t.Helper()
	refused := 0
	for _, tl := range tools {
		ck, ok := tl.(checker)
		if !ok || !slices.ContainsFunc(changes, func(c compat.Change) bool { return c.Tool == tl.Name() && c.Effect == compat.Migrated }) {
			continue
		}
		i := slices.IndexFunc(old, func(o compat.Tool) bool { return o.Name == tl.Name() })
		if i < 0 || old[i].Meta == nil {
			continue
		}
		version := old[i].Meta.Version
		calls := oldCalls(old[i].InputSchema)
		if len(calls) == 0 {
			t.Logf("%s: %s: no call valid under version %q's input could be made, to try the migration with", path, tl.Name(), version)
			continue
		}
		for _, call := range calls {
			if _, err := ck.Check(call); err != nil {
				refused++
				t.Errorf("%s: breaking   %s: a call made against version %q, %s, is refused after its migration: %v", path, tl.Name(), version, call, err)
			}
		}
	}
	return refused
}

// SnapshotOf returns the snapshot of specs: each as an MCP server lists it
// (mcpserver's tools/list), annotations with all four hints, and its
// version and the versions it migrates from in its _meta.
func SnapshotOf(specs []tool.Spec) *compat.Snapshot {
	s := &compat.Snapshot{Tools: make([]compat.Tool, 0, len(specs))}
	for _, spec := range specs {
		t := compat.Tool{Name: spec.Name, Title: spec.Title, Description: spec.Description,
			InputSchema: spec.InputSchema, OutputSchema: spec.OutputSchema}
		if a := spec.Annotations; a != nil {
			destructive, openWorld := a.Destructive, a.OpenWorld
			t.Annotations = &compat.Annotations{Title: spec.Title, ReadOnlyHint: a.ReadOnly, DestructiveHint: &destructive,
				IdempotentHint: a.Idempotent, OpenWorldHint: &openWorld}
		}
		if spec.Version != "" {
			t.Meta = &compat.Meta{Version: spec.Version, MigratesFrom: spec.MigratesFrom}
		}
		s.Tools = append(s.Tools, t)
	}
	return s
}
