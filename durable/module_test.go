package durable_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRequiredHands builds this module against the hands its go.mod
// requires — the commit its pseudo-version names, as a user's go get
// resolves it, since go get ignores the replace — rather than the
// repository's: that commit must have everything the module uses. When
// it fails, require a later commit (TestModules, at the top, checks the
// pseudo-version's form and time).
func TestRequiredHands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module")
	}
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	out, err := exec.Command("go", "mod", "edit", "-json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var gm struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &gm); err != nil {
		t.Fatal(err)
	}
	var version string
	for _, r := range gm.Require {
		if r.Path == "github.com/hands-go/hands" {
			version = r.Version
		}
	}
	m := regexp.MustCompile(`^v0\.0\.0-\d{14}-([0-9a-f]{12})$`).FindStringSubmatch(version)
	if m == nil {
		t.Fatalf("go.mod requires hands %q, want a pseudo-version of a commit", version)
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		fail("not in a git repository, whose commit %s this test builds: %v", m[1], err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "hands")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", `git archive "$0" | tar -x -C "$1"`, m[1], src)
	archive.Dir = strings.TrimSpace(string(top))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("the commit %s of hands: %v\n%s", m[1], err, out)
	}
	modfile := filepath.Join(dir, "go.mod")
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("go", "mod", "edit", "-replace=github.com/hands-go/hands="+src, modfile).CombinedOutput(); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	build := exec.Command("go", "build", "-modfile="+modfile, "./...")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("the module does not build against hands %s, which its go.mod requires: %v\n%s", version, err, out)
	}
}
