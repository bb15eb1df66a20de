package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/golden"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inTempDir runs the test in a fresh working directory, so that the default
// bucket ./hands-data lands there.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HANDS_BUCKET", "")
	t.Setenv("HANDS_PUBLIC_URL", "")
	return dir
}

func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestCommands(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := inTempDir(t)
	for _, tt := range []struct {
		name   string
		args   []string
		code   int    // the exit code
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"unknown command", []string{"frob"}, 2, "", `unknown command "frob"`},
		{"help", []string{"help"}, 0, "hands serve", ""},
		{"version", []string{"version"}, 0, "hands ", ""},
		{"version help", []string{"version", "--help"}, 0, "Usage: hands version", ""},
		{"serve help", []string{"serve", "--help"}, 0, "-stateless", ""},
		{"schema help", []string{"schema", "--help"}, 0, "-dialect", ""},
		{"call help", []string{"call", "--help"}, 0, "Usage: hands call", ""},
		{"bad flag", []string{"serve", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{"stateless without http", []string{"serve", "--stateless"}, 2, "", ""},
		{"dialects", []string{"schema", "--dialect", "list"}, 0, "openai-strict\nanthropic", ""},
		{"unknown dialect", []string{"schema", "--dialect", "cobol"}, 2, "", ""},
		{"unknown tool in schema", []string{"schema", "nope"}, 2, "", ""},
		{"call", []string{"call", "host_file", `{"key":"notes/a b.txt","content":"hello"}`}, 0, "file://" + filepath.ToSlash(dir) + "/hands-data/notes/a%20b.txt", "progress: uploading 5 bytes"},
		{"call with invalid arguments", []string{"call", "host_file", `{"key":"","content":1}`}, 1, "", "/key: must be at least 1 character"},
		{"call refused by the handler", []string{"call", "host_file", `{"key":"a/../b","content":"x"}`}, 1, "", ".."},
		{"call unknown tool", []string{"call", "nope", `{}`}, 2, "", `no tool named "nope"`},
		{"call without a tool", []string{"call"}, 2, "", "Usage: hands call"},
		{"call with malformed JSON", []string{"call", "host_file", `{"key":`}, 1, "", "invalid JSON"},
		{"fetch refuses loopback", []string{"call", "fetch_markdown", `{"url":"http://127.0.0.1:1/"}`}, 1, "", "127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runCmd(t, tt.args...)
			if err != nil && !errors.Is(err, errReported) {
				stderr += "hands: " + err.Error() + "\n"
			}
			code := 0
			if err != nil {
				code = exitCode(err)
			}
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stdout %q, stderr %q)", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.stderr)
			}
		})
	}
	data, err := os.ReadFile(filepath.Join(dir, "hands-data", "notes", "a b.txt"))
	if err != nil || string(data) != "hello" {
		t.Errorf("the hosted file holds %q, %v", data, err)
	}

	// The schemas of the bundled tools, in every dialect, are golden files.
	for _, dialect := range dialectNames() {
		stdout, _, err := runCmd(t, "schema", "--dialect", dialect)
		if err != nil {
			t.Fatalf("schema --dialect %s: %v", dialect, err)
		}
		golden.Check(t, filepath.Join(repo, "testdata", "schema."+dialect+".json"), []byte(stdout))
	}
}

// TestServeHTTP runs hands serve --http and uses it as a client would: MCP
// at /mcp, and the URL host_file returns.
func TestServeHTTP(t *testing.T) {
	inTempDir(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderrR, stderrW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, stderrW)
		stderrW.Close()
	}()
	line, err := bufio.NewReader(stderrR).ReadString('\n')
	if err != nil {
		t.Fatalf("no startup line: %v", err)
	}
	go io.Copy(io.Discard, stderrR)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, "host_file, fetch_markdown") || !strings.Contains(line, "Ctrl-C") {
		t.Fatalf("startup line %q does not say what is served, where, and how to stop", line)
	}
	base := m[1]

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "host_file", Arguments: map[string]any{
		"key": "pages/hello.html", "content": "<p>hi</p>", "contentType": "text/html",
	}})
	if err != nil || res.IsError {
		t.Fatalf("host_file = %+v, %v", res, err)
	}
	url := res.Content[0].(*mcp.TextContent).Text
	if url != base+"/files/pages/hello.html" {
		t.Fatalf("host_file returned %q, want a URL under %s/files/", url, base)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "<p>hi</p>" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET %s = %d %q %q", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for _, path := range []string{"/files/nope.txt", "/files/pages/hello.html.attrs"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestServeStdioSubprocess builds the command and talks MCP to it over
// stdio, as a desktop client does.
func TestServeStdioSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "hands")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HANDS_BUCKET=", "HANDS_PUBLIC_URL=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("ListTools = %v, %v", tools, err)
	}
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "host_file", Arguments: map[string]any{"key": "x.txt", "content": "over stdio"}})
	if err != nil || res.IsError {
		t.Fatalf("host_file = %+v, %v", res, err)
	}
	res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "host_file", Arguments: map[string]any{"key": "/abs"}})
	if err != nil || !res.IsError {
		t.Errorf("an invalid call = %+v, %v; want an error result", res, err)
	}
	if err := session.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "hands-data", "x.txt"))
	if err != nil || string(data) != "over stdio" {
		t.Errorf("the hosted file holds %q, %v", data, err)
	}
	if !strings.Contains(stderr.String(), "over MCP on stdio") {
		t.Errorf("stderr %q lacks the startup line", stderr.String())
	}
}
