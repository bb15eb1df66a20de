// Package bench measures what it costs to turn a tool call's JSON arguments
// into a typed Go value, call the handler and encode its output, along six
// paths: plain encoding/json and json v2 (no validation), hands, the MCP Go
// SDK's typed tool path, santhosh-tekuri/jsonschema, and
// go-playground/validator; and what one tools/call costs end to end, from
// the SDK's client to hands' MCP server or to a server of the SDK's typed
// tools and back, in memory and over loopback HTTP.
//
// The package holds only tests and benchmarks. It is a module of its own so
// that the libraries it compares never become dependencies of hands. The
// results, and how to reproduce them, are in docs/PERFORMANCE.md.
package bench
