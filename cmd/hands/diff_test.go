package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/tooltest"
)

// TestBundledSnapshot keeps the bundled tools' specs in testdata/tools.json:
// a change that breaks their callers fails here first.
func TestBundledSnapshot(t *testing.T) {
	tooltest.SnapshotTools(t, "testdata/tools.json", bundledSpecs(t)...)
}

// TestDiff keeps hands diff's output on two snapshots in golden files.
func TestDiff(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		golden   string
		breaking bool
	}{
		{name: "text", args: []string{"testdata/diff/old.json", "testdata/diff/new.json"}, golden: "diff.golden", breaking: true},
		{name: "json", args: []string{"--json", "testdata/diff/old.json", "testdata/diff/new.json"}, golden: "diff.json.golden", breaking: true},
		{name: "declared only", args: []string{"--declared-only", "testdata/diff/old.json", "testdata/diff/new.json"}, golden: "diff-declared.golden", breaking: true},
		{name: "backwards", args: []string{"testdata/diff/new.json", "testdata/diff/old.json"}, golden: "diff-backwards.golden", breaking: true},
		{name: "same", args: []string{"testdata/diff/old.json", "testdata/diff/old.json"}, golden: "same.golden"},
		{name: "forward", args: []string{"--mode", "forward", "testdata/diff/old.json", "testdata/diff/new.json"}, golden: "diff-forward.golden", breaking: true},
		{name: "full", args: []string{"--mode", "full", "testdata/diff/old.json", "testdata/diff/new.json"}, golden: "diff-full.golden", breaking: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runCmd(t, append([]string{"diff"}, tt.args...)...)
			if tt.breaking != errors.Is(err, errBreaking) || !tt.breaking && err != nil {
				t.Errorf("hands diff %v = %v, want breaking %v", tt.args, err, tt.breaking)
			}
			if err != nil && exitCode(err) != 1 {
				t.Errorf("exit code %d, want 1", exitCode(err))
			}
			if stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
			golden.Check(t, filepath.Join("testdata", "diff", tt.golden), []byte(stdout))
		})
	}
}

func TestDiffRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"one argument", []string{"diff", "testdata/diff/old.json"}, 2, "diff needs two tool lists"},
		// Whatever stops the comparison exits 3, apart from a breaking change (1).
		{"no such snapshot", []string{"diff", "testdata/diff/nope.json", "testdata/diff/old.json"}, 3, "no such snapshot file"},
		{"not a snapshot", []string{"diff", "testdata/diff/diff.golden", "testdata/diff/old.json"}, 3, "neither a snapshot"},
		{"invalid JSON", []string{"diff", "testdata/diff/invalid.json", "testdata/diff/old.json"}, 3, "read snapshot"},
		{"no such command", []string{"diff", "testdata/diff/old.json", "hands-no-such-command --flag"}, 3, "hands-no-such-command"},
		{"a command that serves nothing", []string{"diff", "testdata/diff/old.json", "true"}, 3, "true"},
		{"bad header", []string{"diff", "--header", "nocolon", "a", "b"}, 2, "NAME: VALUE"},
		{"bad mode", []string{"diff", "--mode", "transitive", "a", "b"}, 2, "--mode"},
		{"no such waivers", []string{"diff", "--accept", "testdata/diff/nope.txt", "testdata/diff/old.json", "testdata/diff/new.json"}, 3, "--accept"},
		{"snapshot needs a source", []string{"snapshot"}, 2, "snapshot needs one tool list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runCmd(t, tt.args...)
			if err == nil {
				t.Fatalf("hands %v succeeded", tt.args)
			}
			if code := exitCode(err); code != tt.code {
				t.Errorf("exit code %d, want %d (%v)", code, tt.code, err)
			}
			if !strings.Contains(err.Error()+stderr, tt.msg) {
				t.Errorf("hands %v: %v, stderr %q; want %q said", tt.args, err, stderr, tt.msg)
			}
		})
	}
}

// TestDiffAccept: waivers accept the breaking changes they name, so that
// hands diff exits 0, and one that names none is said on stderr.
func TestDiffAccept(t *testing.T) {
	stdout, stderr, err := runCmd(t, "diff", "--accept", "testdata/diff/waivers.txt", "testdata/diff/old.json", "testdata/diff/new.json")
	if err != nil {
		t.Errorf("hands diff --accept = %v, want success", err)
	}
	if !strings.Contains(stderr, "the waiver of weather (all) accepts no change") {
		t.Errorf("stderr %q, want the stale waiver named", stderr)
	}
	golden.Check(t, filepath.Join("testdata", "diff", "diff-accept.golden"), []byte(stdout))
}

