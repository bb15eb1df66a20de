package compat

import (
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

func (c *checker) arrays(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	lo, hi := count(a, func(n *jsonschema.Schema) (*int, *int) { return n.MinItems, n.MaxItems })
	c.bounds(pointer, "minItems", "maxItems", lo, hi, b.MinItems, b.MaxItems)
	if b.UniqueItems && !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return n.UniqueItems }) && (hi < 0 || hi > 1) {
		c.changed(pointer+"/uniqueItems", "uniqueItems", Breaking, "false", "true")
	}
	bPrefix, bTail := tuple(b)
	n := len(bPrefix)
	for _, node := range a.nodes {
		p, _ := tuple(node)
		n = max(n, len(p))
	}
	items := func(i int) []*jsonschema.Schema {
		var out []*jsonschema.Schema
		for _, node := range a.nodes {
			p, t := tuple(node)
			switch {
			case i >= 0 && i < len(p):
				out = append(out, p[i])
			case t != nil:
				out = append(out, t)
			}
		}
		return out
	}
	prefixKw := "prefixItems"
	if b.ItemsArray != nil {
		prefixKw = "items"
	}
	for i := 0; i < n && (hi < 0 || i < hi); i++ {
		if !c.step(1) {
			return
		}
		if i < len(bPrefix) {
			c.inside(items(i), bPrefix[i], pointer+"/"+prefixKw+"/"+strconv.Itoa(i), depth+1)
		} else if bTail != nil {
			tailKw := "items"
			if b.ItemsArray != nil {
				tailKw = "additionalItems"
			}
			c.inside(items(i), bTail, pointer+"/"+tailKw, depth+1)
		}
	}
	if bTail != nil && (hi < 0 || hi > n) {
		tailKw := "items"
		if b.ItemsArray != nil {
			tailKw = "additionalItems"
		}
		c.inside(items(-1), bTail, pointer+"/"+tailKw, depth+1)
	}
	if b.Contains != nil && !isTrue(b.Contains) {
		ok := derefOr(b.MinContains, 1) == 0 && b.MaxContains == nil // holds of every array
		for _, node := range a.nodes {
			if ok {
				break
			}
			if node.Contains == nil || derefOr(node.MinContains, 1) < derefOr(b.MinContains, 1) {
				continue
			}
			if b.MaxContains != nil {
				// At most so many items match: the same items, no more of them.
				ok = node.MaxContains != nil && *node.MaxContains <= *b.MaxContains && c.same(node.Contains, b.Contains)
				continue
			}
			ok = c.trial(func() { c.inside([]*jsonschema.Schema{node.Contains}, b.Contains, pointer+"/contains", depth+1) })
		}
		if !ok {
			c.report(pointer+"/contains", "contains", Unknown, "contains differs; cannot tell which arrays it still accepts")
		}
	}
	if b.UnevaluatedItems != nil && !isTrue(b.UnevaluatedItems) {
		c.report(pointer+"/unevaluatedItems", "unevaluatedItems", Unknown, "unevaluatedItems is not compared")
	}
}
