// Package schemadoc decodes a JSON Schema document once, in one pass
// linear in its size, into a tree that keeps what the document says and
// the order in which it says it. Each reader of the schema takes what it
// needs from the tree, without reading the bytes again: the validator its
// value as encoding/json decodes it ([Document.Value]), a model the
// jsonschema.Schema that jsonschema-go decodes, with PropertyOrder set at
// every level ([Document.Schema]), a proxy a comparison with another
// decoding of the same bytes ([Document.Equal]), and a message the order
// of the members of its "properties" objects ([Document.MemberOrders]).
//
// An object that names a member more than once keeps the member at its
// first place with its last value, in every form: encoding/json's decoding
// into a map keeps the last value too.
package schemadoc
