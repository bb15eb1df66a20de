package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolsearch"
)

// SearchToolName is the name of the portable tool search: the tool the
// loop adds to the request for a model that does not search tools itself
// when the registry defers some (see ToolSearcher).
const SearchToolName = "search_tools"

// DefaultSearchLimit is how many tools one call of the portable search
// loads when the model asks for no number; MaxSearchLimit is the most it
// loads.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 10
)

// ErrSearchToolName is matched by the error of a run whose registry has a
// tool named SearchToolName while the loop needs that name for the
// portable search.
var ErrSearchToolName = errors.New("agent: the registry has a tool named search_tools, the portable tool search's name")

// A ToolSearcher is a Model whose provider searches deferred tools
// itself, such as Anthropic's tool search tools or the Responses API's
// tool_search. The loop checks for it at run time, as net/http checks for
// an http.Flusher.
//
// A model that searches (SearchesTools reports true) is sent every enabled
// tool on every turn, the deferred ones with tool.Spec.DeferLoading set,
// and keeps what its provider's search found in the opaque state of its
// messages (Message.State). Any other model, when the registry defers
// tools, is sent the tools not deferred, then the portable search
// (SearchToolName), run locally over the enabled deferred tools, then the
// tools its answers loaded, in the order they were loaded: the list only
// grows at its end, so the prompt cached up to it stays valid.
type ToolSearcher interface {
	// SearchesTools reports whether the model takes deferred tools and
	// searches them with its provider's own search.
	SearchesTools() bool
}

// searches reports whether m searches deferred tools itself.
func searches(m Model) bool {
	ts, ok := m.(ToolSearcher)
	return ok && ts.SearchesTools()
}

// hasDeferred reports whether reg defers any tool, enabled or not.
func hasDeferred(reg *tool.Registry) bool {
	for _, s := range reg.Scopes() {
		if s.DeferLoading && len(s.Tools) > 0 {
			return true
		}
		for _, t := range s.Tools {
			if t.Spec().DeferLoading {
				return true
			}
		}
	}
	return false
}

// checkTools returns why a run of model over reg cannot start: a registry
// whose every tool is deferred (tool.ErrNothingLoaded), or one with a tool
// named SearchToolName when the loop needs the name for the portable
// search.
func checkTools(model Model, reg *tool.Registry) error {
	if err := tool.CheckLoaded(reg); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if _, taken := reg.Lookup(SearchToolName); taken && !searches(model) && hasDeferred(reg) {
		return fmt.Errorf("%w; rename it, or use a model that searches tools itself", ErrSearchToolName)
	}
	return nil
}

// CallHandler returns what Run runs the calls of model through, before
// the middleware's Tool layers: reg, which answers SearchToolName itself
// with the portable search when model does not search tools and reg
// defers some. A loop that runs calls elsewhere (the durable package)
// uses it to run the same calls as Run.
func CallHandler(model Model, reg *tool.Registry) tool.Handler {
	if reg == nil {
		reg = &tool.Registry{}
	}
	if searches(model) || !hasDeferred(reg) {
		return reg
	}
	return searchHandler{reg: reg}
}

// searchHandler runs SearchToolName locally and every other call through
// the registry.
type searchHandler struct{ reg *tool.Registry }

func (h searchHandler) Stream(ctx context.Context, call tool.Call) iter.Seq[tool.Event] {
	if call.Name != SearchToolName {
		return h.reg.Stream(ctx, call)
	}
	return searchTool().Stream(context.WithValue(ctx, registryKey{}, h.reg), call)
}

// registryKey is the context key of the registry the portable search
// looks in.
type registryKey struct{}

// searchArgs are the arguments of the portable search.
type searchArgs struct {
	Query string `json:"query" jsonschema:"what the tool you need does, in a few words, such as 'create a calendar event'" tool:"minLength=1"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many tools to load; 5 if left out" tool:"minimum=1,maximum=10"`
}

