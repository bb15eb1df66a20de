package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/golden"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inTempDir runs the test in a fresh working directory, with the user's
// data directory in a fresh one too, and returns the directory the default
// bucket lands in ($XDG_DATA_HOME/hands), which does not exist yet.
func inTempDir(t *testing.T) string {
	t.Helper()
	t.Chdir(t.TempDir())
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("HANDS_BUCKET", "")
	t.Setenv("HANDS_PUBLIC_URL", "")
	t.Setenv("HANDS_KV", "")
	t.Setenv("HANDS_SQL", "")
	return filepath.Join(data, "hands")
}

func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestCommands(t *testing.T) {
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
		{"token without http", []string{"serve", "--token", "s3cret"}, 2, "", "--token needs --http"},
		{"flag after --", []string{"schema", "--", "--dialect", "gemini"}, 2, "", `no tool named "--dialect"`},
		{"dialects", []string{"schema", "--dialect", "list"}, 0, "openai-strict\nanthropic", ""},
		{"unknown dialect", []string{"schema", "--dialect", "cobol"}, 2, "", ""},
		{"unknown tool in schema", []string{"schema", "nope"}, 2, "", ""},
		{"call", []string{"call", "host_file", `{"key":"notes/a b.txt","content":"hello"}`}, 0, "file://" + filepath.ToSlash(dir) + "/files/notes/a%20b.txt", "progress: uploading 5 bytes"},
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
	data, err := os.ReadFile(filepath.Join(dir, bucketFolder, "notes", "a b.txt"))
	if err != nil || string(data) != "hello" {
		t.Errorf("the hosted file holds %q, %v", data, err)
	}

}

// TestSchema keeps the bundled tools, as each dialect's provider takes them
// in a request, and their problems, in golden files; and checks that
// printing them creates no file, the data directory included.
func TestSchema(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := inTempDir(t)
	for _, name := range dialectNames() {
		stdout, stderr, err := runCmd(t, "schema", "--dialect", name)
		if err != nil {
			t.Fatalf("schema --dialect %s: %v\n%s", name, err, stderr)
		}
		if !json.Valid([]byte(stdout)) {
			t.Errorf("schema --dialect %s wrote invalid JSON:\n%s", name, stdout)
		}
		golden.Check(t, filepath.Join(repo, "testdata", "schema."+name+".json"), []byte(stdout))
		golden.Check(t, filepath.Join(repo, "testdata", "schema."+name+".problems.txt"), []byte(stderr))
	}
	assertCreatedNothing(t, dir)
}

// TestSchemaFlagsAfterTools checks that schema reads its flags wherever
// they stand: after the tool's name as before it.
func TestSchemaFlagsAfterTools(t *testing.T) {
	inTempDir(t)
	want, _, err := runCmd(t, "schema", "--dialect", "gemini", "fetch_markdown")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want, `"name": "fetch_markdown"`) || !strings.Contains(want, `"parameters"`) || strings.Contains(want, "host_file") {
		t.Fatalf("schema --dialect gemini fetch_markdown wrote\n%s\nwant fetch_markdown alone, as Gemini takes it", want)
	}
	for _, args := range [][]string{
		{"schema", "fetch_markdown", "--dialect", "gemini"},
		{"schema", "fetch_markdown", "--dialect=gemini"},
	} {
		got, stderr, err := runCmd(t, args...)
		if err != nil || got != want {
			t.Errorf("%q: %v %s\nwrote\n%s\nwant\n%s", args, err, stderr, got, want)
		}
	}
}

// assertCreatedNothing checks that the data directory dir does not exist and
// that the working directory is empty.
func assertCreatedNothing(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory exists: %v", err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the command created %s in the working directory", e.Name())
	}
}

// TestReadOnlyCommandsCreateNothing checks that the commands that write
// nothing create nothing: neither the data directory nor anything where
// they run.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	dir := inTempDir(t)
	for _, args := range [][]string{
		{"help"}, {"version"}, {"serve", "--help"}, {"call", "--help"}, {"schema"}, {"schema", "--dialect", "gemini"}, {"schema", "--help"},
	} {
		if _, stderr, err := runCmd(t, args...); err != nil {
			t.Errorf("%v: %v\n%s", args, err, stderr)
		}
	}
	if _, _, err := runCmd(t, "call", "fetch_markdown", `{"url":"ftp://example.com/"}`); err == nil {
		t.Error("call fetch_markdown with an ftp URL succeeded")
	}
	assertCreatedNothing(t, dir)
}

