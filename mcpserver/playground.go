package mcpserver

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/tool"
)

// playgroundFiles are the page's static files: plain HTML, CSS and
// JavaScript modules, with no build step and nothing fetched at run time.
//
//go:embed playground
var playgroundFiles embed.FS

// PlaygroundOptions configure Playground. A nil *PlaygroundOptions selects
// every default.
type PlaygroundOptions struct {
	// Endpoint is the path of the MCP endpoint on the page's own origin,
	// which the page sends every request to. Empty means "/mcp".
	Endpoint string
	// HTTP holds the options the endpoint's handler was made with: its
	// Verify (with ResourceMetadataURL and Scopes) and AllowedOrigins guard
	// the page's list of tools as they guard the endpoint. Nil means no
	// token and the default origins.
	HTTP *HTTPOptions
	// Dialects are the dialects whose schemas and problems the page shows.
	// Nil means dialect.Dialects().
	Dialects []*dialect.Dialect
}

// Playground returns a handler for a web page on which a developer tries
// the server's tools: it lists every tool of the registry with its title,
// description, annotations and whether it is enabled for the page's
// session; it shows a tool's examples (tool.WithExamples), each with a
// button that fills the form from it; it builds a form from a tool's input
// schema (or takes raw JSON),
// calls the tool through the MCP endpoint and shows its progress as it
// comes, its result, and the issues of invalid arguments at their fields;
// and it shows the tool's schema in each dialect, with the dialect's
// problems and, where the dialect folds the examples into it, the
// description the dialect sends.
//
// The handler serves the page at "/" and its files next to it, so mount
// it at the root of a mux or under a prefix with http.StripPrefix:
//
//	mux.Handle("/mcp", srv.HTTPHandler(httpOpts))
//	mux.Handle("/", srv.Playground(&mcpserver.PlaygroundOptions{HTTP: httpOpts}))
//
// The page talks MCP to the endpoint, from the same origin, as any client
// does: every call goes through the endpoint, with its session, origin
// checks and bearer token. Beside the page, the handler serves tools.json,
// read-only: the registry's tools with their schemas converted for each
// dialect and the dialects' problems, which MCP has no message for. It
// lists every tool, enabled for the caller or not, so mount the playground
// only where the full list may be read; with a Verify, tools.json needs the
// endpoint's token too (the page asks for it). Every route refuses a
// request to a loopback address whose Host is not a loopback name, as the
// endpoint does (see CheckHost).
func (s *Server) Playground(opts *PlaygroundOptions) http.Handler {
	var o PlaygroundOptions
	if opts != nil {
		o = *opts
	}
	if o.Endpoint == "" {
		o.Endpoint = "/mcp"
	}
	if o.Dialects == nil {
		o.Dialects = dialect.Dialects()
	}
	var httpOpts HTTPOptions
	if o.HTTP != nil {
		httpOpts = *o.HTTP
	}
	static, err := fs.Sub(playgroundFiles, "playground")
	if err != nil {
		panic(err) // the embedded directory is part of the package
	}
	p := &playground{srv: s, opts: o, allowed: httpOpts.AllowedOrigins, static: http.FileServerFS(static)}
	p.index = p.renderIndex(static)
	p.tools = httpOpts.requireToken(http.HandlerFunc(p.serveTools))
	return p
}

// A playground serves the page, its files and tools.json.
type playground struct {
	srv     *Server
	opts    PlaygroundOptions
	allowed []string     // the endpoint's allowed origins
	index   []byte       // index.html with the endpoint written in
	static  http.Handler // the embedded files
	tools   http.Handler // tools.json, behind the token check when there is one
}

// endpointMarker is where index.html takes the endpoint: inside a quoted
// attribute value, so that escaping it as HTML text is all it needs.
const endpointMarker = "{{.Endpoint}}"

// renderIndex writes the endpoint into the page. It replaces the marker
// rather than executing the page as an html/template: executing a template
// makes the linker keep every exported method of every type in a program
// that links this package, which costs a command such as hands tens of
// megabytes (see docs/PERFORMANCE.md, "The binary and its cold build").
func (p *playground) renderIndex(static fs.FS) []byte {
	page, err := fs.ReadFile(static, "index.html")
	if err != nil || bytes.Count(page, []byte(endpointMarker)) != 1 {
		panic(fmt.Sprintf("mcpserver: the embedded index.html must hold %s once: %v", endpointMarker, err)) // the page is part of the package
	}
	return bytes.Replace(page, []byte(endpointMarker), []byte(html.EscapeString(p.opts.Endpoint)), 1)
}

