package mcpclient_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/conformancetest"
)

// TestConformance runs the client scenarios of the official MCP
// conformance suite (@modelcontextprotocol/conformance), auth included,
// against internal/conformanceclient, which connects with this package:
// every scenario of the stable suite (conformancetest.Version), and those
// the newest (conformancetest.Next) runs for 2026-07-28 (--requirements
// 2026-07-28: the revision's, and its extensions'). Each scenario is a
// subtest, which fails on any check the suite failed that
// testdata/conformance-baseline.yml does not list.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while")
	}
	baseline, err := os.ReadFile(filepath.Join("testdata", "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(t.TempDir(), "conformanceclient")
	build := exec.CommandContext(t.Context(), filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", client, "./internal/conformanceclient")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build conformanceclient: %v\n%s", err, out)
	}
	t.Run(conformancetest.Version, func(t *testing.T) {
		runClientSuite(t, conformancetest.Version, client, baseline, "client", []string{"--suite", "all"})
	})
	t.Run(conformancetest.Next, func(t *testing.T) {
		runClientSuite(t, conformancetest.Next, client, baseline, "client-next", []string{"--requirements", "2026-07-28"})
	})
}

// runClientSuite runs the client scenarios of one suite that selection
// picks against client, and judges them against the baseline's entries
// under key.
func runClientSuite(t *testing.T, version, client string, baseline []byte, key string, selection []string) {
	node, script := conformancetest.Suite(t, version)
	dir := t.TempDir()
	suite := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), node, append([]string{script}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
		return cmd
	}

	listArgs := []string{"list", "--client"}
	if selection[0] == "--requirements" {
		listArgs = append([]string{"list"}, selection...)
	}
	list, err := suite(listArgs...).Output()
	if err != nil {
		t.Fatalf("conformance %s: %v", strings.Join(listArgs, " "), err)
	}
	scenarios := clientScenarios(list)
	if len(scenarios) < 20 {
		t.Fatalf("conformance %s names %d client scenarios, want the suite's two dozen or more:\n%s", strings.Join(listArgs, " "), len(scenarios), list)
	}
	expectedFailures := conformancetest.Baseline(baseline, key)

	results := filepath.Join(dir, "results")
	args := append([]string{"client", "--command", client}, selection...)
	out, err := suite(append(args, "-o", results)...).CombinedOutput()
	t.Logf("conformance %s: exit %v\n%s", strings.Join(args, " "), err, conformancetest.Tail(out, 60))

	passed, total := 0, 0
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			whole := slices.Contains(expectedFailures, name)
			expected := func(c conformancetest.Check) bool {
				return whole || slices.Contains(expectedFailures, name+":"+c.ID)
			}
			checks, where := conformancetest.ReadChecks(t, results, "", name)
			if slices.ContainsFunc(conformancetest.Failed(checks), func(c conformancetest.Check) bool { return !expected(c) }) {
				// Two dozen scenarios run at once, each with its Node
				// servers, and the timing checks (sse-retry's reconnection
				// delay) then miss on a loaded machine: a failed scenario
				// runs again alone, and that run counts.
				rerun := filepath.Join(dir, "rerun")
				runArgs := []string{"client", "--command", client, "--scenario", name, "-o", rerun}
				if version == conformancetest.Next {
					runArgs = append(runArgs, "--spec-version", "2026-07-28")
				}
				out, err := suite(runArgs...).CombinedOutput()
				t.Logf("%s failed among the others; alone: exit %v\n%s", name, err, conformancetest.Tail(out, 20))
				checks, where = conformancetest.ReadChecks(t, rerun, "", name)
			}
			failed := conformancetest.Failed(checks)
			for _, c := range checks {
				switch c.Status {
				case "FAILURE":
					total++
					if !expected(c) {
						t.Errorf("check %s failed: %s %s %s", c.ID, c.Description, c.ErrorMessage, c.Details)
					}
				case "SUCCESS":
					passed++
					total++
				}
			}
			if whole && len(failed) == 0 {
				t.Errorf("%s passed; take it out of testdata/conformance-baseline.yml (%s)", name, key)
			}
			for _, e := range expectedFailures {
				id, ok := strings.CutPrefix(e, name+":")
				if ok && !slices.ContainsFunc(failed, func(c conformancetest.Check) bool { return c.ID == id }) {
					t.Errorf("check %s passed; take %s out of testdata/conformance-baseline.yml (%s)", id, e, key)
				}
			}
			if t.Failed() {
				stderr, _ := os.ReadFile(filepath.Join(where, "stderr.txt"))
				t.Logf("the client's standard error:\n%s", stderr)
			}
		})
	}
	t.Logf("%d of %d checks passed", passed, total)
}

// clientScenarios returns the client scenarios that the suite's list
// command names, sorted: those under "Client scenarios", and, in the
// listing of a requirement set, those it runs without scoring them,
// marked "[client]".
func clientScenarios(list []byte) []string {
	var names []string
	for name := range conformancetest.Scenarios(list, "Client scenarios") {
		names = append(names, name)
	}
	_, rest, _ := bytes.Cut(list, []byte("never scored"))
	for line := range strings.Lines(string(rest)) {
		if name, ok := strings.CutSuffix(strings.TrimSpace(line), " [client]"); ok {
			names = append(names, strings.TrimPrefix(name, "- "))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