// TestServeHTTP runs hands serve --http and uses it as a client would: MCP
// at /mcp, and the URL host_file returns.
func TestServeHTTP(t *testing.T) {
	inTempDir(t)
	t.Setenv("HANDS_TOKEN", "s3cret")
	ctx := t.Context()
	line, stop := startServe(t, "--http", "127.0.0.1:0")
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil || !strings.Contains(line, "host_file, fetch_markdown") || !strings.Contains(line, "Ctrl-C") {
		t.Fatalf("startup line %q does not say what is served, where, and how to stop", line)
	}
	if !strings.Contains(line, "(bearer token required)") {
		t.Errorf("startup line %q does not say that a token is required", line)
	}
	base := m[1]

	if resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`)); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without the token = %v, %v; want 401", resp, err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	httpClient := &http.Client{Transport: bearer{"s3cret", http.DefaultTransport}}
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	// A file of 5 MB is within host_file's limit of 10 MiB; one a little
	// over that limit is refused by the tool, which says what the limit is.
	for _, tt := range []struct {
		size    int
		isError bool
	}{{5_000_000, false}, {10<<20 + 1000, true}} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "host_file", Arguments: map[string]any{
			"key": "big.txt", "content": strings.Repeat("x", tt.size),
		}})
		if err != nil || res.IsError != tt.isError || tt.isError && !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "10 MiB") {
			t.Errorf("host_file of %d bytes = %+v, %v; want isError=%v", tt.size, res, err, tt.isError)
		}
	}
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
	// The files are public URLs: the token guards the tools, not them. A
	// page whose name was rebound to this address gets none of the routes.
	if resp, _ := http.Get(base + "/tools.json"); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("GET /tools.json without the token = %d, WWW-Authenticate %q; want 401 with a challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	for _, path := range []string{"/mcp", "/files/pages/hello.html", "/tools.json", "/"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		req.Host = "evil.example"
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host evil.example = %d, want 403", path, resp.StatusCode)
		}
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
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after cancellation", err)
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
	data := t.TempDir()
	dir := filepath.Join(data, "hands")
	cmd := exec.Command(bin, "serve")
	cmd.Dir = "/" // where desktop clients often start servers
	cmd.Env = append(os.Environ(), "HANDS_BUCKET=", "HANDS_PUBLIC_URL=", "XDG_DATA_HOME="+data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 6 {
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
	content, err := os.ReadFile(filepath.Join(dir, bucketFolder, "x.txt"))
	if err != nil || string(content) != "over stdio" {
		t.Errorf("the hosted file holds %q, %v", content, err)
	}
	if !strings.Contains(stderr.String(), "over MCP on stdio") {
		t.Errorf("stderr %q lacks the startup line", stderr.String())
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestServeExportsTraces checks that serve exports a span of each served
// call over OTLP/HTTP when the standard environment names an endpoint, and
// that it is off otherwise.
func TestServeExportsTraces(t *testing.T) {
	inTempDir(t)
	var mu sync.Mutex
	var bodies [][]byte
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		if r.URL.Path != "/v1/traces" {
			t.Errorf("the exporter posted to %s", r.URL.Path)
		}
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SDK_DISABLED", "")

	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"host_file","arguments":{"key":"a.txt","content":"hi"}}}`,
	}, "\n") + "\n"
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"serve"}, strings.NewReader(requests), &out, &errOut); err != nil {
		t.Fatalf("serve: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Fatalf("serve did not answer the call:\n%s", out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	all := bytes.Join(bodies, nil)
	if !bytes.Contains(all, []byte("execute_tool")) || !bytes.Contains(all, []byte("host_file")) {
		t.Errorf("the collector received %d posts without an execute_tool span of host_file", len(bodies))
	}
}

// TestREADMESettings checks that the README's table of settings names every
// flag and environment variable that --help prints for serve and call, with
// nothing more.
func TestREADMESettings(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "<!-- settings -->")
	table, _, ok2 := strings.Cut(table, "<!-- /settings -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no settings table between <!-- settings --> and <!-- /settings -->")
	}
	setting := regexp.MustCompile("`(--[a-z-]+)|`([A-Z][A-Z0-9_]+)`")
	inTable := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range setting.FindAllStringSubmatch(cells[1]+"|"+cells[2], -1) {
			inTable[m[1]+m[2]] = true
		}
	}
	inHelp := map[string]bool{}
	for _, cmd := range []string{"serve", "call"} {
		stdout, _, err := runCmd(t, cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) > 0 && (strings.HasPrefix(f[0], "--") || regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`).MatchString(f[0])) && strings.HasPrefix(line, "  ") {
				inHelp[f[0]] = true
			}
		}
	}
	for name := range inHelp {
		if !inTable[name] {
			t.Errorf("--help prints %s, which the README's settings table lacks", name)
		}
	}
	for name := range inTable {
		if !inHelp[name] {
			t.Errorf("the README's settings table has %s, which no --help prints", name)
		}
	}
}

// TestRefusalsNameTheirSetting checks that a refusal the model reads names
// the setting that would allow the call.
func TestRefusalsNameTheirSetting(t *testing.T) {
	inTempDir(t)
	t.Setenv("HANDS_MAX_FILE_BYTES", "4")
	t.Setenv("HANDS_FETCH_ALLOW_PRIVATE", "false")
	for _, tt := range []struct {
		tool, args, setting string
	}{
		{"host_file", `{"key":"a.txt","content":"too long"}`, "HANDS_MAX_FILE_BYTES"},
		{"fetch_markdown", `{"url":"http://127.0.0.1:1/"}`, "HANDS_FETCH_ALLOW_PRIVATE=true"},
	} {
		stdout, stderr, err := runCmd(t, "call", tt.tool, tt.args)
		if err == nil || !strings.Contains(stdout+stderr+err.Error(), tt.setting) {
			t.Errorf("call %s: %v; output %q, want a refusal naming %s", tt.tool, err, stdout+stderr, tt.setting)
		}
	}
}

// TestNetAllow checks HANDS_NET_ALLOW: the one endpoint it names is
// fetched while loopback stays refused on every other port, and a list
// that is not of endpoints is refused before any tool runs.
func TestNetAllow(t *testing.T) {
	inTempDir(t)
	t.Setenv("HANDS_FETCH_ALLOW_PRIVATE", "false")
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the allowed service") }))
	defer open.Close()
	var closedHits atomic.Int64
	closed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { closedHits.Add(1) }))
	defer closed.Close()
	t.Setenv("HANDS_NET_ALLOW", strings.TrimPrefix(open.URL, "http://"))
	stdout, stderr, err := runCmd(t, "call", "fetch_markdown", `{"url":"`+open.URL+`/"}`)
	if err != nil || !strings.Contains(stdout, "the allowed service") {
		t.Errorf("call fetch_markdown on the allowed endpoint: %v; output %q", err, stdout+stderr)
	}
	stdout, stderr, err = runCmd(t, "call", "fetch_markdown", `{"url":"`+closed.URL+`/"}`)
	if err == nil || !strings.Contains(stdout+stderr+err.Error(), "HANDS_NET_ALLOW") || closedHits.Load() != 0 {
		t.Errorf("call fetch_markdown on another loopback port: %v; output %q; %d hits, want a refusal naming HANDS_NET_ALLOW", err, stdout+stderr, closedHits.Load())
	}
	t.Setenv("HANDS_NET_ALLOW", "127.0.0.1")
	_, stderr, err = runCmd(t, "call", "fetch_markdown", `{"url":"`+open.URL+`/"}`)
	if err == nil || !strings.Contains(stderr+err.Error(), "HANDS_NET_ALLOW") {
		t.Errorf("HANDS_NET_ALLOW=127.0.0.1 (no port): %v; stderr %q, want a refusal naming the setting", err, stderr)
	}
}

// TestTokenFromConfig checks that HANDS_TOKEN may come from the config
// file, like every HANDS_ setting.
func TestTokenFromConfig(t *testing.T) {
	inTempDir(t)
	t.Setenv("HANDS_TOKEN", "")
	config := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(config, []byte(`{"HANDS_TOKEN":"s3cret"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tools, closeEnv, err := bundledTools(t.Context(), config, "http://127.0.0.1/files", "fetch_markdown")
	if err != nil {
		t.Fatal(err)
	}
	defer closeEnv()
	if got := tools.token.Reveal(); got != "s3cret" {
		t.Errorf("the token from the config file = %q", got)
	}
}

// TestUpstreamEnv checks that an upstream command gets the safe variables
// and those the operator names, never HANDS_TOKEN or HANDS_TOKENS, and no
// credential it was not given.
func TestUpstreamEnv(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/home/h", "LC_ALL=C", "HANDS_TOKEN=s3cret", "HANDS_TOKENS=ada=s3cret", "HANDS_BUCKET=mem://",
		"AWS_SECRET_ACCESS_KEY=k", "OPENAI_API_KEY=sk", "GITHUB_TOKEN=g"}
	for _, tt := range []struct {
		pass []string
		want []string
	}{
		{nil, []string{"PATH=/bin", "HOME=/home/h", "LC_ALL=C"}},
		{[]string{"GITHUB_TOKEN", "HANDS_TOKEN", "HANDS_TOKENS"}, []string{"PATH=/bin", "HOME=/home/h", "LC_ALL=C", "GITHUB_TOKEN=g"}},
	} {
		if got := upstreamEnv(env, tt.pass); !slices.Equal(got, tt.want) {
			t.Errorf("upstreamEnv(%q) = %q, want %q", tt.pass, got, tt.want)
		}
	}
}

// TestBundledAnnotations checks that every bundled tool has a title and
// says how it behaves, so that a client's read-only filter keeps the tools
// that only read.
func TestBundledAnnotations(t *testing.T) {
	want := map[string]tool.Annotations{
		"host_file":      {Destructive: true, Idempotent: true},
		"fetch_markdown": {ReadOnly: true, OpenWorld: true},
		"kv_get":         {ReadOnly: true, Idempotent: true},
		"kv_put":         {Destructive: true, Idempotent: true},
		"kv_delete":      {Destructive: true, Idempotent: true},
		"kv_list":        {ReadOnly: true, Idempotent: true},
	}
	var readOnly []string
	for _, tl := range bundledSpecs(t) {
		spec := tl.Spec()
		if spec.Title == "" {
			t.Errorf("%s has no title", spec.Name)
		}
		w, ok := want[spec.Name]
		if !ok {
			t.Errorf("%s is not in the test's table", spec.Name)
			continue
		}
		if spec.Annotations == nil || *spec.Annotations != w {
			t.Errorf("%s's annotations = %+v, want %+v", spec.Name, spec.Annotations, w)
		}
		if mcpclient.ReadOnly(spec) {
			readOnly = append(readOnly, spec.Name)
		}
	}
	if got, want := strings.Join(readOnly, " "), "fetch_markdown kv_get kv_list"; got != want {
		t.Errorf("a read-only filter keeps %q, want %q", got, want)
	}
}

// TestREADMEDesktopConfig checks that the README's desktop configuration
// starts an installed binary, as serve, and says how to install it from a
// clone: "go run …@latest" cannot work before a version is published, and
// its first start compiles for longer than a client waits.
func TestREADMEDesktopConfig(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	var config struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	found := false
	for _, block := range strings.Split(text, "```json\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "mcpServers") {
			if err := json.Unmarshal([]byte(block), &config); err != nil {
				t.Fatalf("the desktop configuration is not JSON: %v\n%s", err, block)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("README.md shows no desktop configuration (a json block with mcpServers)")
	}
	s := config.MCPServers["hands"]
	if s.Command != "hands" || !slices.Equal(s.Args, []string{"serve"}) {
		t.Errorf("the desktop configuration runs %q %q, want the installed hands serve", s.Command, s.Args)
	}
	if !strings.Contains(text, "go install ./cmd/hands") || strings.Contains(text, "@latest") {
		t.Error("README.md does not say to install hands from the clone with go install ./cmd/hands, or still runs @latest")
	}
}

// TestServeWithoutDataDir checks that serve starts when the user's data
// directory cannot be created: the tools that need it (host_file, and the
// kv_ tools on the default store) are listed and answer each call with
// the reason and the setting that fixes it, and the others work.
func TestServeWithoutDataDir(t *testing.T) {
	inTempDir(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(file, "data")) // under a file: never a directory
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"host_file","arguments":{"key":"a.txt","content":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"kv_put","arguments":{"key":"k","value":"v"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fetch_markdown","arguments":{"url":"ftp://example.com/"}}}`,
	}, "\n") + "\n"
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"serve"}, strings.NewReader(requests), &out, &errOut); err != nil {
		t.Fatalf("serve: %v\n%s", err, errOut.String())
	}
	answers := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     float64        `json:"id"`
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		answers[msg.ID] = msg.Result
	}
	listed, _ := json.Marshal(answers[2])
	for _, name := range []string{"host_file", "fetch_markdown", "kv_put"} {
		if !strings.Contains(string(listed), `"name":"`+name+`"`) {
			t.Errorf("tools/list lacks %s: %s", name, listed)
		}
	}
	for id, want := range map[float64]string{3: "HANDS_BUCKET", 4: "HANDS_KV"} {
		got, _ := json.Marshal(answers[id])
		if answers[id]["isError"] != true || !strings.Contains(string(got), want) {
			t.Errorf("call %v = %s; want an error that names %s", id, got, want)
		}
	}
	if got, _ := json.Marshal(answers[5]); answers[5]["isError"] != true || !strings.Contains(string(got), "ftp") {
		t.Errorf("fetch_markdown's call = %s; want its own refusal of the ftp URL", got)
	}
	if !strings.Contains(errOut.String(), "host_file: cannot create the default bucket") {
		t.Errorf("serve did not say why host_file is unavailable:\n%s", errOut.String())
	}
}