// contentSecurityPolicy lets the page load its own files and talk to its
// own origin, and nothing else.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (p *playground) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !hostAllowed(r) {
		http.Error(w, fmt.Sprintf("host %q is not allowed on a loopback address", r.Host), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	switch name := path.Clean("/" + r.URL.Path); name {
	case "/", "/index.html":
		h.Set("Content-Type", "text/html; charset=utf-8")
		w.Write(p.index)
	case "/tools.json":
		// The page and its files hold no data and load from any origin
		// (module scripts are fetched with an Origin header), so that the
		// page can say when its origin is refused; the tools are guarded as
		// the endpoint is.
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(r, origin, p.allowed) {
			http.Error(w, fmt.Sprintf("origin %q is not allowed", origin), http.StatusForbidden)
			return
		}
		p.tools.ServeHTTP(w, r)
	case "/favicon.ico":
		// The page links its icon, but a browser may still ask for the
		// conventional path: answer with the same icon rather than a 404.
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/favicon.svg"
		p.static.ServeHTTP(w, r2)
	default:
		if strings.HasSuffix(name, ".html") {
			http.NotFound(w, r)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = name
		p.static.ServeHTTP(w, r2)
	}
}

// The shape of tools.json.
type (
	playgroundList struct {
		Dialects []playgroundDialect `json:"dialects"`
		Tools    []playgroundTool    `json:"tools"`
		// Problems are the problems of all the tools sent together in one
		// request, per dialect: the limits of a request.
		Problems map[string][]playgroundProblem `json:"problems"`
	}
	playgroundDialect struct {
		Name     string `json:"name"`
		Provider string `json:"provider"`
	}
	playgroundTool struct {
		tool.Spec
		Scope   string                      `json:"scope"`
		Schemas map[string]playgroundSchema `json:"schemas"`
	}
	playgroundSchema struct {
		Schema json.RawMessage `json:"schema"` // null where the dialect sends no schema
		// Description is the tool's description as the dialect sends it:
		// with the examples at its end where the dialect folds them.
		Description string              `json:"description"`
		Problems    []playgroundProblem `json:"problems"`
	}
	playgroundProblem struct {
		Severity string `json:"severity"`
		Path     string `json:"path"`
		Keyword  string `json:"keyword,omitempty"`
		Message  string `json:"message"`
		Fix      string `json:"fix,omitempty"`
	}
)

// serveTools writes tools.json: every tool of the registry, in scope order,
// with its schema in each dialect and the dialect's problems.
func (p *playground) serveTools(w http.ResponseWriter, r *http.Request) {
	list := playgroundList{Dialects: []playgroundDialect{}, Tools: []playgroundTool{}, Problems: map[string][]playgroundProblem{}}
	var schemas []dialect.ToolSchema
	for _, sc := range p.srv.reg.Scopes() {
		for _, t := range sc.Tools {
			spec := t.Spec()
			if spec.InputSchema == nil {
				spec.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
			}
			list.Tools = append(list.Tools, playgroundTool{Spec: spec, Scope: sc.Name, Schemas: map[string]playgroundSchema{}})
			schemas = append(schemas, dialect.ToolSchema{Name: spec.Name, Schema: spec.InputSchema, Examples: spec.Examples})
		}
	}
	for _, d := range p.opts.Dialects {
		list.Dialects = append(list.Dialects, playgroundDialect{Name: d.Name, Provider: cmp.Or(d.Provider, d.Name)})
		byTool := map[string][]playgroundProblem{}
		request := []playgroundProblem{}
		for _, pr := range d.LintTools(schemas...) {
			jp := playgroundProblem{Severity: pr.Severity.String(), Path: pr.Path, Keyword: pr.Keyword, Message: pr.Message, Fix: pr.Fix}
			if pr.Tool == "" {
				request = append(request, jp)
			} else {
				byTool[pr.Tool] = append(byTool[pr.Tool], jp)
			}
		}
		list.Problems[d.Name] = request
		for i, t := range list.Tools {
			converted, _ := d.ConvertJSON(t.InputSchema)
			if converted == nil {
				converted = json.RawMessage("null")
			}
			description, _, _ := d.ConvertExamples(t.Name, t.Description, t.Examples)
			list.Tools[i].Schemas[d.Name] = playgroundSchema{Schema: converted, Description: description, Problems: append([]playgroundProblem{}, byTool[t.Name]...)}
		}
	}
	data, err := json.Marshal(list)
	if err != nil {
		http.Error(w, "the tools have no JSON encoding: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}
