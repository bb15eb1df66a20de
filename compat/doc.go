// Package compat decides whether a new version of a tool still serves the
// callers of the old one, and says what changed.
//
// Tools are cached everywhere: in a model's prompt, in an MCP client that
// listed them once, in an agent's history of calls, behind a gateway. A
// change to a tool's input struct can break all of them silently. compat
// compares two versions and reports each change with its JSON Pointer, its
// kind and its Effect: Compatible, Breaking, or Unknown (cannot be decided,
// counted as breaking).
//
//	changes := compat.Input(oldSpec.InputSchema, newSpec.InputSchema, nil)
//	if compat.Breaks(changes) {
//		for _, c := range compat.BreakingChanges(changes) {
//			fmt.Println(c) // breaking  /properties/days/maximum: maximum 7 → 5
//		}
//	}
//
// # Directions
//
// An input schema is compared backward: every argument object valid under
// the old schema must be valid under the new one, so that a call made from
// a cached list or an old history still works. An output schema is
// compared forward: every result valid under the new schema must be valid
// under the old one, so that a caller written against the old one can read
// it. Tools compares two lists of tools (a Snapshot each, the shape of
// MCP's tools/list result) and adds the tool-level changes: a tool removed
// or renamed, annotations made less safe (read-only to destructive), an
// output schema removed or added.
//
// Those are the directions of Options.Mode Backward, the default: they keep
// the callers of the old version working. During a rolling deploy a
// client that listed the new version may reach a replica still running
// the old one; Forward checks that case (new calls valid under the old
// input, old results valid under the new output, a tool added or made
// safer in its annotations breaking), and Full both, as schema registries'
// FORWARD and FULL modes do. A forward break says so in its message.
//
// # Waivers
//
// A reviewer who accepts a break writes a Waiver (tool and JSON Pointer,
// ParseWaivers reads a file of them), and Waive marks the changes it names
// Accepted, which does not count as breaking, and returns the waivers that
// named nothing, so that a stale one is noticed: hands diff --accept.
//
// # What is compared
//
// The check is an inclusion test between the sets of values two schemas
// accept, done on their structure: type (integer widens to number; a
// union with null), enum and const (value by value), minimum, maximum and
// their exclusive forms (as integer bounds for integers), multipleOf,
// minLength and maxLength, pattern and format (by equality: a different
// pattern is Unknown), properties, required, additionalProperties (open
// and closed objects), patternProperties, propertyNames, min/maxProperties,
// dependentRequired, dependentSchemas, items and prefixItems (and draft 7's
// array form), min/maxItems, uniqueItems, contains, allOf, anyOf, oneOf,
// not, and $ref into $defs, definitions, any JSON Pointer or anchor of the
// same document, and any resource embedded in it by $id, recursion
// included. A default that changes on an input breaks: an old call that
// left the property out now means something else. if/then/else,
// unevaluated*, $dynamicRef and references to other documents are
// reported as Unknown unless they are unchanged.
//
// Every schema is compatible with itself. Two documents that are the same
// (keyword for keyword, in any order, annotations aside) have no change
// at all, whatever they hold; within two different documents, a part
// that is the same as its counterpart holds (a $ref compared by the schema
// it leads to, a reference to another document by its URI), except one
// that holds a $dynamicRef, whose target depends on the path that
// reached it. Against an enum or a const, values that are few by their
// type and bounds (the integers of a range shorter than 64; the empty
// string, array or object) are compared one by one, as an enum's are.
//
// "Compatible" is a guarantee: the property tests sample values of random
// old schemas and check that the new one accepts each of them whenever the
// check says compatible, with hands' validators as the oracle. "Breaking"
// may be too cautious where values are covered only by several branches
// of a union together; the message says so.
//
// # Open objects
//
// An object schema without additionalProperties accepts any property, with
// any value. Adding a property to it is therefore breaking by default, as
// in schema registries: an old call may already hold that property with a
// value the new schema refuses. Options.DeclaredOnly takes the view of
// OpenAPI diff tools instead, that callers send only declared properties;
// hands' own input schemas are closed, so the question does not arise for
// them.
//
// # Cost
//
// Each pair of schemas is compared once (a pair met again inside itself,
// past a property or item, holds by induction; a pair met again elsewhere
// repeats its first finding), so the work grows with the sizes of the two
// schemas, and Options.MaxSteps and Options.MaxDepth bound it for any
// input: past them the check reports a KindLimit change, Unknown.
// ParseSnapshot bounds the size and nesting of what it reads.
package compat