// startServe runs hands serve with args and returns the line it prints on
// starting, and stop, which cancels it and returns its error; the rest of
// its stderr is discarded. The test fails if serve does not stop within
// a minute of stop.
func startServe(t *testing.T, args ...string) (line string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderrR, stderrW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, stderrW)
		stderrW.Close()
	}()
	stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("serve did not stop")
			return nil
		}
	}
	line, err := bufio.NewReader(stderrR).ReadString('\n')
	if err != nil {
		stop()
		t.Fatalf("no startup line: %v", err)
	}
	go io.Copy(io.Discard, stderrR)
	return line, stop
}

func TestDecodeStateKey(t *testing.T) {
	key := strings.Repeat("k", 32)
	for _, tt := range []struct {
		value string
		want  []byte // nil: a random key per process
		ok    bool
	}{
		{value: "", ok: true},
		{value: base64.StdEncoding.EncodeToString([]byte(key)), want: []byte(key), ok: true},
		{value: base64.RawURLEncoding.EncodeToString([]byte(key)) + "\n", want: []byte(key), ok: true},
		{value: base64.StdEncoding.EncodeToString([]byte(key[:16]))},
		{value: key},
	} {
		got, err := decodeStateKey(tt.value)
		if (err == nil) != tt.ok || !bytes.Equal(got, tt.want) {
			t.Errorf("decodeStateKey(%q) = %q, %v; want %q, ok %v", tt.value, got, err, tt.want, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), tt.value) {
			t.Errorf("decodeStateKey's error %q shows the secret", err)
		}
	}
}

