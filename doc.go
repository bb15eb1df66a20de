// Package hands gives LLM agents their hands: Go code they can call, defined
// once as a typed tool and correct for every provider.
//
// The library lives in its packages: [github.com/hands-go/hands/tool]
// (typed tools) and [github.com/hands-go/hands/schema] (JSON Schema from Go
// types and the one-pass validator). This root package holds only the
// repository's own checks.
package hands
