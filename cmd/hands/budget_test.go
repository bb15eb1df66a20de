package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/kvtool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pageNoteRE matches the note that ends a page of read_result: the bytes
// it holds, of how many, and where the next page starts.
var pageNoteRE = regexp.MustCompile(`\n\[read_result: bytes (\d+)-(\d+) of (\d+); (?:that is the end|read on with read_result \{"handle":"(res_[A-Za-z0-9_-]+)","offset":(\d+)\})\]$`)

// TestServeResultBudget serves over HTTP with --result-budget 2048 and
// reads back a stored value of some 14 kB, lines of text with characters
// of two and three bytes: kv_get's result is cut to the budget, its
// structured output shortened along its schema (the entry, its value cut
// short), with a note that names a handle and the offset to read from,
// and _meta says it was cut and how; read_result pages through the whole
// result, each page within the budget, and the pages follow one another
// to the end and make the whole result again, byte for byte. Another
// session of the same token, the same verified user, reads the handle
// too; on a server without a token, where each session is a caller of its
// own, another session gets the answer a handle that never existed gets.
func TestServeResultBudget(t *testing.T) {
	inTempDir(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const budget = 2048
	var lines strings.Builder
	for i := range 300 {
		fmt.Fprintf(&lines, "line %03d of the report: ünïcödé ✓ done\n", i)
	}
	value := lines.String()

	base, session, stop := serveSession(t, "--result-budget", strconv.Itoa(budget))
	if text, isErr := callText(t, session, "kv_put", map[string]any{"key": "report", "value": value}); isErr {
		t.Fatalf("kv_put: %s", text)
	}
	handle, shown, whole := readCut(t, session, budget)
	// kv_get's structured output is shortened along its schema: the text
	// shown is the entry, its value cut short.
	var entry kvtool.Entry
	if err := json.Unmarshal([]byte(shown), &entry); err != nil || entry.Key != "report" || len(entry.Value) >= len(value) || !strings.HasPrefix(value, entry.Value) {
		t.Errorf("the text shown is not the entry with its value cut short: %v\n%.300s", err, shown)
	}
	// What read_result reads is the whole result, byte for byte.
	want, err := json.Marshal(kvtool.Entry{Key: "report", Value: value})
	if err != nil {
		t.Fatal(err)
	}
	if whole != string(want) {
		t.Errorf("the whole result read back is\n%.300s…\nwant\n%.300s…", whole, want)
	}
	// Another session of the token is the same verified user.
	other := connectHTTP(t, base+"/mcp", "s3cret")
	if text, isErr := callText(t, other, tool.ReadResultName, map[string]any{"handle": handle}); isErr || !strings.HasPrefix(whole, strings.SplitN(text, "\n[read_result", 2)[0]) {
		t.Errorf("read_result of the same user's handle in another session = %q, isError %v; want the start of the result", text[:min(len(text), 200)], isErr)
	}
	other.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// Without a token each session is a caller of its own.
	t.Setenv("HANDS_TOKEN", "")
	line, stopServe := startServe(t, "--http", "127.0.0.1:0", "--result-budget", strconv.Itoa(budget))
	defer stopServe()
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("startup line %q names no address", line)
	}
	a, b := connectHTTP(t, m[1]+"/mcp", ""), connectHTTP(t, m[1]+"/mcp", "")
	defer a.Close()
	defer b.Close()
	handle, _, whole = readCut(t, a, budget)
	if whole != string(want) {
		t.Errorf("the whole result read back without a token is\n%.300s…\nwant\n%.300s…", whole, want)
	}
	if text, isErr := callText(t, b, tool.ReadResultName, map[string]any{"handle": handle}); !isErr || !strings.Contains(text, "no such result") || strings.Contains(text, "line 0") {
		t.Errorf("read_result of another session's handle = %q, isError %v; want the answer to a handle that never existed", text, isErr)
	}
	if text, isErr := callText(t, b, tool.ReadResultName, map[string]any{"handle": "res_AAAAAAAAAAAAAAAAAAAAAA"}); !isErr || !strings.Contains(text, "no such result") {
		t.Errorf("read_result of a handle that never existed = %q, isError %v; want no such result", text, isErr)
	}
}

