// Package schemaorder decodes a JSON Schema document into a
// jsonschema.Schema that keeps the document's order of properties, at
// every level: jsonschema.Schema holds properties in a map, and marshals
// them in PropertyOrder when it is set. The order of properties is part of
// what a model reads.
package schemaorder
