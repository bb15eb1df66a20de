package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/catalogue"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkVersion is the version of the official TypeScript SDK,
// @modelcontextprotocol/sdk, that .ci/run installs.
const sdkVersion = "1.32.2"

// typeScriptSDK returns node and the directory of the TypeScript SDK
// package: the one $HANDS_MCP_SDK names (.ci/run sets it), or where .ci/run
// installs it. It skips the test when they are missing locally; in CI
// (CI=true), or when $HANDS_MCP_SDK names a directory that is not there,
// it fails instead.
func typeScriptSDK(t *testing.T) (node, dir string) {
	t.Helper()
	dir = os.Getenv("HANDS_MCP_SDK")
	required := dir != "" || os.Getenv("CI") == "true"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf(format+"; the TypeScript SDK must run here (.ci/run installs it)", args...)
		}
		t.Skipf(format+"; .ci/run installs it", args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "hands", "sdk@"+sdkVersion, "node_modules", "@modelcontextprotocol", "sdk")
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "esm", "client", "index.js")); err != nil {
		missing("@modelcontextprotocol/sdk@%s is not installed: %v", sdkVersion, err)
	}
	return node, dir
}

// searchUpstreamServers are the servers of the catalogue whose tools the
// upstream of TestServeToolSearchTypeScript serves.
var searchUpstreamServers = []string{"github", "slack", "filesystem", "playwright"}

// TestSearchUpstreamServer is not a test: run as a process with
// HANDS_TEST_UPSTREAM=search, it is an upstream MCP server on stdio that
// serves the tools of searchUpstreamServers, as those servers list them,
// each answering its own name.
func TestSearchUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "search" {
		t.Skip("the upstream server of TestServeToolSearchTypeScript")
	}
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "catalogue", Version: "1"}, nil)
	for _, srv := range servers {
		if !slices.Contains(searchUpstreamServers, srv.Name) {
			continue
		}
		for _, raw := range srv.Tools {
			var tl mcp.Tool
			if err := json.Unmarshal(raw, &tl); err != nil {
				t.Fatal(err)
			}
			tl.Name = srv.Name + "_" + tl.Name // filesystem and github both have create_directory-like names
			s.AddTool(&tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tl.Name}}}, nil
			})
		}
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		t.Log(err)
	}
	os.Exit(0)
}

// TestServeProcess is not a test: run as a process with HANDS_TEST_SERVE
// set to a JSON array of arguments, it is hands serve with them, on its
// standard input and output.
func TestServeProcess(t *testing.T) {
	args := os.Getenv("HANDS_TEST_SERVE")
	if args == "" {
		t.Skip("hands serve, for TestServeToolSearchTypeScript")
	}
	var list []string
	if err := json.Unmarshal([]byte(args), &list); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), list, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// tsResult is what testdata/toolsearch_client.mjs prints.
type tsResult struct {
	Before, Found, After []string
	SearchIsError        bool
	FoundHaveSchemas     bool
	Changed              int
	Call                 *struct {
		IsError bool
		Text    string
	}
}

// TestServeToolSearchTypeScript runs hands serve --tool-search in front of
// an upstream of real servers' tools, and a client written with the
// official TypeScript SDK, over stdio and over streamable HTTP, stateful
// and stateless: the client lists the bundled tools and search_tools and
// no upstream tool; a search finds the upstream tool that fits, with its
// schema; over stdio and stateful HTTP the client is told its list
// changed and lists the tool found; and a call of it reaches the upstream.
func TestServeToolSearchTypeScript(t *testing.T) {
	node, sdk := typeScriptSDK(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "toolsearch_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", "search")
	serveArgs := []string{"serve", "--tool-search", "--upstream-env", "HANDS_TEST_UPSTREAM", "--upstream", exe + " -test.run=^TestSearchUpstreamServer$"}
	const query = "open a new pull request on github"
	const want = "github_create_pull_request"
	callArgs := `{"owner":"o","repo":"r","title":"t","head":"h","base":"b"}`

	client := func(t *testing.T, env ...string) tsResult {
		t.Helper()
		cmd := exec.Command(node, script)
		cmd.Env = append(os.Environ(), append(env, "HANDS_MCP_SDK="+sdk, "HANDS_QUERY="+query, "HANDS_CALL_ARGS="+callArgs)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the TypeScript client: %v\n%s", err, stderr.String())
		}
		if testing.Verbose() {
			t.Log(stderr.String())
		}
		var res tsResult
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("the TypeScript client printed %s: %v\n%s", out, err, stderr.String())
		}
		return res
	}
	check := func(t *testing.T, res tsResult, loads bool) {
		t.Helper()
		if !slices.Contains(res.Before, "search_tools") || !slices.Contains(res.Before, "host_file") || slices.ContainsFunc(res.Before, func(n string) bool { return strings.Contains(n, "github_") }) {
			t.Errorf("tools/list before a search = %v; want the bundled tools and search_tools, and no upstream tool", res.Before)
		}
		if res.SearchIsError || len(res.Found) == 0 || res.Found[0] != want || !res.FoundHaveSchemas {
			t.Errorf("search_tools(%q) found %v (error %v, schemas %v); want %s first, each with its schema", query, res.Found, res.SearchIsError, res.FoundHaveSchemas, want)
		}
		if got := slices.Contains(res.After, want); got != loads {
			t.Errorf("tools/list after the search = %v; listing %s: %v, want %v", res.After, want, got, loads)
		}
		if loads && res.Changed == 0 {
			t.Error("the client was not told that its list changed")
		}
		if res.Call == nil || res.Call.IsError || res.Call.Text != want {
			t.Errorf("the call of %s = %+v; want the upstream's answer", want, res.Call)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		args, _ := json.Marshal(serveArgs)
		command, _ := json.Marshal([]string{exe, "-test.run=^TestServeProcess$"})
		check(t, client(t, "HANDS_TEST_SERVE="+string(args), "HANDS_SERVE_COMMAND="+string(command), "HANDS_EXPECT_CHANGE=1"), true)
	})
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("http stateless=%v", stateless), func(t *testing.T) {
			args := append([]string{"serve", "--http", "127.0.0.1:0"}, serveArgs[1:]...)
			if stateless {
				args = append(args, "--stateless")
			}
			ctx, cancel := context.WithCancel(t.Context())
			stderrR, stderrW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, args, strings.NewReader(""), io.Discard, stderrW)
				stderrW.Close()
			}()
			t.Cleanup(func() { cancel(); <-done })
			line, err := bufio.NewReader(stderrR).ReadString('\n')
			if err != nil {
				t.Fatalf("no startup line: %v", err)
			}
			go io.Copy(io.Discard, stderrR)
			m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("startup line %q names no endpoint", line)
			}
			expect := "HANDS_EXPECT_CHANGE=1"
			if stateless {
				expect = "HANDS_EXPECT_CHANGE=0"
			}
			check(t, client(t, "HANDS_SERVE_URL="+m[1]+"/mcp", expect), !stateless)
		})
	}
}