// connectHTTP opens a session of the MCP server at endpoint, presenting
// token when it is not empty.
func connectHTTP(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	httpClient := http.DefaultClient
	if token != "" {
		httpClient = &http.Client{Transport: bearer{token, http.DefaultTransport}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return session
}

// readCut calls kv_get of the key report in session, whose result must be
// cut to budget, reads the whole result with read_result from the offset
// the cut names, and returns the handle, the text shown before the note
// of the cut, and the whole result's text.
func readCut(t *testing.T, session *mcp.ClientSession, budget int) (handle, shown, whole string) {
	t.Helper()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "kv_get", Arguments: map[string]any{"key": "report"}})
	if err != nil {
		t.Fatal(err)
	}
	first := resultText(res)
	if res.IsError || len(first) > budget {
		t.Fatalf("kv_get = %d bytes, isError %v; want a result within the budget of %d", len(first), res.IsError, budget)
	}
	var cut tool.Cut
	data, _ := json.Marshal(res.Meta[mcpserver.CutMeta])
	if err := json.Unmarshal(data, &cut); err != nil || cut.Handle == "" || cut.Budget != budget || cut.Shown >= cut.Size || cut.Kept != cut.Size {
		t.Fatalf("_meta %s = %s, want the budget %d, a handle, and the whole kept", mcpserver.CutMeta, data, budget)
	}
	note := fmt.Sprintf("\n[cut to fit the result budget (%d bytes): the whole result is %d bytes", budget, cut.Size)
	end := fmt.Sprintf(`; read the rest with read_result {"handle":%q,"offset":%d}]`, cut.Handle, cut.Shown)
	at := strings.LastIndex(first, note)
	if at < 0 || !strings.HasSuffix(first, end) {
		t.Fatalf("the cut result ends %q; want a note of the cut, %q…%q", first[max(0, len(first)-300):], note, end)
	}
	shown = first[:at]
	var b strings.Builder
	b.WriteString(first[:cut.Shown]) // the text shown is the whole's start, or (Shown 0) structured output shortened
	for offset, pages := cut.Shown, 0; ; pages++ {
		if pages > cut.Size/100 {
			t.Fatalf("read_result read %d pages and has not reached the end", pages)
		}
		text, isErr := callText(t, session, tool.ReadResultName, map[string]any{"handle": cut.Handle, "offset": offset})
		m := pageNoteRE.FindStringSubmatchIndex(text)
		if isErr || m == nil || len(text) > budget {
			t.Fatalf("read_result from %d = %d bytes %q, isError %v; want a page within %d bytes and its note", offset, len(text), text[max(0, len(text)-300):], isErr, budget)
		}
		group := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		from, _ := strconv.Atoi(group(1))
		next, _ := strconv.Atoi(group(2))
		size, _ := strconv.Atoi(group(3))
		page := text[:m[0]]
		if from != offset || next != from+len(page) || size != cut.Size {
			t.Fatalf("read_result from %d holds bytes %d-%d of %d, %d bytes; want from %d, as many as it holds, of %d", offset, from, next, size, len(page), offset, cut.Size)
		}
		b.WriteString(page)
		if group(4) == "" {
			if next != size {
				t.Fatalf("read_result says the end is at %d of %d", next, size)
			}
			break
		}
		if group(4) != cut.Handle || group(5) != strconv.Itoa(next) {
			t.Fatalf("read_result's note %q names another handle or offset than %s, %d", text[m[0]:], cut.Handle, next)
		}
		offset = next
	}
	whole = b.String()
	if !strings.HasPrefix(whole, first[:cut.Shown]) || len(whole) != cut.Size {
		t.Fatalf("read back %d bytes, want %d", len(whole), cut.Size)
	}
	return cut.Handle, shown, whole
}

// resultText returns the text of a call result.
func resultText(res *mcp.CallToolResult) string {
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String()
}
