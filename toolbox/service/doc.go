// Package service gives a model the operations of HTTP APIs that an
// OpenAPI document describes, through two tools: describe_service lists a
// service's operations (ranked against a query) and gives one's arguments
// as a JSON Schema, and call_service calls one.
//
//	svcs, err := service.New([]service.Config{{
//		Name:     "mail",
//		BaseURL:  "http://127.0.0.1:8025",
//		Document: "http://127.0.0.1:8025/api/v1/swagger.json",
//	}}, &service.Options{Guard: guard})
//	...
//	reg, err := tool.NewRegistry(&tool.Scope{Name: "services", Tools: svcs.Tools()})
//
// # One tool for every operation
//
// An API of 200 operations does not become 200 tools: the model's context
// pays for two tool definitions whatever the APIs hold, and their schemas
// are this package's own, which every provider dialect takes. The
// arguments of call_service are a JSON object written as a string —
// {"path":{…},"query":{…},"header":{…},"cookie":{…},"body":…} — since a
// free-form object is what OpenAI's and Anthropic's strict modes and
// Gemini cannot express. They are checked against the operation's schema
// (built from the document's parameters and request body, with its
// references under $defs) by package dynamic's validator before anything
// is sent, and every problem comes back as an issue at its path under
// /arguments.
//
// # Documents
//
// A document is OpenAPI 3 or Swagger 2.0 (converted to OpenAPI 3 with
// kin-openapi's openapi2conv), in JSON, read from a URL or a file when a
// service is first used (or by [Services.Load]). It may be at most
// MaxDocumentBytes, nested at most MaxDocumentDepth deep, with at most
// MaxOperations operations. Its $refs are followed within it; one that
// names another document is read only if it is under the service's base
// URL (through the service's guarded client) or, for a document read from
// a file, a file in the document's folder or below it, at most
// MaxReferencedDocuments of them. References may form cycles: each
// referenced schema is written once, under $defs. The document's servers
// are not used: requests go to Config.BaseURL.
//
// # What a call may reach
//
// Only the service's base URL. An operation's path is appended to it, with
// every path parameter percent-encoded and "", "." and ".." refused, so
// that no value adds a segment, a query or a host; header values may not
// hold line breaks; a redirect is followed only under the base URL. Each
// service's client dials through the address guard (package netguard),
// which trusts the base URL's endpoint and nothing else that is not
// public. Credentials (Config.Headers) come from the environment, are sent
// with every request of their service, and are replaced by "[redacted]"
// wherever they would appear in what the tools return.
//
// # Responses
//
// A call takes at most Options.Timeout, reads at most
// Options.MaxResponseBytes of body and returns at most
// Options.MaxOutputBytes: the status, the content type and the body as
// text. A status other than 2xx is an error (ErrServiceStatus) that carries the
// start of the body, where APIs say what was wrong. A JSON body is checked
// against the document's schema of that response; what does not match is
// noted after the body, not refused: the data is the service's, and the
// model can still use it.
//
// # Annotations
//
// describe_service only reads. call_service is read-only if every service
// is configured read-only (Config.ReadOnly, which offers only GET and HEAD
// operations), and destructive otherwise: one tool reaches every
// operation, so a client that asks before destructive calls asks before
// each call, and the call's arguments name the operation it approves.
package service