// bundledSpecs returns the bundled tools for their specs, as hands schema
// prints them with the test's environment.
func bundledSpecs(t *testing.T) []tool.Interface {
	t.Helper()
	tools, err := specTools(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestSchemaShowsWhatServeServes prints the tools with HANDS_SQL set, in
// the environment or the config file: hands schema lists sql_query and
// sql_schema as serve would, with the description of the mode
// HANDS_SQL_WRITE selects, and neither connects to the database nor
// creates its file. A config file that names every setting is read.
func TestSchemaShowsWhatServeServes(t *testing.T) {
	dir := inTempDir(t)
	file := filepath.Join(t.TempDir(), "app.db")
	t.Setenv("HANDS_SQL", "sqlite://"+filepath.ToSlash(file))
	stdout, stderr, err := runCmd(t, "schema", "sql_query")
	if err != nil || !strings.Contains(stdout, `"name": "sql_query"`) || !strings.Contains(stdout, "HANDS_SQL_WRITE=true") {
		t.Errorf("schema sql_query with HANDS_SQL = %q, %q, %v; want the read-only tool", stdout, stderr, err)
	}
	t.Setenv("HANDS_SQL_WRITE", "true")
	if stdout, _, err := runCmd(t, "schema", "sql_query"); err != nil || strings.Contains(stdout, "HANDS_SQL_WRITE=true") {
		t.Errorf("schema sql_query with HANDS_SQL_WRITE=true = %q, %v; want the writing tool", stdout, err)
	}
	t.Setenv("HANDS_SQL", "postgres://u:p@127.0.0.1:1/db")
	if stdout, _, err := runCmd(t, "schema", "sql_schema"); err != nil || !strings.Contains(stdout, "PostgreSQL") {
		t.Errorf("schema sql_schema with a postgres URL = %q, %v; want the PostgreSQL tool", stdout, err)
	}

	t.Setenv("HANDS_SQL", "")
	t.Setenv("HANDS_SQL_WRITE", "")
	config := map[string]string{}
	for _, s := range settings {
		if strings.HasPrefix(s.env, "HANDS_") {
			config[s.env] = ""
		}
	}
	config["HANDS_SQL"] = "sqlite://" + filepath.ToSlash(file)
	data, _ := json.Marshal(config)
	configFile := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(configFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, err := runCmd(t, "schema", "--config", configFile, "sql_query"); err != nil || !strings.Contains(stdout, `"name": "sql_query"`) {
		t.Errorf("schema --config with HANDS_SQL = %q, %q, %v", stdout, stderr, err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("hands schema created the database file")
	}
	assertCreatedNothing(t, dir)
}

// TestServeResultBudgetRefused checks that serve refuses a result budget it
// cannot honour, before serving anything: a negative one, which used to turn
// budgets on and cut nothing, and one below the least.
func TestServeResultBudgetRefused(t *testing.T) {
	for _, budget := range []string{"-1", "100"} {
		var out, errOut bytes.Buffer
		err := run(t.Context(), []string{"serve", "--result-budget", budget}, strings.NewReader(""), &out, &errOut)
		if _, ok := errors.AsType[*usageError](err); !ok {
			t.Errorf("serve --result-budget %s: err = %v, want a usage error", budget, err)
		}
		if out.Len() != 0 {
			t.Errorf("serve --result-budget %s wrote %q", budget, out.String())
		}
	}
}

// TestSearchSetting checks that HANDS_SEARCH adds web_search to what serve
// and schema list, every provider taking it, and that a URL that holds a
// key is refused without the key in the message.
func TestSearchSetting(t *testing.T) {
	inTempDir(t)
	const key = "sk-cmd-test-51ac0e"
	t.Setenv("HANDS_SEARCH", "")
	if stdout, _, err := runCmd(t, "schema"); err != nil || strings.Contains(stdout, "web_search") {
		t.Errorf("schema without HANDS_SEARCH = %v, lists web_search: %v", err, strings.Contains(stdout, "web_search"))
	}
	t.Setenv("HANDS_SEARCH", "brave://")
	t.Setenv("BRAVE_API_KEY", key)
	for _, d := range dialectNames() {
		stdout, stderr, err := runCmd(t, "schema", "--dialect", d, "web_search")
		if err != nil || !strings.Contains(stdout, `"web_search"`) || strings.Contains(stdout+stderr, key) {
			t.Errorf("schema --dialect %s web_search with HANDS_SEARCH = %v, %q; want the tool, without the key", d, err, stderr)
		}
	}
	t.Setenv("HANDS_SEARCH", "brave://?key="+key)
	_, stderr, err := runCmd(t, "schema")
	if err == nil || !strings.Contains(err.Error()+stderr, "HANDS_SEARCH") || strings.Contains(err.Error()+stderr, key) {
		t.Errorf("schema with a key in HANDS_SEARCH = %v, %q; want an error naming HANDS_SEARCH, without the key", err, stderr)
	}
}
