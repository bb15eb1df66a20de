package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogueTools returns a scope of deferred tools, each answering its
// own name, among them the ones the tests search for.
func catalogueTools(t testing.TB, n int, opts ...tool.Option) []tool.Interface {
	t.Helper()
	type pathArgs struct {
		Path string `json:"path" jsonschema:"The file's path."`
	}
	answer := func(name string) func(context.Context, pathArgs) (string, error) {
		return func(context.Context, pathArgs) (string, error) { return name, nil }
	}
	tools := []tool.Interface{
		tool.New("read_file", "Read the contents of a file from disk.", answer("read_file"), opts...),
		tool.New("write_file", "Write text to a file on disk, replacing it.", answer("write_file"), opts...),
		tool.New("take_screenshot", "Take a screenshot of the current browser page.", answer("take_screenshot"), opts...),
		tool.New("create_pull_request", "Open a new pull request in a GitHub repository.", answer("create_pull_request"), opts...),
	}
	for i := len(tools); i < n; i++ {
		name := fmt.Sprintf("tool_%d", i)
		tools = append(tools, tool.New(name, fmt.Sprintf("Do thing number %d with a widget.", i), answer(name), opts...))
	}
	return tools
}

// searchServer returns a server with tool search (opts, nil for the
// defaults) of one loaded tool, "echo", and n deferred catalogueTools
// behind enabled.
func searchServer(t testing.TB, n int, opts *mcpserver.ToolSearchOptions, enabled func(context.Context) bool) (*mcpserver.Server, *tool.Registry) {
	t.Helper()
	echo := tool.New("echo", "Echo a text.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "loaded", Tools: []tool.Interface{echo}},
		&tool.Scope{Name: "catalogue", Tools: catalogueTools(t, n), DeferLoading: true, Enabled: enabled},
	)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcpserver.ToolSearchOptions{}
	}
	return mcpserver.New(reg, &mcpserver.Options{ToolSearch: opts}), reg
}

// found is search_tools' structured content.
type found struct {
	Tools []struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func (f found) names() []string {
	var names []string
	for _, t := range f.Tools {
		names = append(names, t.Name)
	}
	return names
}

// search calls search_tools and returns what it found.
func search(t *testing.T, session *mcp.ClientSession, args map[string]any) found {
	t.Helper()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: mcpserver.SearchToolName, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("search_tools(%v) = %+v, %v", args, res, err)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var f found
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("search_tools' structured content %s: %v", data, err)
	}
	return f
}

func listNames(t *testing.T, session *mcp.ClientSession) []string {
	t.Helper()
	res, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(slices.Values(toolNames(res)))
}

// TestToolSearch checks what a client of a server with tool search sees:
// the tools not deferred and search_tools; a search's matches, best first,
// with their schemas; list_changed, after which its list holds what it
// found; calls to what it found and, since a deferred tool is no secret
// from a caller it is enabled for, to one it did not find.
func TestToolSearch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := searchServer(t, 30, nil, nil)
		changed := make(chan struct{}, 4)
		session := connect(t, srv, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		if got, want := listNames(t, session), []string{"echo", "search_tools"}; !slices.Equal(got, want) {
			t.Fatalf("tools/list = %v, want %v", got, want)
		}
		f := search(t, session, map[string]any{"query": "take a screenshot of the page"})
		if len(f.Tools) == 0 || f.Tools[0].Name != "take_screenshot" {
			t.Fatalf("search found %v, want take_screenshot first", f.names())
		}
		if len(f.Tools) > mcpserver.DefaultSearchLimit {
			t.Errorf("search found %d tools without a limit, want at most %d", len(f.Tools), mcpserver.DefaultSearchLimit)
		}
		if first := f.Tools[0]; first.Description == "" || !strings.Contains(string(first.InputSchema), `"path"`) {
			t.Errorf("search_tools gave %+v, want its description and input schema", first)
		}
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatal("no list_changed after a search loaded tools")
		}
		got := listNames(t, session)
		for _, name := range append(f.names(), "echo", "search_tools") {
			if !slices.Contains(got, name) {
				t.Errorf("tools/list after the search = %v, without %s", got, name)
			}
		}
		if len(got) != len(f.Tools)+2 {
			t.Errorf("tools/list after the search = %v, want the %d found, echo and search_tools", got, len(f.Tools))
		}
		for _, name := range []string{"take_screenshot", "create_pull_request"} { // found, and not found
			res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"path": "x"}})
			if err != nil || res.IsError || text(res) != name {
				t.Errorf("CallTool(%s) = %+v, %v", name, res, err)
			}
		}

		// A search that finds only what the session has loaded changes nothing.
		search(t, session, map[string]any{"query": "screenshot", "limit": 1})
		synctest.Wait()
		select {
		case <-changed:
			t.Error("list_changed after a search that loaded nothing new")
		default:
		}
	})
}

