package compat

import (
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

func quoteName(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func (c *checker) objects(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	required := c.required(a)
	has := make(map[string]bool, len(required))
	for _, name := range required {
		has[name] = true
	}
	bRequired := slices.Compact(slices.Sorted(slices.Values(b.Required)))
	bHas := make(map[string]bool, len(bRequired))
	for _, name := range bRequired {
		bHas[name] = true
	}
	c.step(len(required) + len(bRequired))
	for _, name := range bRequired {
		if !has[name] {
			old, new := c.oldNew("optional", "required")
			c.report(pointer+"/required", "required", Breaking, "property %q: %s → %s", name, old, new)
		}
	}
	for _, name := range required {
		if !bHas[name] && (declares(a, name) || b.Properties[name] != nil) {
			old, new := c.oldNew("required", "optional")
			c.report(pointer+"/required", "required", Compatible, "property %q: %s → %s", name, old, new)
		}
	}
	lo, hi := count(a, func(n *jsonschema.Schema) (*int, *int) { return n.MinProperties, n.MaxProperties })
	if hi == 0 {
		// The values have no property: what applies to properties holds.
		c.bounds(pointer, "minProperties", "maxProperties", lo, hi, b.MinProperties, b.MaxProperties)
		return
	}
	names := map[string]bool{}
	for _, n := range a.nodes {
		for name := range n.Properties {
			names[name] = true
		}
	}
	for name := range b.Properties {
		names[name] = true
	}
	if !c.step(len(names)) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		c.property(a, b, name, pointer, depth)
	}
	c.undeclared(a, b, pointer, depth)

	bLo := b.MinProperties
	if bLo != nil && *bLo <= max(lo, len(required)) && lo < *bLo {
		bLo = nil // the required properties already make that many
	}
	c.bounds(pointer, "minProperties", "maxProperties", lo, hi, bLo, b.MaxProperties)

	if b.PropertyNames != nil && !isTrue(b.PropertyNames) {
		var from []*jsonschema.Schema
		for _, n := range a.nodes {
			if n.PropertyNames != nil {
				from = append(from, n.PropertyNames)
			}
		}
		if closed := c.closedNames(a); closed != nil {
			for _, name := range closed {
				if c.admits(c.to, b.PropertyNames, name, depth) != yes {
					c.report(pointer+"/propertyNames", "propertyNames", Breaking, "propertyNames: property name %q is not accepted", name)
				}
			}
		} else {
			c.inside(append(from, typeNodes["string"]), b.PropertyNames, pointer+"/propertyNames", depth+1)
		}
	}
	for name, deps := range dependentRequired(b) {
		if slices.ContainsFunc(c.propSchemas(a, name), isFalse) {
			continue // no value has the property
		}
		for _, d := range deps {
			if has[d] || slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool { return slices.Contains(dependentRequired(n)[name], d) }) {
				continue
			}
			c.report(pointer+"/dependentRequired/"+quoteName(name), "dependentRequired", Breaking, "dependentRequired: property %q needs %q", name, d)
		}
	}
	for name, ds := range dependentSchemas(b) {
		from := slices.Clone(a.nodes)
		for _, n := range a.nodes {
			if s := dependentSchemas(n)[name]; s != nil {
				from = append(from, s)
			}
		}
		c.checkConj(from, ds, pointer+"/dependentSchemas/"+quoteName(name), depth+1)
	}
	if b.UnevaluatedProperties != nil && !isTrue(b.UnevaluatedProperties) {
		c.report(pointer+"/unevaluatedProperties", "unevaluatedProperties", Unknown, "unevaluatedProperties is not compared")
	}
}

// closedNames returns the only property names a's values may have, or nil
// when they may have others.
func (c *checker) closedNames(a alternative) []string {
	for _, n := range a.nodes {
		if isFalse(n.AdditionalProperties) && n.PatternProperties == nil {
			return slices.Sorted(maps.Keys(n.Properties))
		}
	}
	return nil
}

