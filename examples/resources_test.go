package examples

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNotes runs the notes server, whose tools are bound to a SQLite
// database: a note added through one tool is found with sql_query, and
// sql_query cannot delete it.
func TestNotes(t *testing.T) {
	bin := build(t, "notes")
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := call("add_note", map[string]any{"text": "buy milk"}); isErr || !strings.Contains(text, `"id":1`) {
		t.Fatalf("add_note = %q", text)
	}
	text, isErr := call("sql_query", map[string]any{"sql": "SELECT id, text FROM notes WHERE text LIKE ?", "params": []string{"%milk%"}})
	if isErr || !strings.Contains(text, "1 | buy milk") {
		t.Errorf("sql_query = %q", text)
	}
	if text, isErr := call("sql_query", map[string]any{"sql": "DELETE FROM notes"}); !isErr {
		t.Errorf("sql_query DELETE = %q, want a refusal", text)
	}
	if text, _ := call("sql_schema", map[string]any{}); !strings.Contains(text, "notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL)") {
		t.Errorf("sql_schema = %q", text)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "notes.db")); err != nil {
		t.Error(err)
	}
}

// TestMemory runs the memory agent twice: the second run reads what the
// first stored, from the file the store keeps.
func TestMemory(t *testing.T) {
	bin := build(t, "memory")
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("memory %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run(); !strings.Contains(out, "nothing is stored") {
		t.Errorf("a first run that recalls = %q, want that nothing is stored", out)
	}
	run("remember", "Ada Lovelace")
	if out := run(); !strings.Contains(out, `"value":"Ada Lovelace"`) {
		t.Errorf("a later run = %q, want the name remembered", out)
	}
}
