package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolsearch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SearchToolName is the name of the tool through which a client finds the
// deferred tools of a server with Options.ToolSearch.
const SearchToolName = "search_tools"

// Bounds of a search (Options.ToolSearch).
const (
	// DefaultSearchLimit is how many tools search_tools returns when its
	// call gives no limit.
	DefaultSearchLimit = 5
	// MaxSearchLimit is the largest limit search_tools takes.
	MaxSearchLimit = 20
	// DefaultMaxLoaded is ToolSearchOptions.MaxLoaded when it is zero.
	DefaultMaxLoaded = 64
)

// ToolSearchOptions configure the search for deferred tools
// (Options.ToolSearch). The zero value selects every default.
type ToolSearchOptions struct {
	// MaxLoaded is how many deferred tools one session keeps listed once
	// its searches found them. Past it, the tools found longest ago are
	// listed no more (they stay callable). Zero selects DefaultMaxLoaded.
	MaxLoaded int
}

// searchInput is the input of search_tools.
type searchInput struct {
	Query string `json:"query" jsonschema:"What you want to do, in a few words: the task, not a tool's name (\"open a pull request\", \"take a screenshot of the page\")."`
	Limit int    `json:"limit,omitempty" jsonschema:"How many tools to return at most, best first." tool:"minimum=1,maximum=20,default=5"`
}

// foundTool is one tool search_tools found: what a client needs to call it.
type foundTool struct {
	Name        string          `json:"name" jsonschema:"The tool's name, to call it by."`
	Title       string          `json:"title,omitempty" jsonschema:"The tool's human-readable title."`
	Description string          `json:"description" jsonschema:"What the tool does."`
	InputSchema json.RawMessage `json:"inputSchema" jsonschema:"The JSON Schema of the tool's arguments."`
}

// searchOutput is the output of search_tools.
type searchOutput struct {
	Tools []foundTool `json:"tools" jsonschema:"The tools found, best first."`
}

// searchDescription is search_tools' description: what a model reads to
// decide to search.
const searchDescription = "Search this server's other tools, which are not listed until found, by what you want to do. " +
	"Returns the best matches, best first, each with its input schema. " +
	"A tool found can be called at once by its name, and is listed from then on."

// A searcher is the search of a server with Options.ToolSearch: an index
// of the deferred tools it serves, followed as they are registered, and
// the tools each session's searches loaded.
type searcher struct {
	maxLoaded int
	tool      *tool.Tool[searchInput, searchOutput]
	listed    *mcp.Tool // the tool as listed, schemas encoded

	index toolsearch.Index
	puts  atomic.Int64 // how many tools were put in the index, for tests

	mu       sync.RWMutex
	deferred map[string]*mcp.Tool // by name: the deferred tools registered, as listed

	sessions sync.Map // *mcp.ServerSession → *loadedSet
}

// newSearcher returns the search of s under opts.
func newSearcher(s *Server, opts *ToolSearchOptions) *searcher {
	if opts == nil {
		opts = &ToolSearchOptions{}
	}
	sr := &searcher{maxLoaded: opts.MaxLoaded, deferred: map[string]*mcp.Tool{}}
	if sr.maxLoaded <= 0 {
		sr.maxLoaded = DefaultMaxLoaded
	}
	sr.tool = tool.New(SearchToolName, searchDescription, func(ctx context.Context, in searchInput) (searchOutput, error) {
		return s.searchTools(ctx, in), nil
	}, tool.WithTitle("Search tools"), tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
	sr.listed = mcpTool(sr.tool.Spec())
	if err := encodeSchemas(sr.listed, [2]json.RawMessage{}); err != nil {
		panic(err) // a schema of this package's own types
	}
	return sr
}

// handler serves tools/call of search_tools.
func (sr *searcher) handler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res := tool.Drain(ctx, sr.tool, tool.Call{Name: SearchToolName, Args: req.Params.Arguments}, nil)
	result := &mcp.CallToolResult{Content: content(&res), IsError: res.IsError}
	if verr, ok := errors.AsType[*tool.ValidationError](res.Err); ok && res.IsError {
		result.Meta = mcp.Meta{IssuesMeta: verr.Issues}
	}
	if res.Structured != nil && !res.IsError {
		result.StructuredContent = res.Structured
	}
	return result, nil
}

