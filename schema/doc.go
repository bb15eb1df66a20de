// Package schema turns a Go struct type into a JSON Schema (draft 2020-12)
// and into a validator that checks JSON against that schema while it decodes
// it, in one pass over the bytes.
//
// The struct is the single source of truth: the schema a model is shown, the
// checks made on its arguments and the Go value a handler receives all come
// from the same type and its tags.
//
//	type CreateUser struct {
//		Username string   `json:"username" jsonschema:"login name" tool:"minLength=3,maxLength=20,pattern=^[a-z0-9_]+$"`
//		Email    string   `json:"email" tool:"format=email"`
//		Age      *int     `json:"age,omitempty" tool:"minimum=1"`
//		Roles    []string `json:"roles,omitempty" tool:"enum=admin|user|guest,default=[\"user\"]"`
//	}
//
//	v, err := schema.For[CreateUser](nil)
//	...
//	var u CreateUser
//	err = v.Decode(data, &u) // a *schema.Error listing every issue, or nil
//
// # Tags
//
// Three struct tags describe a field.
//
// json is read exactly as encoding/json reads it: the name, "-", omitempty,
// omitzero, and embedded structs flattened by Go's visibility rules. Property
// names match exactly (encoding/json also accepts other cases; a schema does
// not). The ",string" option is rejected.
//
// jsonschema holds the field's description, the whole tag value, as in the
// MCP Go SDK and jsonschema-go, so existing structs keep working. A tag in the
// key=value style of invopop/jsonschema (jsonschema:"description=…,enum=…")
// is rejected with a message saying how to write it here. When the field's
// type describes itself too (the description of the schema its JSONSchema
// method returns), the property says both: the field's description, a line
// break, then the type's. A title in the tool tag replaces the type's.
//
// tool holds the constraints, with JSON Schema's own keyword names:
//
//	minLength maxLength pattern format enum
//	minimum maximum exclusiveMinimum exclusiveMaximum multipleOf
//	minItems maxItems uniqueItems minProperties maxProperties
//	default const examples title deprecated
//	required optional nullable
//
// The grammar:
//
//	tag    = entry *( "," entry )
//	entry  = key [ "=" value ]
//	value  = "'" text "'"             a quoted value may hold commas; '' is a quote
//	       / JSON array, object or string, which may hold commas
//	       / text up to the next comma outside brackets, braces and double quotes
//
// The JSON form is read only for default, const, enum and examples, and only
// when the value is one whole JSON array, object or string: pattern=[a-z]+ is
// the pattern [a-z]+, and default={x is the string "{x". A comma inside
// brackets or braces belongs to the value (pattern=^[0-9]{1,3}$,
// pattern=[^,]+); any other value that holds a comma is quoted:
// title='Hello, world'.
//
// The flags uniqueItems, deprecated, required, optional and nullable stand
// alone or take true or false; deprecated may instead take a message saying
// what to use (deprecated='use city'), which the description ends with
// ("Deprecated: use city"), and which a call that sends the field is told. The values of enum and examples are lists
// separated by '|'. The values of default, const, enum and examples are JSON
// when they parse as JSON of the field's type, and strings otherwise, so
// default=text/plain and default="text/plain" mean the same on a string
// field, and default=3 is the number 3 on an int field. Examples:
//
//	tool:"minLength=1,maxLength=1024"
//	tool:"pattern='^[0-9]{1,3}$'"
//	tool:"enum=add|subtract|multiply|divide"
//	tool:"minimum=0,exclusiveMaximum=1,multipleOf=0.01"
//	tool:"default=[\"user\"],uniqueItems"
//	tool:"format=email,examples=ann@example.com|bob@example.com"
//
// Any other key, a duplicated key, a malformed value, a keyword that does not
// fit the field's type (minLength on an int), bounds that no value can meet
// and a default, const, enum value or example that fails the field's own
// constraints are all reported as a *DefinitionError, which names the type,
// the field and the tag, and matches the kind of mistake with errors.Is:
// ErrInvalidTag, ErrInapplicable, ErrConflict, or ErrUnsupportedType for a
// Go type with no JSON form.
//
// On a slice or array field, the value keywords (enum, const, minLength,
// maxLength, pattern, format, minimum … multipleOf) apply to each item and
// minItems, maxItems and uniqueItems to the slice. On a map[string]T field
// they apply to each value, and minProperties and maxProperties to the map.
//
// # Required, optional and null
//
// A field is required unless its json tag has omitempty or omitzero, it has a
// default, it is a pointer, or its tool tag says optional; tool:"required"
// makes any field required.
//
// null is a value only where the Go type has one: a pointer (null is nil),
// any and json.RawMessage (which hold any JSON value, null included), and a
// field tagged tool:"nullable" (null leaves the zero value). Everywhere else
// null is refused with the keyword "type" ("must be an array, got null"):
// slices, maps and []byte too, as fields, items and map values. Decoding []
// or {} gives an empty slice or map, not nil, so a handler never receives a
// nil one where null is refused, and a required slice with minItems=1 cannot
// be emptied with null. The schema says exactly this: only what accepts null
// has "null" among its types.
//
// A null for an optional field is refused too, unless Options.NullAsAbsent
// is set: then it counts as absent, so the field keeps its zero value or
// takes its default, and DecodeRepaired reports where. That reads back what
// OpenAI's strict mode sends, whose dialect makes every optional property
// required and nullable. A field tagged tool:"nullable" keeps its null.
//
// # A type's own encoding
//
// For a value that Decode returned from valid JSON, json.Marshal writes JSON
// the schema accepts, except where
//
//   - an optional field that the document left out and that has neither
//     omitempty nor omitzero holds a zero value its schema refuses: null for
//     a nil slice or map, or a zero that breaks the field's constraints
//     (tool:"optional,minLength=1" on a string);
//   - a type with its own methods (UnmarshalJSON, UnmarshalText, MarshalJSON,
//     MarshalText) writes what it would not read; or
//   - a time.Duration, which encoding/json writes as an integer of
//     nanoseconds and the schema asks for as a string such as "1m30s".
//
// A value built in Go may hold what Decode never returns, such as a nil
// slice in a required field, which encoding/json writes as null.
// Validator.Check, which judges Go values by their encoding, reads a null
// slice, map or []byte as an empty one.
//
// # Types
//
// bool; every int and uint size (sized types carry their range as minimum and
// maximum); float32 and float64; string; []byte (a base64 string, as
// encoding/json writes it); slices and fixed-length arrays; map[string]T;
// structs, nested and embedded; pointers; time.Time (a date-time string);
// time.Duration (a duration string, below); json.RawMessage and any (any JSON
// value); types with UnmarshalText (a string the type parses). Recursive
// types are written once under $defs and referenced with $ref; a recursive
// top-level type is referenced as "#". Channels, functions, complex numbers,
// interfaces with methods and maps with non-string keys are rejected.
//
// A type with a JSONSchema() *jsonschema.Schema method is described by the
// schema it returns, and its JSON is checked against that schema before the
// type reads it (with UnmarshalJSON, or as encoding/json would). A type with
// UnmarshalJSON and no JSONSchema method is described as encoding/json writes
// it, by its kind: a named string is a string with the field's constraints, a
// named struct its fields, a named slice an array. Its JSON is checked as such
// (null included: a non-pointer field refuses it), and only then does
// UnmarshalJSON read the same bytes, so such a type can trim or lower-case a
// value without losing its checks. A type that also writes itself
// (MarshalJSON, or MarshalText) could read anything: it takes any JSON value,
// its schema is {} with a $comment that names it, and dialect.Dialect.Lint
// reports a warning for it, because the model is told nothing; give such a type
// a JSONSchema method.
//
// # Durations
//
// encoding/json writes a time.Duration as an integer of nanoseconds, but a
// model that sends 30 for a timeout means seconds. So an input duration is a
// string that says its unit, in the form time.ParseDuration reads: "1m30s",
// "250ms", "-1.5h", "0". Its schema is a string with a pattern that matches
// exactly those strings (without a leading '+'), described as
//
//	a duration such as "1m30s" or "250ms" (units h, m, s, ms, us, ns)
//
// after the field's own description. A number is refused with a message
// that asks for a string such as "30s"; a duration too long for a
// time.Duration (about 292 years) is refused with the keyword "range". The
// values of default, const, enum and examples are duration strings
// (tool:"default=30s"), and enum and const compare the strings as written:
// enum=1m does not accept "60s". Bounds (minimum, maximum) do not apply; use
// a Validate method. An output duration (Options.Output) is described as
// what encoding/json writes: an integer, "a duration in nanoseconds", with
// its tag values in nanoseconds too. Validator.Check, which reads
// encoding/json's encoding of a Go value, reads the integer.
//
// # Validation
//
// The semantics are those of JSON Schema 2020-12: string lengths count
// Unicode code points; an integer may be written 1.0 or 1e3; the formats
// date-time, date, time, duration, email, hostname, ipv4, ipv6, uri,
// uri-reference and uuid are asserted, not just annotated; properties the
// type does not have are rejected (additionalProperties: false). Beyond the
// schema, the bytes must be valid JSON and UTF-8, with no duplicate keys, no
// data after the value, a nesting depth and a size within the limits in
// Options (DefaultMaxDepth, DefaultMaxBytes), and numbers the Go type can
// hold.
//
// A rejected document is a *Error that matches ErrInvalidDocument. Every
// issue is reported, each with its JSON Pointer path, its keyword and a
// short message a model can act on ("must be at least 3 characters, got 2").
// Messages never repeat a large value. When the bytes are not JSON at all,
// that is the one issue reported.
//
// # Defaults and refinements
//
// A property that is absent gets its default, at any depth, before the value
// is returned. Then, when the document is valid, each struct in the value
// whose pointer type has a Validate() error method is refined: inner structs
// first, and every error becomes an issue at that struct's path. An error
// that wraps a *Error keeps its issues, with their paths taken relative to
// the struct. Types with UnmarshalJSON or UnmarshalText run as part of
// decoding, after the schema checks on their JSON; they can transform a
// value (trim, lower-case) as well as reject it.
//
// # Decoded strings
//
// The strings of a decoded value are copied out of the document into blocks
// shared by several strings, up to 8 KiB each, rather than allocated one by
// one; a string that the program keeps keeps its block alive. Decode never
// keeps a reference to data itself.
//
// # Deviations
//
// Patterns are Go regular expressions (RE2), not ECMA-262 ones: look-arounds
// and back-references are rejected when the type is compiled. Numbers are
// compared as the Go type holds them (a float64), so bounds closer than
// float64 precision may differ from an exact comparison; multipleOf is exact.
// A number the Go type cannot hold (1e400 for a float64, 2^64 for an int64)
// is rejected with the keyword "range", although the schema alone would
// accept it: the 64-bit types carry no minimum or maximum in the schema,
// because float64 cannot write 2^63-1 or 2^64-1 exactly. uniqueItems
// compares decoded Go values.
//
// A type with its own JSONSchema method is checked against that schema by
// jsonschema-go: the first problem is reported, at the field, in
// jsonschema-go's words (cut to one line), and format is an annotation
// there, not an assertion.
//
// The schema describes what decoding accepts. A type that writes itself
// with MarshalJSON or MarshalText but reads itself field by field is
// described by its fields as an input, and as an output (Options.Output) as
// any JSON value (MarshalJSON) or a string (MarshalText).
package schema
