package dialect

import (
	"fmt"
	"strings"
)

// A Feature is something a provider takes per tool or per request beyond
// the tool's schema, such as a flag that defers a tool until a search finds
// it. A request that needs a feature its dialect lacks is refused by Check,
// as a schema the provider would reject is: the adapter never sends a flag
// the provider ignores or answers with a 400. Features combine with |.
type Feature uint32

// The features of a dialect (Dialect.Features) and of a tool or a request
// (ToolSchema.Features).
const (
	// DeferLoading: a tool may be flagged to load only once a search for
	// tools finds it (Anthropic's and OpenAI's defer_loading).
	DeferLoading Feature = 1 << iota
	// ToolSearch: the provider searches the deferred tools itself, with a
	// search tool of its own (Anthropic's tool_search_tool_regex and
	// tool_search_tool_bm25, OpenAI's tool_search).
	ToolSearch
	// Namespaces: tools may be grouped under a named namespace (OpenAI's
	// namespace tools).
	Namespaces
	// AllowedTools: a request may send every tool and allow only some of
	// them to be called on the turn (OpenAI's allowed_tools tool choice),
	// so that the list of tools stays the same from turn to turn for the
	// prompt cache.
	AllowedTools
	// EagerInputStreaming: a tool's arguments may be streamed as they are
	// generated, without the provider buffering them (Anthropic's
	// eager_input_streaming).
	EagerInputStreaming
	// PerToolStrict: strict decoding is chosen per tool (a strict field on
	// each tool, as Anthropic and OpenAI take), rather than for the request.
	PerToolStrict
)

// featureNames are the names of the features, in the order of their bits.
var featureNames = []string{"defer_loading", "tool_search", "namespaces", "allowed_tools", "eager_input_streaming", "per_tool_strict"}

// String returns the names of the features, joined by "|", such as
// "defer_loading|tool_search"; "none" for none.
func (f Feature) String() string {
	if f == 0 {
		return "none"
	}
	var names []string
	for i, n := range featureNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
			f &^= 1 << i
		}
	}
	if f != 0 {
		names = append(names, fmt.Sprintf("Feature(%#x)", uint32(f)))
	}
	return strings.Join(names, "|")
}

// fixFeature is what the author of a program can do about a feature the
// dialect lacks.
const fixFeature = "use a provider whose dialect has the feature, or leave it off: an agent.Run model without native tool search gets the portable search_tools tool, and a tool is deferred by tool.WithDeferLoading or Scope.DeferLoading"

// lintFeatures returns an error problem when the tool named name needs
// features the dialect lacks.
func (d *Dialect) lintFeatures(name string, need Feature) []Problem {
	missing := need &^ d.Features
	if missing == 0 {
		return nil
	}
	return []Problem{{Dialect: d.Name, Tool: name, Keyword: "features", Severity: SeverityError,
		Message: fmt.Sprintf("needs %s, which %s does not take", missing, d.provider()), Fix: fixFeature}}
}
