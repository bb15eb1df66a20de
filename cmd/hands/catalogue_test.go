package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/catalogue"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCatalogueUpstreamServer is not a test: run as a process with
// HANDS_TEST_UPSTREAM=catalogue and a server's name as its argument, it is
// an upstream MCP server on stdio that lists the tools of that server of
// the catalogue, each tool exactly as recorded (see internal/catalogue),
// and answers every other request with an error. With "generated-N" for
// argument it lists N tools of its own (generatedServer).
func TestCatalogueUpstreamServer(t *testing.T) {
	if os.Getenv("HANDS_TEST_UPSTREAM") != "catalogue" {
		t.Skip("the upstream server of the catalogue tests")
	}
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	var server *catalogue.Server
	for i := range servers {
		if servers[i].Name == flag.Arg(0) {
			server = &servers[i]
		}
	}
	if n, ok := strings.CutPrefix(flag.Arg(0), "generated-"); ok {
		count, err := strconv.Atoi(n)
		if err != nil {
			t.Fatal(err)
		}
		server = generatedServer(count)
	}
	if server == nil {
		t.Fatalf("no server %q in the catalogue", flag.Arg(0))
	}
	replay(os.Stdin, os.Stdout, server)
	os.Exit(0)
}

// generatedServer returns a server of n tools, tool_0 to tool_n-1, each
// of an object schema with no properties, for tests that need more tools
// than the catalogue's servers list.
func generatedServer(n int) *catalogue.Server {
	s := &catalogue.Server{Name: fmt.Sprintf("generated-%d", n), Version: "1"}
	for i := range n {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(`{"name":"tool_%d","description":"Tool %d.","inputSchema":{"type":"object"}}`, i, i)))
	}
	return s
}

// replay answers the JSON-RPC requests on in, one a line, as the catalogue's
// server s would, its tools as recorded.
func replay(in io.Reader, out io.Writer, s *catalogue.Server) {
	var list bytes.Buffer
	list.WriteString(`{"tools":[`)
	for i, t := range s.Tools {
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(t)
	}
	list.WriteString(`]}`)
	lines := bufio.NewScanner(in)
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(lines.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, or not a request
		}
		var result string
		switch req.Method {
		case "initialize":
			info, _ := json.Marshal(map[string]any{
				"protocolVersion": req.Params.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": s.Name, "version": s.Version},
			})
			result = string(info)
		case "tools/list":
			result = list.String()
		case "ping":
			result = `{}`
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}

// catalogueUpstream returns the --upstream command line of the replay of
// the catalogue's server name.
func catalogueUpstream(t *testing.T, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe + " -test.run=^TestCatalogueUpstreamServer$ " + name
}

// rawList runs hands serve with args on stdio, lists its tools with a
// client of its own that keeps each tool as hands wrote it, and returns
// them with what serve wrote on its standard error by then.
func rawList(t *testing.T, args ...string) ([]json.RawMessage, string) {
	t.Helper()
	inTempDir(t)
	t.Setenv("HANDS_TEST_UPSTREAM", "catalogue")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve", "--upstream-env", "HANDS_TEST_UPSTREAM"}, args...), inR, outW, &stderr)
		outW.CloseWithError(fmt.Errorf("serve returned %v", err))
		inR.Close() // so that a request written after serve returned fails, rather than waits
		done <- err
	}()
	defer func() {
		inW.Close()
		cancel()
		<-done
	}()
	out := bufio.NewReaderSize(outR, 1<<20)
	call := func(id int, method, params string) json.RawMessage {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: %v; serve's standard error:\n%s", method, err, stderr.String())
			}
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID != id {
				continue
			}
			if msg.Error != nil {
				t.Fatalf("%s: %s", method, msg.Error)
			}
			return msg.Result
		}
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var tools []json.RawMessage
	cursor := ""
	for id := 2; ; id++ {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(call(id, "tools/list", params), &page); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return tools, stderr.String()
		}
	}
}

// A listedTool is what the catalogue tests read of a tool.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

func decodeTool(t *testing.T, raw json.RawMessage) listedTool {
	t.Helper()
	var tl listedTool
	if err := json.Unmarshal(raw, &tl); err != nil {
		t.Fatal(err)
	}
	return tl
}