// A searchOutput is the answer of the portable search: the tools it found
// and loaded, best first. The type is the loop's own, so that a tool
// message records a load (Message.Loaded) only when the portable search
// wrote it.
type searchOutput struct {
	Tools []foundTool `json:"tools"`
	Note  string      `json:"note"`
}

// A foundTool is one tool the portable search found.
type foundTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// The notes of the portable search's answer.
const (
	loadedNote = "These tools are loaded: call them by name from your next step on."
	noneNote   = "No deferred tool matches; search again with other words, or go on with the tools you have."
)

// searchTool returns the portable search, made once.
var searchTool = sync.OnceValue(func() *tool.Tool[searchArgs, searchOutput] {
	return tool.New(SearchToolName,
		"Search the tools that are not loaded yet and load the ones that match, so that you can call them. Describe what you need to do; the answer lists the tools loaded, best first.",
		func(ctx context.Context, a searchArgs) (searchOutput, error) {
			reg, _ := ctx.Value(registryKey{}).(*tool.Registry)
			return search(ctx, reg, a), nil
		},
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
})

// search ranks the deferred tools enabled now against the query. The
// index holds every deferred tool of the registry, enabled or not; a tool
// disabled now is refused by Search's allow function before it can be
// ranked, so the search never reveals it.
func search(ctx context.Context, reg *tool.Registry, a searchArgs) searchOutput {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	out := searchOutput{Tools: []foundTool{}, Note: noneNote}
	if reg != nil {
		x := indexOf(reg)
		x.mu.Lock()
		x.sync(reg)
		idx, descriptions := x.idx, x.descriptions
		x.mu.Unlock()
		// The search runs without x.mu, so that searches run at once and a
		// slow predicate holds up no other; a later sync may change the
		// index meanwhile, which its own lock guards.
		found := idx.Search(a.Query, limit, func(name string) bool { return reg.Enabled(ctx, name) })
		x.mu.Lock()
		for _, m := range found {
			out.Tools = append(out.Tools, foundTool{Name: m.Name, Description: descriptions[m.Name]})
		}
		x.mu.Unlock()
	}
	if len(out.Tools) > 0 {
		out.Note = loadedNote
	}
	return out
}

// A searchIndex is the portable search's index of the deferred tools of
// one registry, enabled or not. It follows the registry from version to
// version (tool.Registry.Version, Added), so that a search costs the
// search and what changed since the last one, not a rebuild: the tools
// added are indexed, and only a removal (Remove) rebuilds it. A tool whose
// spec may change (not a tool.SpecVersioner at version 0) is looked at on
// every search, and indexed again when its spec changed.
type searchIndex struct {
	mu           sync.Mutex
	built        bool
	version      uint64                // of the registry, when last synced
	idx          *toolsearch.Index     // the deferred tools
	descriptions map[string]string     // of the tools indexed, by name
	volatile     map[string]*watchSpec // the tools whose spec may change, by name
}

// A watchSpec is a tool whose spec may change, with what the index holds
// of it.
type watchSpec struct {
	versions tool.SpecVersioner // nil when the tool cannot say when its spec changes
	version  uint64             // its SpecVersion when indexed
	doc      toolsearch.Doc     // its doc when indexed; zero when it was not deferred
}

// searchIndexes hold the index of each registry the portable search has
// searched, by a weak pointer: an index goes with its registry.
var searchIndexes sync.Map // weak.Pointer[tool.Registry] → *searchIndex

// indexOf returns the portable search's index of reg.
func indexOf(reg *tool.Registry) *searchIndex {
	key := weak.Make(reg)
	if x, ok := searchIndexes.Load(key); ok {
		return x.(*searchIndex)
	}
	x, loaded := searchIndexes.LoadOrStore(key, &searchIndex{})
	if !loaded {
		runtime.AddCleanup(reg, func(key weak.Pointer[tool.Registry]) { searchIndexes.Delete(key) }, key)
	}
	return x.(*searchIndex)
}

// sync brings the index up to the registry's tools. Hold x.mu.
func (x *searchIndex) sync(reg *tool.Registry) {
	if !x.built || reg.Version() != x.version {
		added, version, ok := reg.Added(x.version)
		if !x.built || !ok {
			x.rebuild(reg)
		} else {
			x.version = version
			for _, t := range added {
				spec, held := reg.Spec(t.Name())
				if !held { // renamed since it was added, or removed since Added
					x.rebuild(reg)
					break
				}
				x.put(reg, spec)
			}
		}
	}
	for name, w := range x.volatile {
		if w.versions != nil {
			v := w.versions.SpecVersion()
			if v == w.version {
				continue
			}
			w.version = v
		}
		spec, held := reg.Spec(name)
		if !held {
			continue // removed: the next sync rebuilds
		}
		var doc toolsearch.Doc
		if spec.DeferLoading {
			doc = toolsearch.DocOf(spec)
		}
		if !sameDoc(doc, w.doc) {
			x.put(reg, spec)
		}
	}
}

// rebuild indexes the registry's deferred tools anew. Hold x.mu.
func (x *searchIndex) rebuild(reg *tool.Registry) {
	x.version = reg.Version()
	x.idx = &toolsearch.Index{}
	x.descriptions = map[string]string{}
	x.volatile = map[string]*watchSpec{}
	x.built = true
	for _, spec := range reg.AllSpecs() {
		x.put(reg, spec)
	}
}

// put indexes spec if it is deferred, and takes it out of the index if it
// is not, and watches it if it may change. Hold x.mu.
func (x *searchIndex) put(reg *tool.Registry, spec tool.Spec) {
	var doc toolsearch.Doc
	if spec.DeferLoading {
		doc = toolsearch.DocOf(spec)
		x.idx.Put(doc)
		x.descriptions[spec.Name] = spec.Description
	} else if _, ok := x.descriptions[spec.Name]; ok {
		x.idx.Remove(spec.Name)
		delete(x.descriptions, spec.Name)
	}
	t, _ := reg.Lookup(spec.Name)
	versions, ok := t.(tool.SpecVersioner)
	if ok && versions.SpecVersion() == 0 {
		delete(x.volatile, spec.Name)
		return
	}
	w := &watchSpec{versions: versions, doc: doc}
	if ok {
		w.version = versions.SpecVersion()
	}
	x.volatile[spec.Name] = w
}

// sameDoc reports whether a and b index the same text.
func sameDoc(a, b toolsearch.Doc) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && slices.Equal(a.Properties, b.Properties)
}

