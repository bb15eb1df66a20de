package hands_test

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A listedModule is a line of allmodules.
type listedModule struct {
	dir      string // slash-separated, "." for the top
	released bool
	checks   string   // "vet" or "test"
	timeout  []string // the test run's, for "test"
}

func readModuleList(t *testing.T) []listedModule {
	t.Helper()
	f, err := os.Open("allmodules")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mods []listedModule
	s := bufio.NewScanner(f)
	for line := 1; s.Scan(); line++ {
		fields := strings.Fields(s.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) < 3 || (fields[1] != "yes" && fields[1] != "no") {
			t.Fatalf("allmodules:%d: %q, want a directory, yes or no, and the checks", line, s.Text())
		}
		m := listedModule{dir: fields[0], released: fields[1] == "yes", checks: fields[2], timeout: fields[3:]}
		switch {
		case m.checks == "vet" && len(m.timeout) == 0:
		case m.checks == "test" && len(m.timeout) == 1:
			if _, err := time.ParseDuration(m.timeout[0]); err != nil {
				t.Errorf("allmodules:%d: the timeout %q: %v", line, m.timeout[0], err)
			}
		default:
			t.Errorf("allmodules:%d: checks %q, want vet, or test and a timeout", line, strings.Join(fields[2:], " "))
		}
		mods = append(mods, m)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return mods
}

// goMod is what go mod edit -json reports of a go.mod.
type goMod struct {
	Module  struct{ Path string }
	Require []struct{ Path, Version string }
	Replace []struct {
		Old, New struct{ Path, Version string }
	}
}

func readGoMod(t *testing.T, dir string) goMod {
	t.Helper()
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json in %s: %v", dir, err)
	}
	var m goMod
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// pseudoVersion matches a pseudo-version of a commit with no tag before it.
var pseudoVersion = regexp.MustCompile(`^v0\.0\.0-(\d{14})-([0-9a-f]{12})$`)

// TestModules checks allmodules, which .ci/run reads to vet and test each
// module: it lists every module of the repository, each once; and a
// released module other than the top one requires hands at a version a
// user's go get can resolve — a pseudo-version of a commit of this
// repository, with that commit's time — since go get ignores its replace.
func TestModules(t *testing.T) {
	mods := readModuleList(t)
	var listed []string
	for _, m := range mods {
		if slices.Contains(listed, m.dir) {
			t.Errorf("allmodules lists %s twice", m.dir)
		}
		listed = append(listed, m.dir)
	}
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			found = append(found, filepath.ToSlash(filepath.Dir(path)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range found {
		if !slices.Contains(listed, dir) {
			t.Errorf("the module in %s is not in allmodules, so .ci/run neither vets nor tests it", dir)
		}
	}
	for _, dir := range listed {
		if !slices.Contains(found, dir) {
			t.Errorf("allmodules lists %s, which has no go.mod", dir)
		}
	}

	for _, m := range mods {
		if !m.released || m.dir == "." || !slices.Contains(found, m.dir) {
			continue
		}
		gm := readGoMod(t, m.dir)
		i := slices.IndexFunc(gm.Require, func(r struct{ Path, Version string }) bool { return r.Path == module })
		if i < 0 {
			continue
		}
		version := gm.Require[i].Version
		match := pseudoVersion.FindStringSubmatch(version)
		if match == nil {
			t.Errorf("%s requires %s %s, want a pseudo-version of a commit of hands (v0.0.0-yyyymmddhhmmss-abcdefabcdef): go get ignores the replace", m.dir, module, version)
			continue
		}
		if _, err := exec.LookPath("git"); err != nil {
			t.Logf("git: %v; the commit of %s is not checked", err, version)
			continue
		}
		if err := exec.Command("git", "rev-parse", "--git-dir").Run(); err != nil {
			t.Logf("not in a git repository; the commit of %s is not checked", version)
			continue
		}
		cmd := exec.Command("git", "show", "-s", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", match[2])
		cmd.Env = append(os.Environ(), "TZ=UTC")
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s requires %s %s, whose commit %s is not in this repository: %v", m.dir, module, version, match[2], err)
			continue
		}
		if got := strings.TrimSpace(string(out)); got != match[1] {
			t.Errorf("%s requires %s %s, but commit %s was made at %s (UTC): the pseudo-version is v0.0.0-%s-%s", m.dir, module, version, match[2], got, got, match[2])
		}
		if err := exec.Command("git", "merge-base", "--is-ancestor", match[2], "HEAD").Run(); err != nil {
			t.Errorf("%s requires %s %s, whose commit %s is not in the history of HEAD (was it rebased?)", m.dir, module, version, match[2])
		}
	}
}