// loadServer returns the catalogue's server name.
func loadServer(t *testing.T, name string) catalogue.Server {
	t.Helper()
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in the catalogue", name)
	return catalogue.Server{}
}

// TestServeSchemasAsSent serves Desktop Commander's tools, whose schemas
// hold {} (any value) and keywords MCP does not define: hands lists each
// schema exactly as the upstream sent it, {} as {}, never as true, which
// clients that type every property's schema as an object refuse.
func TestServeSchemasAsSent(t *testing.T) {
	s := loadServer(t, "desktop-commander")
	listed, stderr := rawList(t, "--upstream", catalogueUpstream(t, s.Name))
	got := map[string]listedTool{}
	for _, raw := range listed {
		tl := decodeTool(t, raw)
		got[tl.Name] = tl
	}
	for _, raw := range s.Tools {
		want := decodeTool(t, raw)
		tl, ok := got[want.Name]
		if !ok {
			t.Errorf("tool %s is not listed; serve's standard error:\n%s", want.Name, stderr)
			continue
		}
		if !bytes.Equal(tl.InputSchema, want.InputSchema) {
			t.Errorf("tool %s: listed input schema\n%s\nwant, as sent,\n%s", want.Name, tl.InputSchema, want.InputSchema)
		}
		if !bytes.Equal(tl.OutputSchema, want.OutputSchema) {
			t.Errorf("tool %s: listed output schema\n%s\nwant, as sent,\n%s", want.Name, tl.OutputSchema, want.OutputSchema)
		}
	}
	for _, raw := range listed {
		if strings.Contains(string(raw), `"content":true`) {
			t.Errorf("a schema {} is listed as true: %s", raw)
		}
	}
}

// TestServeCatalogue serves every server of the catalogue at once, each
// upstream named after it (and so its tools prefixed with that name):
// every tool is listed, under a name used once, with its schemas exactly
// as its server sent them. The exceptions are the tools whose input
// schema has no "type", which MCP requires to be "object" and clients
// check (the GitLab server of the catalogue sends nine whose schemas hold
// only $schema): they are listed with "type":"object", added at the front
// of the root, and their bytes are otherwise as sent.
func TestServeCatalogue(t *testing.T) {
	servers, err := catalogue.Load()
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	want := map[string]listedTool{}
	untyped := 0
	for _, s := range servers {
		args = append(args, "--upstream", s.Name+"="+catalogueUpstream(t, s.Name))
		for _, raw := range s.Tools {
			tl := decodeTool(t, raw)
			var in map[string]json.RawMessage
			if err := json.Unmarshal(tl.InputSchema, &in); err != nil {
				t.Fatalf("%s_%s: %v", s.Name, tl.Name, err)
			}
			if _, typed := in["type"]; !typed {
				untyped++
				sent := tl.InputSchema
				tl.InputSchema = append(json.RawMessage(`{"type":"object",`), sent[1:]...)
			}
			want[s.Name+"_"+tl.Name] = tl
		}
	}
	if len(want) != 685 || untyped != 9 {
		t.Fatalf("the catalogue holds %d tools, %d of them with no type at the root of their input schema; want 685 and 9", len(want), untyped)
	}
	listed, stderr := rawList(t, args...)
	seen := map[string]bool{}
	for _, raw := range listed {
		tl := decodeTool(t, raw)
		if seen[tl.Name] {
			t.Errorf("tool %s is listed twice", tl.Name)
		}
		seen[tl.Name] = true
		w, ok := want[tl.Name]
		if !ok {
			continue // a bundled tool
		}
		if !bytes.Equal(tl.InputSchema, w.InputSchema) {
			t.Errorf("tool %s: listed input schema\n%s\nwant, as sent,\n%s", tl.Name, tl.InputSchema, w.InputSchema)
		}
		if !bytes.Equal(tl.OutputSchema, w.OutputSchema) {
			t.Errorf("tool %s: listed output schema\n%s\nwant, as sent,\n%s", tl.Name, tl.OutputSchema, w.OutputSchema)
		}
	}
	missing := 0
	for name := range want {
		if !seen[name] {
			missing++
			t.Errorf("tool %s is not listed", name)
		}
	}
	if missing > 0 {
		t.Logf("serve's standard error:\n%s", stderr)
	}
	t.Logf("%d servers, %d tools served of them", len(servers), len(want)-missing)
}

