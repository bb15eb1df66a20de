// Package toolsearch finds the tools that match a query among many, so that a
// model can be shown a few tools and search for the rest.
//
// An Index holds one Doc per tool: its name, title and description and the
// names and descriptions of its input's properties. Put adds or replaces a
// tool, Remove takes one out; both cost what the tool's own text costs, never
// a rebuild of the whole index. Search ranks the tools against a query and
// returns the best, best first:
//
//	var idx toolsearch.Index
//	for _, spec := range registry.Specs(ctx) {
//		idx.Put(toolsearch.DocOf(spec))
//	}
//	for _, m := range idx.Search("open a pull request", 5, nil) {
//		fmt.Println(m.Name, m.Score)
//	}
//
// # Ranking
//
// Search scores with BM25F: each field of a Doc is weighed (a word of the
// name counts three times a word of the description, a word of a
// property's description half as much), lengths are normalized per field,
// and rare words count more than common ones. Words are split at case
// changes, digits and punctuation, so "createPullRequest",
// "create_pull_request" and "create-pull-request" are the same three
// words, and plurals are reduced ("files" finds "file").
//
// A query is read as an agent writes one, in plain words. Each word also
// looks for its synonyms among the verbs of tool names and a few common
// nouns (create, new, add, make, open; delete, remove, drop; find,
// search, query; folder, directory; ...), which count half as much; a
// word and its synonyms are one concept, of which a tool scores the best
// word, never the sum. Two words in a row also look for the word they make
// together ("roll back" finds "rollback"). The list of synonyms is small
// and general, and the ranking is measured on the tool lists of real MCP
// servers (docs/PERFORMANCE.md). Nothing is looked up over a network.
//
// # Filtering
//
// Search's allow function sees every candidate before it is ranked, so that a
// caller shows only the tools it may call: a search never reveals a tool
// that allow refuses, and the limit counts only allowed ones.
//
// The package depends only on the standard library and package tool.
package toolsearch
