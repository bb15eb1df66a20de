// Package search holds web_search, a tool that asks a search API for the
// pages that answer a query and returns the ranked hits — title, URL and
// snippet — as structured output and as a compact list a model reads.
//
//	backend, err := search.Open("brave://", nil) // the key from BRAVE_API_KEY
//	if err != nil { ... }
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		search.WebSearch(backend, nil),
//	}})
//
// # Backends
//
// [Open] reads a URL whose scheme names the API: brave:// (Brave Search's
// Web Search API, key in BRAVE_API_KEY), tavily:// (Tavily's Search API,
// key in TAVILY_API_KEY) or searxng://HOST (a SearXNG instance's JSON API,
// no key; ?tls=false for plain http). endpoint=URL sends the requests
// elsewhere, and key_env=NAME reads the key from another variable. A key
// is never part of the URL, which is printed and kept in config files: the
// URL is refused if it holds one. Nothing the tool returns or reports
// holds the key, not even a backend's error message that quotes it.
//
// # What the model reads
//
// A call returns at most Options.MaxResults hits (5 unless set, never more
// than 20), each title at most 200 bytes and each snippet at most
// Options.MaxSnippetBytes (400 unless set), with markup removed, so the
// text put in front of the model is bounded whatever the backend sends:
//
//  1. Welcome to Python.org
//     https://www.python.org/
//     The official home of the Python Programming Language
//
// # Failures
//
// A refused key, a rate limit, a failing backend, a malformed or
// oversized response are *[BackendError] values wrapping ErrSearchKey,
// ErrSearchRateLimited (with the backend's Retry-After), ErrSearchBackend,
// ErrSearchResponse or ErrSearchTooLarge, worded so that the model can
// act: retry later, search again, or tell the user which setting the
// operator must fix. The call ends at Options.Timeout whatever the backend
// does.
//
// # The address guard
//
// Requests dial through a netguard.Guard that trusts the backend's own
// endpoint (an operator's SearXNG may be on a private address), and
// nothing else that is not public: a redirect to another private address
// is refused.
package search