// property compares the schemas that apply to one named property.
func (c *checker) property(a alternative, b *jsonschema.Schema, name, pointer string, depth int) {
	at := pointer + "/properties/" + quoteName(name)
	from := c.propSchemas(a, name)
	if slices.ContainsFunc(from, isFalse) {
		if _, ok := b.Properties[name]; ok && !declares(a, name) {
			if c.forward {
				c.report(at, "properties", Compatible, "property %q removed", name)
			} else {
				c.report(at, "properties", Compatible, "property %q added", name)
			}
		}
		return // no value has it
	}
	var to []*jsonschema.Schema
	var tos []string
	if s, ok := b.Properties[name]; ok {
		to, tos = append(to, s), append(tos, at)
	}
	for p, s := range b.PatternProperties {
		if re := c.patterns.compile(p); re == nil {
			c.report(pointer+"/patternProperties", "patternProperties", Unknown, "pattern %q cannot be read", p)
		} else if re.MatchString(name) {
			to, tos = append(to, s), append(tos, pointer+"/patternProperties/"+quoteName(p))
		}
	}
	declared := declares(a, name)
	if to == nil {
		switch add := b.AdditionalProperties; {
		case add == nil:
			if declared {
				if c.forward {
					c.report(at, "properties", Compatible, "property %q added (it was accepted with any value)", name)
				} else {
					c.report(at, "properties", Compatible, "property %q removed (it is still accepted, with any value)", name)
				}
			}
		case isFalse(add):
			if c.forward {
				c.report(at, "properties", Breaking, "property %q added, but the old schema refuses undeclared properties", name)
			} else {
				c.report(at, "properties", Breaking, "property %q removed, and undeclared properties are refused", name)
			}
		default:
			c.inside(from, add, at, depth+1)
		}
		return
	}
	if !declared && len(from) == 0 {
		if c.declaredOnly {
			if c.forward {
				c.report(at, "properties", Compatible, "property %q removed", name)
			} else {
				c.report(at, "properties", Compatible, "property %q added", name)
			}
			return
		}
		ok := c.trial(func() {
			for i, s := range to {
				c.inside(nil, s, tos[i], depth+1)
			}
		})
		if !ok {
			if c.forward {
				c.report(at, "properties", Breaking, "property %q removed: the new schema accepts any value there (the object is open)", name)
			} else {
				what := "call"
				if c.output {
					what = "result"
				}
				c.report(at, "properties", Breaking, "property %q added to an open object: an old %s may hold it with any value (close the object with additionalProperties: false)", name, what)
			}
		}
		return
	}
	if !declared {
		if c.forward {
			c.report(at, "properties", Compatible, "property %q removed", name)
		} else {
			c.report(at, "properties", Compatible, "property %q added", name)
		}
	}
	for i, s := range to {
		c.inside(from, s, tos[i], depth+1)
	}
}

// undeclared compares what the two schemas say of properties neither
// declares.
func (c *checker) undeclared(a alternative, b *jsonschema.Schema, pointer string, depth int) {
	if c.declaredOnly && !slices.ContainsFunc(a.nodes, func(n *jsonschema.Schema) bool {
		return len(n.PatternProperties) > 0 || n.AdditionalProperties != nil && !isTrue(n.AdditionalProperties)
	}) {
		return // nothing declared of other properties: callers send none
	}
	var adds []*jsonschema.Schema
	aPatterns := map[string][]*jsonschema.Schema{}
	for _, n := range a.nodes {
		if n.AdditionalProperties != nil {
			adds = append(adds, n.AdditionalProperties)
		}
		for p, s := range n.PatternProperties {
			aPatterns[p] = append(aPatterns[p], s)
		}
	}
	closed := slices.ContainsFunc(adds, isFalse)
	same := len(aPatterns) == len(b.PatternProperties)
	for p := range b.PatternProperties {
		if _, ok := aPatterns[p]; !ok {
			same = false
		}
	}
	for _, p := range slices.Sorted(maps.Keys(aPatterns)) {
		at := pointer + "/patternProperties/" + quoteName(p)
		switch s, ok := b.PatternProperties[p]; {
		case ok:
			c.inside(aPatterns[p], s, at, depth+1)
		case len(b.PatternProperties) == 0:
			if b.AdditionalProperties != nil {
				c.inside(aPatterns[p], b.AdditionalProperties, at, depth+1)
			}
		default:
			c.report(at, "patternProperties", Unknown, "patternProperties differ; cannot tell which properties each now covers")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(b.PatternProperties)) {
		if _, ok := aPatterns[p]; ok || closed && len(aPatterns) == 0 {
			continue
		}
		at := pointer + "/patternProperties/" + quoteName(p)
		if len(aPatterns) == 0 {
			c.inside(adds, b.PatternProperties[p], at, depth+1)
		} else if same {
			continue
		} else {
			c.report(at, "patternProperties", Unknown, "patternProperties differ; cannot tell which properties each now covers")
		}
	}
	add := b.AdditionalProperties
	if closed || add == nil || isTrue(add) {
		if closed && add != nil && !isFalse(add) && !isTrue(add) {
			return
		}
		if closed && (add == nil || isTrue(add)) {
			c.changed(pointer+"/additionalProperties", "additionalProperties", Compatible, "false", "any")
		}
		return
	}
	if !same && len(aPatterns) > 0 {
		return // reported above
	}
	if isFalse(add) {
		c.changed(pointer+"/additionalProperties", "additionalProperties", Breaking, "any", "false")
		return
	}
	c.inside(adds, add, pointer+"/additionalProperties", depth+1)
}
