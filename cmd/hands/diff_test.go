package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/tooltest"
)

// TestBundledSnapshot keeps the bundled tools' specs in testdata/tools.json:
// a change that breaks their callers fails here first.
func TestBundledSnapshot(t *testing.T) {
	tooltest.SnapshotTools(t, "testdata/tools.json", specTools()...)
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
		{"no such snapshot", []string{"diff", "testdata/diff/nope.json", "testdata/diff/old.json"}, 1, "no such snapshot file"},
		{"not a snapshot", []string{"diff", "testdata/diff/diff.golden", "testdata/diff/old.json"}, 1, "read snapshot"},
		{"no such command", []string{"diff", "testdata/diff/old.json", "hands-no-such-command --flag"}, 1, "hands-no-such-command"},
		{"bad header", []string{"diff", "--header", "nocolon", "a", "b"}, 2, "NAME: VALUE"},
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
