// Package dynamic defines tools from JSON Schema documents rather than Go
// types: schemas loaded from configuration, or proxied from another system.
//
//	lookup, err := dynamic.New("lookup_order", "Look up an order by its number.",
//		json.RawMessage(`{"type":"object","properties":{"order":{"type":"string","pattern":"^[0-9]{8}$"}},"required":["order"]}`),
//		func(ctx context.Context, args json.RawMessage) (any, error) { ... })
//
// A dynamic tool is a *tool.RawTool: it behaves like any other tool in
// scopes, predicates, middleware and results. Its arguments are validated
// at the boundary, before the handler runs, by a complete draft 2020-12
// validator (github.com/santhosh-tekuri/jsonschema/v6, which passes the
// official JSON Schema test suite, with format assertion on), and every
// problem comes back in the same *tool.ValidationError as for a typed tool,
// each issue with its JSON Pointer path.
//
// Examples of calls are given as JSON with tool.WithExamplesJSON, like any
// other option; each is held to the schema by the same validator when the
// tool is defined, and one it refuses is a definition error.
//
// # Reading a schema once
//
// New and NewValidator read their schema document once: Parse holds it to
// MaxSchemaBytes and MaxSchemaDepth and decodes it in one pass, linear in
// its size, into a Document from which the validator, the spec's
// jsonschema.Schema (with the document's order of properties at every
// level) and the order of issues are all taken. A program that looks at a
// document before it defines a tool from it parses it itself and passes
// the Document on (NewFromDocument, Document.Validator, Document.Schema):
// mcpclient checks a listed schema against the MCP SDK's decoding with
// Document.Equal and types an untyped root with Document.TypedObject,
// without reading the schema again.
//
// The schema must be self-contained: references to other documents are
// refused, so that defining a tool never reads files or the network. Unlike
// typed tools, dynamic tools do not apply defaults; the handler receives the
// arguments as the model sent them.
//
// # Patterns
//
// JSON Schema's patterns are ECMA-262 regular expressions, and a dynamic
// tool takes them as such. A pattern Go's regexp accepts (most of those
// tools send) is matched by it, in time linear in the value. A pattern it
// refuses — lookahead (?=…) (?!…), lookbehind (?<=…) (?<!…),
// backreferences \1 — is compiled by github.com/dlclark/regexp2 in its
// ECMAScript mode. That engine backtracks, and its time can grow
// exponentially with the value: since a pattern may come from another
// program and a value from a model, each of its matches is cut off after
// PatternTimeout, and the value is refused with an issue that says so.
// A pattern neither engine takes is ErrSchemaInvalid.
//
// This package is separate from package tool because the validator brings
// golang.org/x/text, which the core packages keep out of their
// dependencies, and the backtracking engine.
package dynamic
