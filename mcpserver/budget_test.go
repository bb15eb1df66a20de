package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noArgs struct{}

// budgetRegistry returns a registry with budgets on and two tools of a
// large text result: one with a budget of its own.
func budgetRegistry(t *testing.T) (*tool.Registry, string) {
	t.Helper()
	whole := strings.Repeat("a line of the log\n", 5000)
	big := func(context.Context, noArgs) (string, error) { return whole, nil }
	reg, err := tool.NewRegistry(&tool.Scope{Name: "t", Tools: []tool.Interface{
		tool.New("log", "Read the log.", big),
		tool.New("schema", "Read the schema.", big, tool.WithResultBudget(50_000)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.SetBudget(&tool.Budget{}); err != nil {
		t.Fatal(err)
	}
	return reg, whole
}

var handleRE = regexp.MustCompile(`"handle":"(res_[A-Za-z0-9_-]+)"`)

// TestResultBudget checks a served caller's budget: each tool declares its
// budget in tools/list as anthropic/maxResultSizeChars, a result over it
// is cut to it with its _meta saying so, and the caller reads the rest
// with read_result, which another session cannot.
func TestResultBudget(t *testing.T) {
	reg, whole := budgetRegistry(t)
	srv := mcpserver.New(reg, &mcpserver.Options{ResultBudget: 4096})
	httpServer := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(httpServer.Close) // after the sessions' Close, registered later
	open := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: httpServer.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		return session
	}
	a, b := open(), open()

	list, err := a.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]any{}
	for _, mt := range list.Tools {
		declared[mt.Name] = mt.Meta[mcpserver.ResultBudgetMeta]
	}
	if declared["log"] != float64(4096) || declared["schema"] != float64(50_000) {
		t.Errorf("declared budgets = %v, want log 4096 (the caller's) and schema 50000 (its own)", declared)
	}

	res, err := a.CallTool(t.Context(), &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got := text(res)
	if len(got) > 4096 || res.Meta[mcpserver.CutMeta] == nil {
		t.Fatalf("result of %d bytes with _meta %v; want at most 4096, with %s", len(got), res.Meta, mcpserver.CutMeta)
	}
	var cut tool.Cut
	data, _ := json.Marshal(res.Meta[mcpserver.CutMeta])
	if err := json.Unmarshal(data, &cut); err != nil || cut.Size != len(whole) || cut.Handle == "" {
		t.Errorf("%s = %s, want the whole's size %d and a handle", mcpserver.CutMeta, data, len(whole))
	}
	m := handleRE.FindStringSubmatch(got)
	if m == nil || m[1] != cut.Handle {
		t.Fatalf("the text names no handle, or another than _meta: %q", got[max(0, len(got)-300):])
	}
	read := func(s *mcp.ClientSession) *mcp.CallToolResult {
		res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.ReadResultName, Arguments: map[string]any{"handle": cut.Handle, "offset": cut.Shown}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if own := read(a); own.IsError || !strings.HasPrefix(whole[cut.Shown:], strings.SplitN(text(own), "\n[read_result", 2)[0]) {
		t.Errorf("the caller's read_result = %q, want the text on from %d", text(own)[:min(80, len(text(own)))], cut.Shown)
	}
	if other := read(b); !other.IsError || !strings.Contains(text(other), "no such result") {
		t.Errorf("another session's read_result = %q, want the answer to a missing handle", text(other))
	}
}

// TestResultBudgetNeedsBudgets checks that ResultBudget on a registry
// without budgets is a mistake at setup.
func TestResultBudgetNeedsBudgets(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with ResultBudget and no registry budget did not panic")
		}
	}()
	mcpserver.New(&tool.Registry{}, &mcpserver.Options{ResultBudget: 4096})
}