// loadedBy returns the tools a result of the portable search loaded, or
// nil for any other result.
func loadedBy(res tool.Result) []string {
	out, ok := res.Output.(searchOutput)
	if !ok || res.IsError {
		return nil
	}
	names := make([]string, len(out.Tools))
	for i, t := range out.Tools {
		names[i] = t.Name
	}
	return names
}

// Loaded returns the tools the portable search loaded in history, in the
// order it first loaded them: the Loaded of its tool messages. A request
// for a model without search of its own sends them, when they are enabled,
// after the others.
func Loaded(history History) []string {
	var names []string
	for _, m := range history {
		if m.Role != RoleTool {
			continue
		}
		for _, n := range m.Loaded {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// toolsFor returns the tools of a turn: specs as they are for a model that
// searches; otherwise, when some are deferred, the others, then the
// portable search, then the deferred ones loaded in history, in the order
// they were loaded, as plain tools.
func toolsFor(specs []tool.Spec, native bool, history History) []tool.Spec {
	if native {
		return specs
	}
	deferred := map[string]tool.Spec{}
	out := make([]tool.Spec, 0, len(specs)+1)
	for _, s := range specs {
		if s.DeferLoading {
			s.DeferLoading, s.Namespace = false, ""
			deferred[s.Name] = s
			continue
		}
		out = append(out, s)
	}
	if len(deferred) == 0 {
		return out
	}
	out = append(out, searchTool().Spec())
	for _, name := range Loaded(history) {
		if s, ok := deferred[name]; ok { // a tool disabled since it was loaded is left out
			out = append(out, s)
		}
	}
	return out
}
