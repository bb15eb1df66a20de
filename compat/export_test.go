package compat

import "github.com/google/jsonschema-go/jsonschema"

// CompareParts is Input (forward false) or Output (forward true) without
// the shortcut for identical documents, so that a test can see how each
// part of a document is compared with itself.
func CompareParts(old, new *jsonschema.Schema, forward bool) []Change {
	from, to := old, new
	if forward {
		from, to = new, old
	}
	c := newChecker(from, to, forward, nil)
	c.noIdentical = true
	c.checkConj([]*jsonschema.Schema{from}, to, "", 0)
	return sortChanges(c.changes)
}
