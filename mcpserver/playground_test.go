package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

type planArgs struct {
	Title    string            `json:"title" jsonschema:"what the plan is called" tool:"minLength=3"`
	Priority string            `json:"priority,omitempty" jsonschema:"how urgent it is" tool:"enum=low|normal|high,default=normal"`
	Steps    []planStep        `json:"steps" jsonschema:"what to do, in order" tool:"minItems=1"`
	Owner    *planOwner        `json:"owner,omitempty" jsonschema:"who answers for the plan"`
	Labels   map[string]string `json:"labels,omitempty" jsonschema:"free-form labels"`
	Draft    bool              `json:"draft,omitempty" jsonschema:"keep the plan private" tool:"deprecated='plans are private until shared'"`
}

type planStep struct {
	Name    string `json:"name" jsonschema:"what to do" tool:"minLength=1"`
	Minutes int    `json:"minutes" jsonschema:"how long it takes" tool:"minimum=1"`
}

type planOwner struct {
	Email string `json:"email" jsonschema:"where to write" tool:"format=email"`
}

type plan struct {
	Title   string `json:"title"`
	Minutes int    `json:"minutes"`
}

// playgroundTools returns a registry for the playground: a plan tool with
// nested objects, an array, an enum with a default and a map (which
// OpenAI's strict mode cannot express), and two examples, a tool that reports progress and
// then waits for release to be closed, and one in a scope that is never
// enabled.
func playgroundTools(t *testing.T, release <-chan struct{}) *tool.Registry {
	t.Helper()
	planTool := tool.New("plan", "Make a plan from steps.", func(ctx context.Context, a planArgs) (plan, error) {
		p := plan{Title: a.Title}
		for _, s := range a.Steps {
			p.Minutes += s.Minutes
		}
		return p, nil
	}, tool.WithTitle("Planner"), tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}), tool.WithVersion("2"),
		tool.WithExamples(
			planArgs{Title: "tidy", Steps: []planStep{{Name: "sweep", Minutes: 5}}},
			planArgs{Title: "launch", Priority: "high", Steps: []planStep{{Name: "write", Minutes: 20}, {Name: "review", Minutes: 10}}, Owner: &planOwner{Email: "ada@example.com"}},
		))
	count := tool.New("count", "Count up to n, reporting each number.", func(ctx context.Context, a struct {
		N int `json:"n" jsonschema:"how far to count" tool:"minimum=1,maximum=10,default=3"`
	}) (string, error) {
		for i := range a.N {
			tool.Progress(ctx, tool.ProgressReport{Done: float64(i + 1), Total: float64(a.N), Message: fmt.Sprintf("counted %d", i+1)})
		}
		select {
		case <-release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("counted to %d", a.N), nil
	})
	wipe := tool.New("wipe", "Wipe the plans.", func(ctx context.Context, _ struct{}) (string, error) {
		return "wiped", nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}),
		tool.WithDeprecated(tool.Deprecation{Message: "use archive", Sunset: time.Date(2099, 1, 31, 0, 0, 0, 0, time.UTC)}))
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "plans", Tools: []tool.Interface{planTool, count}},
		&tool.Scope{Name: "admin", Tools: []tool.Interface{wipe}, Enabled: func(context.Context) bool { return false }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// newPlayground serves a playground and its endpoint, as hands serve does.
func newPlayground(t *testing.T, reg *tool.Registry, httpOpts *mcpserver.HTTPOptions) (*httptest.Server, *mcpserver.Server) {
	t.Helper()
	srv := mcpserver.New(reg, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(httpOpts))
	mux.Handle("/", srv.Playground(&mcpserver.PlaygroundOptions{HTTP: httpOpts}))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, srv
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

// TestPlaygroundFiles checks what the handler serves without a browser:
// the page with the endpoint written in and a policy that keeps it to its
// own origin, its modules, tools.json with every tool in every dialect,
// and the refusals.
func TestPlaygroundFiles(t *testing.T) {
	ts, _ := newPlayground(t, playgroundTools(t, nil), nil)

	resp, body := get(t, ts.URL+"/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<meta name="mcp-endpoint" content="/mcp">`) {
		t.Errorf("GET / = %d %q, want the page with the endpoint", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("GET / Content-Security-Policy = %q", csp)
	}
	for _, name := range []string{"playground.js", "mcp.js", "form.js", "playground.css"} {
		if resp, _ := get(t, ts.URL+"/"+name); resp.StatusCode != http.StatusOK {
			t.Errorf("GET /%s = %d", name, resp.StatusCode)
		}
	}
	// The icon the page links, and the path browsers ask for on their own:
	// neither is a 404 in the console.
	if !strings.Contains(body, `<link rel="icon" href="favicon.svg"`) {
		t.Error("the page links no icon")
	}
	for _, name := range []string{"/favicon.svg", "/favicon.ico"} {
		resp, icon := get(t, ts.URL+name)
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "image/svg+xml" || !strings.HasPrefix(icon, "<svg") {
			t.Errorf("GET %s = %d, %s, %.20q; want the SVG icon", name, resp.StatusCode, ct, icon)
		}
	}
	for _, name := range []string{"/index.html/../nope", "/nope.js", "/../mcpserver.go"} {
		if resp, _ := get(t, ts.URL+name); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", name, resp.StatusCode)
		}
	}

	resp, body = get(t, ts.URL+"/tools.json")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /tools.json = %d %s", resp.StatusCode, body)
	}
	var list struct {
		Dialects []struct{ Name string }
		Tools    []struct {
			Name     string
			Scope    string
			Examples []json.RawMessage
			Schemas  map[string]struct {
				Schema      json.RawMessage
				Description string
				Problems    []struct{ Severity, Path, Keyword string }
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var names, dialects []string
	for _, tl := range list.Tools {
		names = append(names, tl.Scope+"/"+tl.Name)
	}
	for _, d := range list.Dialects {
		dialects = append(dialects, d.Name)
	}
	if want := []string{"plans/plan", "plans/count", "admin/wipe"}; !slices.Equal(names, want) {
		t.Errorf("tools.json lists %q, want %q (every tool, enabled or not)", names, want)
	}
	if want := []string{"mcp", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema"}; !slices.Equal(dialects, want) {
		t.Errorf("tools.json dialects = %q, want %q", dialects, want)
	}
	strict := list.Tools[0].Schemas["openai-strict"]
	if !slices.ContainsFunc(strict.Problems, func(p struct{ Severity, Path, Keyword string }) bool {
		return p.Severity == "error" && p.Path == "/properties/labels"
	}) {
		t.Errorf("plan's openai-strict problems = %+v, want an error at /properties/labels", strict.Problems)
	}
	if len(strict.Schema) == 0 || string(strict.Schema) == "null" {
		t.Errorf("plan's openai-strict schema is empty")
	}
	// The examples: in the spec, at the end of the description where a
	// dialect folds them, which its problems say; as they are elsewhere.
	plan := list.Tools[0]
	if len(plan.Examples) != 2 || string(plan.Examples[0]) != `{"title":"tidy","steps":[{"name":"sweep","minutes":5}]}` {
		t.Errorf("plan's examples in tools.json = %s, want the two examples", plan.Examples)
	}
	if !strings.HasPrefix(strict.Description, "Make a plan from steps.\n\n") || !strings.Contains(strict.Description, string(plan.Examples[1])) {
		t.Errorf("plan's openai-strict description = %q, want the examples at its end", strict.Description)
	}
	if !slices.ContainsFunc(strict.Problems, func(p struct{ Severity, Path, Keyword string }) bool {
		return p.Severity == "folded" && p.Keyword == "examples"
	}) {
		t.Errorf("plan's openai-strict problems = %+v, want the fold of the examples", strict.Problems)
	}
	if d := plan.Schemas["mcp"].Description; d != "Make a plan from steps." {
		t.Errorf("plan's mcp description = %q, want the tool's own", d)
	}

	if resp, _ := get(t, ts.URL+"/tools.json", "Origin", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /tools.json from another origin = %d, want 403", resp.StatusCode)
	}
}

// TestPlaygroundEndpointEscaped checks that the endpoint is written into
// the page as an attribute's text, whatever characters it holds.
func TestPlaygroundEndpointEscaped(t *testing.T) {
	srv := mcpserver.New(playgroundTools(t, nil), nil)
	ts := httptest.NewServer(srv.Playground(&mcpserver.PlaygroundOptions{Endpoint: `/a"b<c>&d'e`}))
	t.Cleanup(ts.Close)
	resp, body := get(t, ts.URL+"/")
	want := `<meta name="mcp-endpoint" content="/a&#34;b&lt;c&gt;&amp;d&#39;e">`
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("GET / = %d %q, want the page with %s", resp.StatusCode, body, want)
	}
	if strings.Contains(body, "{{") {
		t.Errorf("GET / left a marker in the page: %q", body)
	}
}

// TestPlaygroundToken checks that tools.json asks for the endpoint's token.
func TestPlaygroundToken(t *testing.T) {
	ts, _ := newPlayground(t, playgroundTools(t, nil), &mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "dev")})
	if resp, _ := get(t, ts.URL+"/"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET / = %d, want the page without a token", resp.StatusCode)
	}
	if resp, _ := get(t, ts.URL+"/tools.json"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /tools.json without a token = %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, ts.URL+"/tools.json", "Authorization", "Bearer s3cret"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /tools.json with the token = %d, want 200", resp.StatusCode)
	}
}