// TestToolSearchArguments checks that search_tools validates its
// arguments as any tool does, its limit included.
func TestToolSearchArguments(t *testing.T) {
	srv, _ := searchServer(t, 30, nil, nil)
	session := connect(t, srv, nil)
	for _, args := range []map[string]any{
		{},
		{"query": 3},
		{"query": "file", "limit": 0},
		{"query": "file", "limit": mcpserver.MaxSearchLimit + 1},
		{"query": "file", "limit": 2.5},
	} {
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: mcpserver.SearchToolName, Arguments: args})
		if err != nil || !res.IsError || res.Meta[mcpserver.IssuesMeta] == nil {
			t.Errorf("search_tools(%v) = %+v, %v; want an error result with its issues", args, res, err)
		}
	}
	if f := search(t, session, map[string]any{"query": "widget", "limit": mcpserver.MaxSearchLimit}); len(f.Tools) != mcpserver.MaxSearchLimit {
		t.Errorf("a search of limit %d for a word of 26 tools found %d", mcpserver.MaxSearchLimit, len(f.Tools))
	}
}

// TestToolSearchEnabled checks that a search never reveals a tool that is
// not enabled for the caller: a tool disabled for one client is never in
// its results, and is in another's, for which it is enabled.
func TestToolSearchEnabled(t *testing.T) {
	forB := func(ctx context.Context) bool {
		c, _ := mcpserver.CallerFrom(ctx)
		return c.Session != nil && c.Session.InitializeParams().ClientInfo.Name == "b"
	}
	type fileArgs struct {
		Path string `json:"path"`
	}
	secret := tool.New("read_secret_file", "Read a secret file from disk.", func(context.Context, fileArgs) (string, error) { return "secret", nil },
		tool.WithDeferLoading(), tool.WithEnabled(forB))
	reg, err := tool.NewRegistry(&tool.Scope{Name: "files", Tools: append(catalogueTools(t, 10, tool.WithDeferLoading()), secret)})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, &mcpserver.Options{ToolSearch: &mcpserver.ToolSearchOptions{}})
	sessionAs := func(name string) *mcp.ClientSession {
		serverSide, clientSide := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, serverSide) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(t.Context(), clientSide, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); cancel(); <-done })
		return cs
	}
	a, b := sessionAs("a"), sessionAs("b")
	for _, q := range []string{"read a secret file", "secret", "file", "read file from disk"} {
		if got := search(t, a, map[string]any{"query": q, "limit": mcpserver.MaxSearchLimit}).names(); slices.Contains(got, "read_secret_file") {
			t.Errorf("a search by a, for which read_secret_file is disabled, for %q found %v", q, got)
		}
	}
	if got := listNames(t, a); slices.Contains(got, "read_secret_file") || !slices.Contains(got, mcpserver.SearchToolName) {
		t.Errorf("tools/list for a = %v; want search_tools and not read_secret_file", got)
	}
	if got := search(t, b, map[string]any{"query": "read a secret file"}).names(); len(got) == 0 || got[0] != "read_secret_file" {
		t.Errorf("a search by b, for which read_secret_file is enabled, found %v", got)
	}
	if got := listNames(t, b); !slices.Contains(got, "read_secret_file") {
		t.Errorf("tools/list for b after its search = %v, without read_secret_file", got)
	}
}

// TestToolSearchMaxLoaded checks that a session keeps at most MaxLoaded
// tools loaded by its searches, those found last.
func TestToolSearchMaxLoaded(t *testing.T) {
	srv, _ := searchServer(t, 40, &mcpserver.ToolSearchOptions{MaxLoaded: 3}, nil)
	session := connect(t, srv, nil)
	listNames(t, session)
	var last []string
	for i := 4; i < 40; i += 2 {
		last = search(t, session, map[string]any{"query": fmt.Sprintf("thing number %d %d", i, i+1), "limit": 2}).names()
		got := listNames(t, session)
		if len(got) > 3+2 {
			t.Fatalf("tools/list after %d searches = %v: more than 3 loaded", i/2-1, got)
		}
	}
	got := listNames(t, session)
	for _, name := range last {
		if !slices.Contains(got, name) {
			t.Errorf("tools/list = %v, without %s, found last", got, name)
		}
	}
}