// TestDiffLive compares the snapshot of the bundled tools with what a
// running hands serve lists over streamable HTTP, and a snapshot with what
// a server started as a command lists on stdio.
func TestDiffLive(t *testing.T) {
	snapshotFile, err := filepath.Abs("testdata/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	upstreamOld, _ := filepath.Abs("testdata/diff/upstream-old.json")
	goldenDir, _ := filepath.Abs("testdata/diff")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)

	t.Run("http", func(t *testing.T) {
		t.Setenv("HANDS_TOKEN", "s3cret")
		line, stop := startServe(t, "--http", "127.0.0.1:0")
		defer stop()
		m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("no URL in the startup line %q", line)
		}
		stdout, _, err := runCmd(t, "diff", "--header", "Authorization: Bearer s3cret", snapshotFile, m[1])
		if err != nil || stdout != "no changes\n" {
			t.Errorf("hands diff SNAPSHOT URL = %q, %v; want no changes", stdout, err)
		}
		live, _, err := runCmd(t, "snapshot", "--header", "Authorization: Bearer s3cret", m[1])
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(snapshotFile); live != string(want) {
			t.Errorf("hands snapshot URL differs from the registry's snapshot\ngot:\n%s\nwant:\n%s", live, want)
		}
		if _, _, err := runCmd(t, "diff", snapshotFile, m[1]); err == nil || errors.Is(err, errBreaking) {
			t.Errorf("hands diff without the token = %v, want an error connecting", err)
		}
	})

	t.Run("executable", func(t *testing.T) {
		// A file that is not JSON and is executable is a server to run,
		// whatever its name, even without a directory in it.
		t.Setenv("HANDS_TEST_UPSTREAM", "1")
		t.Setenv("HANDS_UPSTREAM_ENV", "HANDS_TEST_UPSTREAM")
		script := "#!/bin/sh\nexec '" + exe + "' -test.run='^TestUpstreamServer$'\n"
		if err := os.WriteFile("server", []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"./server", "server"} {
			stdout, _, err := runCmd(t, "diff", upstreamOld, path)
			if !errors.Is(err, errBreaking) || exitCode(err) != 1 {
				t.Errorf("hands diff SNAPSHOT %s = %v, want breaking changes", path, err)
			}
			golden.Check(t, filepath.Join(goldenDir, "upstream.golden"), []byte(stdout))
		}
	})

	t.Run("stdio", func(t *testing.T) {
		t.Setenv("HANDS_TEST_UPSTREAM", "1")
		t.Setenv("HANDS_UPSTREAM_ENV", "HANDS_TEST_UPSTREAM")
		command := exe + " -test.run=^TestUpstreamServer$"
		stdout, _, err := runCmd(t, "diff", upstreamOld, command)
		if !errors.Is(err, errBreaking) {
			t.Errorf("hands diff SNAPSHOT COMMAND = %v, want breaking changes", err)
		}
		golden.Check(t, filepath.Join(goldenDir, "upstream.golden"), []byte(stdout))
	})
}

// TestDiffLiveVersions snapshots a running server's versioned tool, then
// compares the snapshot with servers that changed the tool's input in a
// way that breaks old calls: one kept the version, which hands diff
// reports as a breaking change of its own; one raised it with a migration
// from the old version, which covers the break.
func TestDiffLiveVersions(t *testing.T) {
	type forecastV1 struct {
		Town string `json:"town"`
	}
	type forecastV2 struct {
		City string `json:"city"`
	}
	serve := func(t *testing.T, tl tool.Interface) string {
		t.Helper()
		reg, err := tool.NewRegistry(&tool.Scope{Name: "weather", Tools: []tool.Interface{tl}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(mcpserver.New(reg, nil).HTTPHandler(nil))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	v1 := serve(t, tool.New("forecast", "Forecast the weather.", func(ctx context.Context, a forecastV1) (string, error) { return a.Town, nil },
		tool.WithVersion("1")))
	snap, _, err := runCmd(t, "snapshot", v1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap, `"com.github.hands-go/version": "1"`) {
		t.Errorf("hands snapshot of a versioned tool:\n%s\nwant its version", snap)
	}
	old := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(old, []byte(snap), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, a forecastV2) (string, error) { return a.City, nil }
	up := tool.Migrate("1", func(o forecastV1) (forecastV2, error) { return forecastV2{City: o.Town}, nil })
	for _, tt := range []struct {
		name     string
		opts     []tool.Option
		breaking bool
		says     string
	}{
		{"the version kept", []tool.Option{tool.WithVersion("1")}, true, "breaking change without a version bump"},
		{"the version raised", []tool.Option{tool.WithVersion("2")}, true, `version "1" → "2"`},
		{"the version raised, with a migration", []tool.Option{tool.WithVersion("2"), up}, false, `(calls made against version "1" are migrated)`},
		{"the version raised, with a migration (summary)", []tool.Option{tool.WithVersion("2"), up}, false, "0 breaking, 2 breaking old calls that a migration upgrades"},
	} {
		url := serve(t, tool.New("forecast", "Forecast the weather.", run, tt.opts...))
		stdout, _, err := runCmd(t, "diff", old, url)
		if errors.Is(err, errBreaking) != tt.breaking || !tt.breaking && err != nil {
			t.Errorf("%s: hands diff = %v, want breaking %v", tt.name, err, tt.breaking)
		}
		if !strings.Contains(stdout, tt.says) {
			t.Errorf("%s: hands diff printed\n%s\nwant %q", tt.name, stdout, tt.says)
		}
	}
}
