package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

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

// search ranks the deferred tools enabled now against the query. A tool
// that is disabled now is never indexed, so the search never reveals it.
func search(ctx context.Context, reg *tool.Registry, a searchArgs) searchOutput {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	var idx toolsearch.Index
	descriptions := map[string]string{}
	if reg != nil {
		for _, spec := range reg.Specs(ctx) {
			if spec.DeferLoading {
				idx.Put(toolsearch.DocOf(spec))
				descriptions[spec.Name] = spec.Description
			}
		}
	}
	out := searchOutput{Tools: []foundTool{}, Note: noneNote}
	for _, m := range idx.Search(a.Query, limit, nil) {
		out.Tools = append(out.Tools, foundTool{Name: m.Name, Description: descriptions[m.Name]})
	}
	if len(out.Tools) > 0 {
		out.Note = loadedNote
	}
	return out
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