// TestToolSearchStateless checks that a stateless HTTP client, which has
// no session to load tools in, gets the tools found in the search's result
// and calls them by name, while its list stays as it was.
func TestToolSearchStateless(t *testing.T) {
	srv, _ := searchServer(t, 30, nil, nil)
	ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true}))
	defer ts.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	f := search(t, session, map[string]any{"query": "open a pull request"})
	if len(f.Tools) == 0 || f.Tools[0].Name != "create_pull_request" {
		t.Fatalf("search found %v, want create_pull_request first", f.names())
	}
	if got, want := listNames(t, session), []string{"echo", "search_tools"}; !slices.Equal(got, want) {
		t.Errorf("tools/list of a stateless client after a search = %v, want %v", got, want)
	}
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_pull_request", Arguments: map[string]any{"path": "x"}})
	if err != nil || res.IsError || text(res) != "create_pull_request" {
		t.Errorf("CallTool(create_pull_request) = %+v, %v", res, err)
	}
}

// TestToolSearchFollowsRegistry checks that the index follows the
// registry one tool at a time: a tool added is found after Sync, one
// removed is not, and a Sync puts in the index only the tools that
// changed, whatever the registry holds.
func TestToolSearchFollowsRegistry(t *testing.T) {
	for _, n := range []int{10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			srv, reg := searchServer(t, n, nil, nil)
			session := connect(t, srv, nil)
			if got := mcpserver.SearchPuts(srv); got != int64(n) {
				t.Errorf("New put %d tools in the index, want the %d deferred", got, n)
			}
			srv.Sync(t.Context())
			if got := mcpserver.SearchPuts(srv); got != int64(n) {
				t.Errorf("a Sync that changed nothing put %d tools in the index", got-int64(n))
			}
			deploy := tool.New("deploy_service", "Deploy a service to production.", func(context.Context, struct{}) (string, error) { return "deployed", nil }, tool.WithDeferLoading())
			if err := reg.Add(&tool.Scope{Name: "ops", Tools: []tool.Interface{deploy}}); err != nil {
				t.Fatal(err)
			}
			srv.Sync(t.Context())
			if got := mcpserver.SearchPuts(srv) - int64(n); got != 1 {
				t.Errorf("a Sync after one tool was added put %d tools in the index, want 1", got)
			}
			if got := search(t, session, map[string]any{"query": "deploy to production"}).names(); len(got) == 0 || got[0] != "deploy_service" {
				t.Errorf("a search for the tool added found %v", got)
			}
			reg.Remove(deploy)
			srv.Sync(t.Context())
			if got := search(t, session, map[string]any{"query": "deploy to production"}).names(); slices.Contains(got, "deploy_service") {
				t.Errorf("a search for the tool removed found %v", got)
			}
		})
	}
}

// TestToolSearchNameTaken checks that a registry tool named search_tools
// is not served under tool search, which lists its own.
func TestToolSearchNameTaken(t *testing.T) {
	impostor := tool.New(mcpserver.SearchToolName, "Not the search.", func(context.Context, struct{}) (string, error) { return "impostor", nil })
	reg, err := tool.NewRegistry(&tool.Scope{Name: "s", Tools: []tool.Interface{impostor}})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(reg, &mcpserver.Options{ToolSearch: &mcpserver.ToolSearchOptions{}})
	session := connect(t, srv, nil)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: mcpserver.SearchToolName, Arguments: map[string]any{"query": "x"}})
	if err != nil || res.IsError || text(res) == "impostor" {
		t.Errorf("search_tools = %+v, %v; want the server's own", res, err)
	}
}

// BenchmarkToolSearchSync measures a Sync after one deferred tool's spec
// changed, with a search index of growing size: its cost is that of the
// tool, not of the index.
func BenchmarkToolSearchSync(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := &changing{Interface: tool.New("changing", "A tool whose description changes.", func(context.Context, struct{}) (string, error) { return "", nil }, tool.WithDeferLoading())}
			reg, err := tool.NewRegistry(
				&tool.Scope{Name: "catalogue", Tools: catalogueTools(b, n, tool.WithDeferLoading())},
				&tool.Scope{Name: "one", Tools: []tool.Interface{c}},
			)
			if err != nil {
				b.Fatal(err)
			}
			srv := mcpserver.New(reg, &mcpserver.Options{ToolSearch: &mcpserver.ToolSearchOptions{}})
			descs := []string{"Paint the fence.", "Wash the car."}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.desc.Store(&descs[i%2])
				srv.Sync(b.Context())
			}
		})
	}
}
