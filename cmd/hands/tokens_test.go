package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
)

// TestServeTokens serves two callers, each with a token of its own read
// from --tokens: a wrong token is refused, each caller is told apart, so
// that a result cut for one is read by that caller's other sessions and
// not by the other caller; and no token shows in the startup line, in
// --help or in the errors of a file or of HANDS_TOKENS that cannot be
// read.
func TestServeTokens(t *testing.T) {
	inTempDir(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HANDS_TOKEN", "")
	t.Setenv("HANDS_TOKENS", "")
	dir := t.TempDir()
	file := filepath.Join(dir, "callers.txt")
	if err := os.WriteFile(file, []byte("# who may call\nada = ada-s3cret\n\nbob=bob-s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const budget = 2048
	line, stop := startServe(t, "--http", "127.0.0.1:0", "--tokens", file, "--result-budget", strconv.Itoa(budget))
	defer stop()
	if strings.Contains(line, "s3cret") || !strings.Contains(line, "2 callers required: ada, bob") {
		t.Errorf("the startup line %q should name the callers and no token", line)
	}
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("startup line %q names no address", line)
	}
	endpoint := m[1] + "/mcp"
	for _, token := range []string{"", "wrong", "ada-s3cre", "ada-s3cret,bob-s3cret"} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("POST with token %q = %d, want 401", token, resp.StatusCode)
		}
	}

	ada, ada2, bob := connectHTTP(t, endpoint, "ada-s3cret"), connectHTTP(t, endpoint, "ada-s3cret"), connectHTTP(t, endpoint, "bob-s3cret")
	defer ada.Close()
	defer ada2.Close()
	defer bob.Close()
	var lines strings.Builder
	for i := range 200 {
		fmt.Fprintf(&lines, "line %03d of ada's report\n", i)
	}
	if text, isErr := callText(t, ada, "kv_put", map[string]any{"key": "report", "value": lines.String()}); isErr {
		t.Fatalf("kv_put: %s", text)
	}
	handle, _, _ := readCut(t, ada, budget)
	if text, isErr := callText(t, ada2, tool.ReadResultName, map[string]any{"handle": handle}); isErr || !strings.Contains(text, "line 0") {
		t.Errorf("ada's other session reads her result: %.200q, isError %v; want its text", text, isErr)
	}
	if text, isErr := callText(t, bob, tool.ReadResultName, map[string]any{"handle": handle}); !isErr || !strings.Contains(text, "no such result") || strings.Contains(text, "line 0") {
		t.Errorf("bob reads ada's result: %.200q, isError %v; want the answer to a handle that never existed", text, isErr)
	}

	// Errors name the place, never the token.
	for _, tt := range []struct {
		file, env string
		want      string
	}{
		{file: "ada=ada-s3cret\nbroken-s3cret\n", want: "line 2 of"},
		{file: "ada=one-s3cret\nbob=one-s3cret\n", want: `"ada" and "bob"`},
		{file: "ada=one-s3cret\nada=two-s3cret\n", want: `"ada" again`},
		{env: "ada=ada-s3cret,bob s3cret", want: "pair 2 of HANDS_TOKENS"},
		{env: "ada=ada-s3cret", file: "-", want: "both a single token"}, // and --token
	} {
		args := []string{"serve", "--http", "127.0.0.1:0"}
		t.Setenv("HANDS_TOKENS", tt.env)
		switch tt.file {
		case "":
		case "-":
			args = append(args, "--token", "single-s3cret")
		default:
			f := filepath.Join(dir, "bad.txt")
			if err := os.WriteFile(f, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--tokens", f)
		}
		_, stderr, err := runCmd(t, args...)
		if err == nil {
			t.Errorf("serve with tokens %q / HANDS_TOKENS %q started", tt.file, tt.env)
			continue
		}
		if msg := err.Error() + stderr; strings.Contains(msg, "s3cret") || !strings.Contains(msg, tt.want) {
			t.Errorf("serve with tokens %q / HANDS_TOKENS %q: %q; want it to say %q and show no token", tt.file, tt.env, msg, tt.want)
		}
	}
	t.Setenv("HANDS_TOKENS", "ada=env-s3cret")
	if stdout, stderr, _ := runCmd(t, "serve", "--help"); strings.Contains(stdout+stderr, "s3cret") || !strings.Contains(stdout, "--tokens FILE") {
		t.Errorf("serve --help shows a token, or no --tokens FILE:\n%s", stdout+stderr)
	}
}