// put follows a registration: a deferred tool is put in the index, in the
// place of the one of its name, and a tool that is not is taken out.
func (sr *searcher) put(r registration) {
	name := r.tool.Name
	sr.mu.Lock()
	_, was := sr.deferred[name]
	if r.deferred {
		sr.deferred[name] = r.tool
	} else {
		delete(sr.deferred, name)
	}
	sr.mu.Unlock()
	switch {
	case r.deferred:
		sr.index.Put(r.doc)
		sr.puts.Add(1)
	case was:
		sr.index.Remove(name)
	}
}

// remove forgets a tool no longer registered.
func (sr *searcher) remove(name string) {
	sr.mu.Lock()
	delete(sr.deferred, name)
	sr.mu.Unlock()
	sr.index.Remove(name)
}

// hide removes from tools the deferred ones that the session has not
// loaded; ss is nil for a caller without a session of its own.
func (sr *searcher) hide(tools []*mcp.Tool, ss *mcp.ServerSession) []*mcp.Tool {
	var loaded []string
	if ss != nil {
		if v, ok := sr.sessions.Load(ss); ok {
			loaded = v.(*loadedSet).names()
		}
	}
	sr.mu.RLock()
	defer sr.mu.RUnlock()
	return slices.DeleteFunc(tools, func(t *mcp.Tool) bool {
		_, deferred := sr.deferred[t.Name]
		return deferred && !slices.Contains(loaded, t.Name)
	})
}

// load adds names to what the session has loaded and reports whether its
// list changed.
func (sr *searcher) load(ss *mcp.ServerSession, names []string) bool {
	v, ok := sr.sessions.Load(ss)
	if !ok {
		var loaded bool
		v, loaded = sr.sessions.LoadOrStore(ss, &loadedSet{max: sr.maxLoaded})
		if !loaded {
			go func() {
				ss.Wait() // ends when the session does
				sr.sessions.Delete(ss)
			}()
		}
	}
	return v.(*loadedSet).add(names)
}

// A loadedSet is the deferred tools one session's searches found, at most
// max of them.
type loadedSet struct {
	max   int
	mu    sync.Mutex
	order []string // found longest ago first
}

// add adds names, or moves those held to the end, drops the tools found
// longest ago past max, and reports whether the set changed.
func (l *loadedSet) add(names []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	grew := false
	for _, n := range names {
		if i := slices.Index(l.order, n); i >= 0 {
			l.order = append(slices.Delete(l.order, i, i+1), n)
			continue
		}
		l.order = append(l.order, n)
		grew = true
	}
	if over := len(l.order) - l.max; over > 0 {
		l.order = slices.Delete(l.order, 0, over)
	}
	return grew
}

// names returns the names held.
func (l *loadedSet) names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.order)
}

// searchTools runs one search_tools call: it ranks the deferred tools
// enabled for the caller against the query and, for a caller with a
// session of its own, lists the tools found from then on and tells the
// session its list changed.
func (s *Server) searchTools(ctx context.Context, in searchInput) searchOutput {
	sr := s.search
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	matches := sr.index.Search(in.Query, limit, func(name string) bool { return s.reg.Enabled(ctx, name) })
	out := searchOutput{Tools: make([]foundTool, 0, len(matches))}
	names := make([]string, 0, len(matches))
	sr.mu.RLock()
	for _, m := range matches {
		t, ok := sr.deferred[m.Name]
		if !ok {
			continue // taken out since the search
		}
		schema, _ := t.InputSchema.(json.RawMessage)
		out.Tools = append(out.Tools, foundTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema})
		names = append(names, t.Name)
	}
	sr.mu.RUnlock()
	caller, _ := CallerFrom(ctx)
	if caller.Session == nil || ctx.Value(httpRequestKey{}) != nil || len(names) == 0 {
		return out // no session to list them in: they are called by name
	}
	if sr.load(caller.Session, names) {
		if l := s.list(caller.Session); l != nil {
			l.mu.Lock()
			l.changed = true
			l.mu.Unlock()
			// Not under this call: Sync may hold regMu for a while.
			go func() {
				s.regMu.Lock()
				defer s.regMu.Unlock()
				s.announce(context.WithoutCancel(ctx), nil, true)
			}()
		}
	}
	return out
}
