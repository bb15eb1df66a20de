package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/conformancetest"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/mcpserver/internal/conformanceserver"
)

// TestConformance runs the server scenarios of the official MCP
// conformance suite against internal/conformanceserver, hands tools served
// on 127.0.0.1: the stable suite's (conformancetest.Version) over stateful
// streamable HTTP, which negotiates 2025-11-25, and the newest suite's
// (conformancetest.Next) at 2026-07-28 and for the tasks extension over
// stateless HTTP, that revision's wire. Each scenario is a subtest, which
// fails on a failed check that testdata/conformance-baseline.yml does not
// list; a listed scenario or check that passes fails too, so that the list
// stays true.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a while")
	}
	baseline, err := os.ReadFile(filepath.Join("testdata", "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := conformanceserver.New()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(nil))
	mux.Handle("/stateless", srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true}))
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		// The tasks the scenarios leave (tasks-mrtr-input cancels its
		// own, but a failed check may leave one waiting for an answer)
		// end with the server.
		ts.Close()
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Shutdown(ended)
	})

	t.Run(conformancetest.Version, func(t *testing.T) {
		runServerSuite(t, conformancetest.Version, ts.URL+"/mcp", baseline, "server", nil)
	})
	t.Run(conformancetest.Next, func(t *testing.T) {
		runServerSuite(t, conformancetest.Next, ts.URL+"/stateless", baseline, "server-next", []string{"--requirements", "2026-07-28"})
	})
}

// runServerSuite runs the server scenarios of one suite against url — all
// of them, or those that selection (such as --requirements 2026-07-28)
// picks — and judges them against the baseline's entries under key.
func runServerSuite(t *testing.T, version, url string, baseline []byte, key string, selection []string) {
	node, script := conformancetest.Suite(t, version)
	dir := t.TempDir()
	suite := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(t.Context(), node, append([]string{script}, args...)...)
		cmd.Dir = dir
		return cmd
	}
	listArgs := []string{"list", "--server"}
	if selection != nil {
		listArgs = append([]string{"list"}, selection...)
	}
	list, err := suite(listArgs...).Output()
	if err != nil {
		t.Fatalf("conformance %s: %v", strings.Join(listArgs, " "), err)
	}
	scenarios := conformancetest.ServerScenarios(list)
	if len(scenarios) < 30 {
		t.Fatalf("conformance %s names %d server scenarios, want the suite's thirty or more:\n%s", strings.Join(listArgs, " "), len(scenarios), list)
	}
	expected := conformancetest.Baseline(baseline, key)

	results := filepath.Join(dir, "results")
	args := append([]string{"server", "--url", url}, selection...)
	if selection == nil {
		args = append(args, "--suite", "all")
	}
	out, err := suite(append(args, "-o", results)...).CombinedOutput()
	t.Logf("conformance %s: exit %v\n%s", strings.Join(args, " "), err, conformancetest.Tail(out, 40))

	for _, name := range scenarios {
		t.Run(name, func(t *testing.T) {
			checks, _ := conformancetest.ReadChecks(t, results, "server-", name)
			whole := slices.Contains(expected, name)
			failed := conformancetest.Failed(checks)
			for _, c := range failed {
				if !whole && !slices.Contains(expected, name+":"+c.ID) {
					t.Errorf("check %s failed: %s: %s %s", c.ID, c.Description, c.ErrorMessage, c.Details)
				}
			}
			if whole && len(failed) == 0 {
				t.Errorf("%s passed; take it out of testdata/conformance-baseline.yml (%s)", name, key)
			}
			for _, e := range expected {
				id, ok := strings.CutPrefix(e, name+":")
				if ok && !slices.ContainsFunc(failed, func(c conformancetest.Check) bool { return c.ID == id }) {
					t.Errorf("check %s passed; take %s out of testdata/conformance-baseline.yml (%s)", id, e, key)
				}
			}
		})
	}
	for _, e := range expected {
		name, _, _ := strings.Cut(e, ":")
		if !slices.Contains(scenarios, name) {
			t.Errorf("testdata/conformance-baseline.yml (%s) lists %s, which the suite did not run", key, e)
		}
	}
}