// TestServeSharedToolName serves two upstreams that both offer read_file,
// unnamed: the first one's is served, the second's is refused and named
// on stderr, and the second's other tools are served.
func TestServeSharedToolName(t *testing.T) {
	listed, stderr := rawList(t, "--upstream", catalogueUpstream(t, "filesystem"), "--upstream", catalogueUpstream(t, "desktop-commander"))
	names := map[string]bool{}
	for _, raw := range listed {
		names[decodeTool(t, raw).Name] = true
	}
	if !names["read_file"] || !names["list_directory"] || !names["start_process"] {
		t.Errorf("listed %v, want read_file, list_directory and start_process among them", names)
	}
	if !strings.Contains(stderr, "read_file") || !strings.Contains(stderr, "desktop-commander") {
		t.Errorf("stderr does not name the refused tool and its upstream:\n%s", stderr)
	}
}

// TestServeRefusedUpstream serves an upstream that cannot start beside one
// that can: the one that cannot is reported, the other served.
func TestServeRefusedUpstream(t *testing.T) {
	listed, stderr := rawList(t, "--upstream", "broken=/nonexistent/upstream", "--upstream", "mem="+catalogueUpstream(t, "memory"))
	names := map[string]bool{}
	for _, raw := range listed {
		names[decodeTool(t, raw).Name] = true
	}
	if !names["mem_read_graph"] {
		t.Errorf("listed %v, want mem_read_graph among them", names)
	}
	if !strings.Contains(stderr, "broken") {
		t.Errorf("stderr does not report the upstream broken:\n%s", stderr)
	}
}

// TestServeUpstreamOverBound serves three upstreams in turn: the first
// takes all but 4 of the tools the upstreams may offer together
// (toolBudget: one page of tools/list, less the bundled tools), the
// second's 5 do not fit in what is left, and the third's 4 (the
// catalogue's Redis server) fit exactly. The second is refused whole and
// named on stderr with the figures, the first and third are served, and
// every tool is on the one page of tools/list.
func TestServeUpstreamOverBound(t *testing.T) {
	bundled := len(bundledSpecs(t))
	budget := toolBudget(bundled, false)
	if budget != mcp.DefaultPageSize-bundled || budget <= 4 {
		t.Fatalf("toolBudget(%d, false) = %d, want %d, above 4", bundled, budget, mcp.DefaultPageSize-bundled)
	}
	listed, stderr := rawList(t,
		"--upstream", "big="+catalogueUpstream(t, fmt.Sprintf("generated-%d", budget-4)),
		"--upstream", "over="+catalogueUpstream(t, "generated-5"),
		"--upstream", "redis="+catalogueUpstream(t, "redis"))
	count := map[string]int{}
	for _, raw := range listed {
		prefix, _, ok := strings.Cut(decodeTool(t, raw).Name, "_")
		if !ok || (prefix != "big" && prefix != "over" && prefix != "redis") {
			prefix = "bundled"
		}
		count[prefix]++
	}
	if want := map[string]int{"bundled": bundled, "big": budget - 4, "redis": 4}; !maps.Equal(count, want) {
		t.Errorf("listed tools by upstream %v, want %v", count, want)
	}
	if len(listed) != mcp.DefaultPageSize {
		t.Errorf("listed %d tools, want %d, one full page", len(listed), mcp.DefaultPageSize)
	}
	want := fmt.Sprintf(`hands: not serving --upstream "over": its 5 tools do not fit: the upstreams before it offer %d of the %d tools upstreams may offer together (%d on one page of tools/list, less hands' own %d)`,
		budget-4, budget, mcp.DefaultPageSize, bundled)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say\n%s\nit reads\n%s", want, stderr)
	}
	if strings.Contains(stderr, `not serving --upstream "big"`) || strings.Contains(stderr, `not serving --upstream "redis"`) {
		t.Errorf("stderr says an upstream that fits is not served:\n%s", stderr)
	}
}
