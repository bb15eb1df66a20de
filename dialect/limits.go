package dialect

// checkRecursion reports the recursive types a dialect rejects: every one
// for Anthropic's strict tool use, and for Gemini's JSON Schema those whose
// recursion passes through no optional property.
func (c *conversion) checkRecursion(root any) {
	ro, ok := root.(*ordObject)
	if !ok {
		return
	}
	type frame struct {
		node     *ordObject
		optional int // optional properties crossed when the frame began
	}
	stack := []frame{{ro, 0}}
	done := map[*ordObject]bool{}
	var walk func(v any, path string, optional int)
	walk = func(v any, path string, optional int) {
		o, ok := v.(*ordObject)
		if !ok {
			return
		}
		if ref := o.str("$ref"); ref != "" {
			if t, tpath, ok := c.resolve(ref); ok {
				cycle := false
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].node != t {
						continue
					}
					cycle = true
					switch {
					case c.d.has(NoRecursion):
						c.cycles[path] = true
						c.fail(fixRecursion, path, "$ref", "$ref refers back to %s, a recursive type; %s rejects recursive schemas, so the reference is left out", refName(ref), c.d.provider())
					case optional <= stack[i].optional:
						c.cycles[path] = true
						c.fail(fixRecursionOptional, path, "$ref", "$ref refers back to %s through required properties only; %s unrolls a recursive type only within optional properties (nullable is not enough), so the reference is left out", refName(ref), c.d.provider())
					}
					break
				}
				if !cycle && !done[t] {
					stack = append(stack, frame{t, optional})
					walk(t, tpath, optional)
					stack = stack[:len(stack)-1]
					done[t] = true
				}
			}
		}
		required := stringSet(o.vals["required"])
		eachSubschema(o, path, func(k, name string, child any, childPath string) {
			switch k {
			case "$defs", "definitions":
				return // reached through references
			case "properties":
				if !required[name] {
					walk(child, childPath, optional+1)
					return
				}
			}
			walk(child, childPath, optional)
		})
	}
	walk(ro, "", 0)
}

// checkLimits reports the limits a schema exceeds.
func (c *conversion) checkLimits(root any) {
	d := c.d
	ro, ok := root.(*ordObject)
	if !ok {
		return
	}
	var properties, enums, strlen int
	walkSchemas(ro, "", func(o *ordObject, path string) {
		if props := o.obj("properties"); props != nil {
			properties += len(props.keys)
			for _, k := range props.keys {
				strlen += len([]rune(k))
			}
		}
		for _, k := range []string{"$defs", "definitions"} {
			if defs := o.obj(k); defs != nil {
				for _, name := range defs.keys {
					strlen += len([]rune(name))
				}
			}
		}
		if e, ok := o.vals["enum"].([]any); ok {
			enums += len(e)
			total, allStrings := 0, true
			for _, v := range e {
				if s, ok := v.(string); ok {
					total += len([]rune(s))
				} else if v != nil {
					allStrings = false
				}
			}
			strlen += total
			if d.MaxEnumStringLength > 0 && allStrings && len(e) > d.LargeEnum && total > d.MaxEnumStringLength {
				c.fail(fixEnumSize, path, "enum", "the enum's %d values have %d characters in all; %s accepts at most %d for an enum of more than %d values", len(e), total, c.d.provider(), d.MaxEnumStringLength, d.LargeEnum)
			}
		}
		if s, ok := o.vals["const"].(string); ok {
			strlen += len([]rune(s))
		}
	})
	if d.MaxProperties > 0 && properties > d.MaxProperties {
		c.fail(fixSplit, "", "properties", "the schema has %d object properties in all; %s accepts at most %d", properties, c.d.provider(), d.MaxProperties)
	}
	if d.MaxEnumValues > 0 && enums > d.MaxEnumValues {
		c.fail(fixEnumSize, "", "enum", "the schema has %d enum values in all; %s accepts at most %d", enums, c.d.provider(), d.MaxEnumValues)
	}
	if d.MaxStringLength > 0 && strlen > d.MaxStringLength {
		c.fail(fixSplit, "", "properties", "the property names, definition names, enum and const values have %d characters in all; %s accepts at most %d", strlen, c.d.provider(), d.MaxStringLength)
	}
	optional, unions := countOptionalAndUnions(ro)
	if d.MaxOptionalProperties > 0 && optional > d.MaxOptionalProperties {
		c.fail(fixOptional, "", "required", "the schema has %d optional properties; %s accepts at most %d per request", optional, c.d.provider(), d.MaxOptionalProperties)
	}
	if d.MaxUnionProperties > 0 && unions > d.MaxUnionProperties {
		c.fail(fixUnions, "", "anyOf", "the schema has %d properties with a union type (anyOf or a list of types); %s accepts at most %d per request", unions, c.d.provider(), d.MaxUnionProperties)
	}
	if d.MaxDepth > 0 {
		c.checkDepth(ro)
	}
}

// checkDepth reports the first object of each branch nested deeper than
// MaxDepth, following references but not the recursion of a recursive type.
func (c *conversion) checkDepth(root *ordObject) {
	deepest := map[*ordObject]int{}
	var stack []*ordObject
	var walk func(o *ordObject, path string, depth int)
	walk = func(o *ordObject, path string, depth int) {
		if d, ok := deepest[o]; ok && d >= depth {
			return
		}
		deepest[o] = depth
		if isObjectSchema(o) {
			depth++
			if depth > c.d.MaxDepth {
				c.fail(fixDepth, path, "properties", "objects nest %d levels deep here; %s accepts at most %d", depth, c.d.provider(), c.d.MaxDepth)
				return
			}
		}
		if ref := o.str("$ref"); ref != "" {
			if t, tpath, ok := c.resolve(ref); ok && !containsObject(stack, t) && t != root {
				stack = append(stack, t)
				walk(t, tpath, depth)
				stack = stack[:len(stack)-1]
			}
		}
		eachSubschema(o, path, func(k, _ string, child any, childPath string) {
			if k == "$defs" || k == "definitions" {
				return
			}
			if co, ok := child.(*ordObject); ok {
				walk(co, childPath, depth)
			}
		})
	}
	walk(root, "", 0)
}

// countOptionalAndUnions counts, in every object of a schema, the
// properties not listed in required and those whose schema is a union.
func countOptionalAndUnions(root any) (optional, unions int) {
	ro, ok := root.(*ordObject)
	if !ok {
		return 0, 0
	}
	walkSchemas(ro, "", func(o *ordObject, _ string) {
		props := o.obj("properties")
		if props == nil {
			return
		}
		required := stringSet(o.vals["required"])
		for _, name := range props.keys {
			if !required[name] {
				optional++
			}
			if p, ok := props.vals[name].(*ordObject); ok {
				t, _ := p.vals["type"].([]any)
				if p.has("anyOf") || p.has("oneOf") || len(t) > 1 {
					unions++
				}
			}
		}
	})
	return optional, unions
}
