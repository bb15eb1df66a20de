package tool

import "encoding/json"

// A SchemaDocumenter is a tool whose schemas were written as JSON
// documents before they were decoded into its Spec, such as the tool of
// another MCP server that a client passes on, and are to be shown as
// written: a jsonschema.Schema keeps neither the order of a document's
// keywords nor the difference between {} and true (it encodes an empty
// schema as true, which MCP clients that type every property's schema as
// an object refuse), and it drops what it has no field for. An MCP server
// lists such a tool's schemas as SpecDocuments returns them.
type SchemaDocumenter interface {
	// SpecDocuments returns the tool's Spec, as Spec would, with the
	// documents its InputSchema and OutputSchema were decoded from, read
	// at once so that they describe the same definition of the tool.
	// output is nil when the spec has no OutputSchema; either document may
	// be nil to have the spec's schema encoded instead.
	SpecDocuments() (spec Spec, input, output json.RawMessage)
}
