package dialect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// cutMark is what the walk returns for a schema the dialect cannot express:
// the property, item or branch holding it is left out.
var cutMark = &ordObject{}

// A conversion is the state of one Convert.
type conversion struct {
	d        *Dialect
	root     any
	problems []Problem
	seen     map[Problem]bool
	inlining []*ordObject    // Gemini: the schemas being written out inline, innermost last
	cycles   map[string]bool // the paths of the references that close a rejected cycle
	inlined  int             // Gemini: how many references have been written out inline
}

// maxInlined bounds how many references one conversion writes out inline,
// since definitions that refer to each other twice over grow exponentially.
const maxInlined = 10000

// A nodeContext says where a schema sits.
type nodeContext struct {
	root    bool // the root schema
	overlay bool // the siblings of an inlined $ref: only their own keywords
}

func (d *Dialect) convert(s *jsonschema.Schema) (any, []Problem) {
	c := &conversion{d: d, seen: map[Problem]bool{}, cycles: map[string]bool{}}
	root, err := parseSchemaValue(s)
	if err != nil {
		c.report(SeverityError, "", "", "the schema cannot be read: %v", err)
		return nil, c.problems
	}
	c.root = root
	c.checkRoot(root)
	var out any
	if d.Keywords == nil {
		out = cloneOrd(root)
	} else {
		if d.Passes&(NoRecursion|RecurseThroughOptional) != 0 {
			c.checkRecursion(root)
		}
		if o, ok := root.(*ordObject); ok && d.has(InlineRefs) {
			c.inlining = []*ordObject{o}
		}
		out = c.value(root, "", nodeContext{root: true})
	}
	c.checkLimits(root)
	o, ok := out.(*ordObject)
	if !ok || o == cutMark {
		o = newOrdObject()
		o.set("type", "object")
	}
	if d.has(OmitEmptyRoot) {
		if props := o.obj("properties"); props == nil || len(props.keys) == 0 {
			return nil, c.problems
		}
	}
	return o, c.problems
}

// report records a problem once.
func (c *conversion) report(sev Severity, path, keyword, format string, args ...any) {
	p := Problem{Dialect: c.d.Name, Path: path, Keyword: keyword, Severity: sev, Message: fmt.Sprintf(format, args...)}
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.problems = append(c.problems, p)
}

// fail records an error, with what the tool's author can do about it.
func (c *conversion) fail(fix, path, keyword, format string, args ...any) {
	p := Problem{Dialect: c.d.Name, Path: path, Keyword: keyword, Severity: SeverityError, Message: fmt.Sprintf(format, args...), Fix: fix}
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.problems = append(c.problems, p)
}

func (c *conversion) folded(path, keyword string, value any) {
	c.report(SeverityFolded, path, keyword, "%s %s is not carried by %s; the description says it instead", keyword, shortJSON(value), c.d.provider())
}

func (c *conversion) rejected(path, keyword string) {
	c.fail(fixKeyword, path, keyword, "%s is not supported by %s and is left out", keyword, c.d.provider())
}

// checkRoot reports a root that is not an object schema, or that uses a
// composition keyword the dialect rejects at the top level.
func (c *conversion) checkRoot(root any) {
	o, ok := root.(*ordObject)
	if !ok {
		c.fail(fixRoot, "", "type", "the root must be an object schema (type: object), not %v", root)
		return
	}
	if t, _ := o.get("type"); t != "object" {
		c.fail(fixRoot, "", "type", "the root must have type object for %s, not %s", c.d.provider(), shortJSON(t))
	}
	for _, k := range c.d.NotAtRoot {
		if o.has(k) {
			c.fail(fixRootComposition, "", k, "%s does not accept %s at the top level of a tool's schema", c.d.provider(), k)
		}
	}
}

// value converts one schema.
func (c *conversion) value(v any, path string, ctx nodeContext) any {
	switch v := v.(type) {
	case bool:
		if v && c.d.has(TypedValues) {
			c.fail(fixAny, path, "type", "a value of any type cannot be expressed in %s; it is left out", c.d.provider())
			return cutMark
		}
		return v
	case *ordObject:
		return c.object(v, path, ctx)
	}
	return cloneOrd(v)
}

// object converts one schema object. When the schema is left out, the
// folds reported inside it are withdrawn: nothing carries them.
func (c *conversion) object(in *ordObject, path string, ctx nodeContext) any {
	start := len(c.problems)
	out := c.objectBody(in, path, ctx)
	if out != cutMark {
		return out
	}
	kept := c.problems[:start]
	for _, p := range c.problems[start:] {
		if p.Severity == SeverityFolded && (p.Path == path || strings.HasPrefix(p.Path, path+"/")) {
			delete(c.seen, p)
			continue
		}
		kept = append(kept, p)
	}
	c.problems = kept
	return out
}

// An objectState is what the keywords of one schema object leave for the
// passes that finish it.
type objectState struct {
	out      *ordObject
	notes    *foldNotes
	nullable bool // OpenAPITypes: a null branch was dropped from anyOf
	single   any  // OpenAPITypes: the one branch left in anyOf
	openMap  bool // additionalProperties allows properties not listed
}

// objectBody converts one schema object: each keyword in the order the
// schema lists them, then the passes that look at the object as a whole.
func (c *conversion) objectBody(in *ordObject, path string, ctx nodeContext) any {
	if c.d.has(InlineRefs) && in.has("$ref") && !ctx.overlay {
		return c.inline(in, path, ctx)
	}
	st := &objectState{out: newOrdObject(), notes: &foldNotes{}}
	for _, k := range in.keys {
		if ctx.root && slices.Contains(c.d.NotAtRoot, k) {
			continue // reported by checkRoot
		}
		if !c.keyword(st, in, path, k, in.vals[k]) {
			return cutMark
		}
	}
	if ctx.overlay {
		st.notes.apply(st.out)
		return st.out
	}
	return c.finish(st, path, ctx)
}

// keyword converts keyword k, of value v, of the schema object in into
// st.out. It reports false when the whole schema must be left out.
func (c *conversion) keyword(st *objectState, in *ordObject, path, k string, v any) bool {
	switch k {
	case "$ref":
		return c.ref(st, path, k, v)
	case "$defs", "definitions":
		c.defs(st, path, k, v)
	case "properties":
		c.properties(st, path, k, v)
	case "required", "type", "enum", "const":
		st.out.set(k, cloneOrd(v))
	case "items":
		return c.items(st, path, k, v)
	case "prefixItems":
		return c.prefixItems(st, path, k, v)
	case "additionalProperties":
		c.additionalProperties(st, path, k, v)
	case "anyOf", "oneOf":
		return c.alternatives(st, in, path, k, v)
	case "allOf":
		c.allOf(st, path, k, v)
	case "format":
		c.format(st, path, k, v)
	case "pattern":
		c.pattern(st, path, k, v)
	case "minItems":
		c.minItems(st, path, k, v)
	default:
		c.simple(st.out, st.notes, path, k, v)
	}
	return true
}

// ref keeps a local $ref; it reports false for the reference that closes a
// cycle the dialect rejects.
func (c *conversion) ref(st *objectState, path, k string, v any) bool {
	if c.cycles[path] {
		return false // reported by checkRecursion
	}
	if ref, _ := v.(string); !strings.HasPrefix(ref, "#") {
		c.fail(fixRef, path, k, "the reference %q is not local; %s resolves only references into the schema itself", ref, c.d.provider())
		return true
	}
	st.out.set(k, v)
	return true
}

// defs converts each definition of $defs (or definitions); a definition
// left out becomes {}, so that references to it still resolve.
func (c *conversion) defs(st *objectState, path, k string, v any) {
	if c.d.has(InlineRefs) {
		return // written out where they are used
	}
	defs, ok := v.(*ordObject)
	if !ok {
		c.rejected(path, k)
		return
	}
	kp := pointerJoin(path, k)
	nd := newOrdObject()
	for _, name := range defs.keys {
		cv := c.value(defs.vals[name], pointerJoin(kp, name), nodeContext{})
		if cv == cutMark {
			cv = newOrdObject()
		}
		nd.set(name, cv)
	}
	st.out.set(k, nd)
}

// properties converts each property's schema, checks its name against the
// dialect's rules, and leaves out the properties whose schema is left out.
func (c *conversion) properties(st *objectState, path, k string, v any) {
	props, ok := v.(*ordObject)
	if !ok {
		c.rejected(path, k)
		return
	}
	kp := pointerJoin(path, k)
	np := newOrdObject()
	for _, name := range props.keys {
		pp := pointerJoin(kp, name)
		if msg := c.d.PropertyNames.check(name, c.d.provider()); msg != "" {
			c.fail(fixPropertyName, pp, "properties", "the property name %q %s", name, msg)
		}
		cv := c.value(props.vals[name], pp, nodeContext{})
		if cv == cutMark {
			continue
		}
		np.set(name, cv)
	}
	st.out.set(k, np)
}

// items converts the schema of an array's items; it reports false when
// that schema is left out, and so the array.
func (c *conversion) items(st *objectState, path, k string, v any) bool {
	if _, tuple := v.([]any); tuple {
		c.fail(fixTuple, path, k, "%s does not accept items as a list of schemas (a tuple); it is left out", c.d.provider())
		return true
	}
	cv := c.value(v, pointerJoin(path, k), nodeContext{})
	if cv == cutMark {
		return false
	}
	st.out.set(k, cv)
	return true
}

// prefixItems converts the schemas of a tuple's items; it reports false
// when one of them is left out, and so the tuple.
func (c *conversion) prefixItems(st *objectState, path, k string, v any) bool {
	if c.d.Keywords[k] != Keep {
		c.rejected(path, k)
		return true
	}
	kp := pointerJoin(path, k)
	items, _ := v.([]any)
	var ni []any
	for i, item := range items {
		cv := c.value(item, pointerJoin(kp, strconv.Itoa(i)), nodeContext{})
		if cv == cutMark {
			return false
		}
		ni = append(ni, cv)
	}
	st.out.set(k, ni)
	return true
}

// additionalProperties keeps false, converts a schema where the dialect
// keeps the keyword, and otherwise marks the object an open map, which the
// dialect cannot express.
func (c *conversion) additionalProperties(st *objectState, path, k string, v any) {
	if v == false {
		st.out.set(k, false)
		return
	}
	if c.d.Keywords[k] == Keep {
		if cv := c.value(v, pointerJoin(path, k), nodeContext{}); cv != cutMark {
			st.out.set(k, cv)
		}
		return
	}
	st.openMap = true
	c.fail(fixMap, path, k, "%s cannot express a map (additionalProperties %s); the map is left out", c.d.provider(), shortJSON(v))
}

// alternatives converts anyOf or oneOf: oneOf as anyOf (OneOfAsAnyOf), a
// null branch as nullable and a lone branch kept for merging
// (OpenAPITypes). It reports false when no branch but null is left.
func (c *conversion) alternatives(st *objectState, in *ordObject, path, k string, v any) bool {
	d := c.d
	branches, ok := v.([]any)
	if !ok {
		c.rejected(path, k)
		return true
	}
	key := k
	if k == "oneOf" && !d.has(OneOfAsAnyOf) && d.Keywords[k] != Keep {
		c.rejected(path, k)
		return true
	}
	if k == "oneOf" && d.has(OneOfAsAnyOf) {
		if in.has("anyOf") {
			c.fail(fixOneOf, path, k, "%s cannot write oneOf as anyOf next to another anyOf; oneOf is left out", d.provider())
			return true
		}
		key = "anyOf"
	}
	kp := pointerJoin(path, k)
	var nb []any
	cut := false
	for i, b := range branches {
		if d.has(OpenAPITypes) && isNullSchema(b) {
			st.nullable = true
			continue
		}
		cv := c.value(b, pointerJoin(kp, strconv.Itoa(i)), nodeContext{})
		if cv == cutMark {
			cut = true
			continue
		}
		nb = append(nb, cv)
	}
	alternatives := 0
	for _, b := range nb {
		if !isNullSchema(b) {
			alternatives++
		}
	}
	if cut && alternatives == 0 {
		return false // only null is left
	}
	if key != k && alternatives > 1 {
		st.notes.add(k, true)
		c.report(SeverityFolded, path, k, "oneOf is not carried by %s; it is written as anyOf and the description says that exactly one alternative applies", d.provider())
	}
	switch {
	case len(nb) == 0:
		if st.nullable && !cut {
			c.fail(fixNull, path, k, "a value that can only be null cannot be expressed in %s; it is left out", d.provider())
		}
		return false
	case d.has(OpenAPITypes) && len(nb) == 1:
		st.single = nb[0]
	default:
		st.out.set(key, nb)
	}
	return true
}

// allOf converts the branches of allOf, leaving out those left out, and
// the whole keyword when a branch holds a $ref (NoRefInAllOf).
func (c *conversion) allOf(st *objectState, path, k string, v any) {
	if c.d.Keywords[k] != Keep {
		c.rejected(path, k)
		return
	}
	kp := pointerJoin(path, k)
	branches, _ := v.([]any)
	var nb []any
	withRef := false
	for i, b := range branches {
		if bo, ok := b.(*ordObject); ok && bo.has("$ref") {
			withRef = true
		}
		if cv := c.value(b, pointerJoin(kp, strconv.Itoa(i)), nodeContext{}); cv != cutMark {
			nb = append(nb, cv)
		}
	}
	if withRef && c.d.has(NoRefInAllOf) {
		c.fail(fixKeyword, path, k, "%s does not accept $ref inside allOf; allOf is left out", c.d.provider())
		return
	}
	st.out.set(k, nb)
}

// format keeps a format the dialect lists, and folds any other.
func (c *conversion) format(st *objectState, path, k string, v any) {
	if f, _ := v.(string); c.d.Formats != nil && !slices.Contains(c.d.Formats, f) {
		st.notes.add(k, v)
		c.folded(path, k, v)
		return
	}
	st.out.set(k, v)
}

// pattern folds a pattern that uses what the provider's regular
// expressions lack (PlainPatterns), and otherwise follows the table.
func (c *conversion) pattern(st *objectState, path, k string, v any) {
	if !c.d.has(PlainPatterns) || c.d.Keywords[k] != Keep {
		c.simple(st.out, st.notes, path, k, v)
		return
	}
	if s, _ := v.(string); !plainPattern(s) {
		st.notes.add(k, v)
		c.report(SeverityFolded, path, k, "the pattern uses a regular-expression feature %s does not support (backreferences, look-arounds, word boundaries); the description says it instead", c.d.provider())
		return
	}
	st.out.set(k, v)
}

// minItems writes a minItems above 1 as 1 and folds the rest
// (MinItemsZeroOrOne), and otherwise follows the table.
func (c *conversion) minItems(st *objectState, path, k string, v any) {
	if !c.d.has(MinItemsZeroOrOne) || c.d.Keywords[k] != Keep {
		c.simple(st.out, st.notes, path, k, v)
		return
	}
	if n, ok := v.(json.Number); ok && n != "0" && n != "1" {
		st.out.set(k, json.Number("1"))
		st.notes.add(k, v)
		c.report(SeverityFolded, path, k, "%s accepts minItems 0 or 1 only; minItems %s is written as 1 and the description says the rest", c.d.provider(), n)
		return
	}
	st.out.set(k, v)
}

// finish applies the passes that look at a converted schema object as a
// whole, in their fixed order, and returns it, or cutMark.
func (c *conversion) finish(st *objectState, path string, ctx nodeContext) any {
	d := c.d
	out := st.out
	if st.single != nil {
		merged, ok := mergeSingle(out, st.single)
		if !ok {
			return st.single
		}
		out = merged
	}
	if d.has(OpenAPITypes) && !c.openAPIType(out, path, st.nullable) {
		return cutMark
	}
	c.enums(out, path, st.notes)
	if !c.objects(out, path, ctx, st.openMap) {
		return cutMark
	}
	if !ctx.root && d.has(TypedValues) && !c.typed(out, path) {
		return cutMark
	}
	st.notes.apply(out)
	if d.has(WrapRefSiblings) && out.has("$ref") {
		out = wrapRef(out)
	}
	if d.has(StripRefSiblings) && out.has("$ref") {
		out = c.stripRef(out, path)
	}
	if d.has(StringNumberEnums) {
		out = splitNullEnum(out)
	}
	return out
}

// mergeSingle merges the keywords of out into a copy of single, the one
// branch left of an anyOf (OpenAPITypes). It reports false when single is
// not a schema object, which then stands for the whole schema.
func mergeSingle(out *ordObject, single any) (*ordObject, bool) {
	b, ok := single.(*ordObject)
	if !ok {
		return nil, false
	}
	merged := cloneOrd(b).(*ordObject)
	for _, k := range out.keys {
		merged.set(k, out.vals[k])
	}
	return merged, true
}

// typed reports whether a schema that is not the root says what type its
// value has (TypedValues); one that does not is an error, and left out.
func (c *conversion) typed(out *ordObject, path string) bool {
	if hasTypeInfo(out) {
		return true
	}
	c.fail(fixAny, path, "type", "a value of any type cannot be expressed in %s; it is left out", c.d.provider())
	return false
}

// simple applies the dialect's table to a keyword that needs no rewriting.
func (c *conversion) simple(out *ordObject, notes *foldNotes, path, k string, v any) {
	switch c.d.Keywords[k] {
	case Keep:
		out.set(k, cloneOrd(v))
	case Fold:
		notes.add(k, v)
		c.folded(path, k, v)
	case Reject:
		c.rejected(path, k)
	}
}

// inline writes out the target of a $ref in place, for Gemini, which has
// no references. A recursive type is written out RecursionDepth times
// inside itself, then cut.
func (c *conversion) inline(in *ordObject, path string, ctx nodeContext) any {
	ref := in.str("$ref")
	target, tpath, ok := c.resolve(ref)
	if !ok {
		c.fail(fixRef, path, "$ref", "the reference %q cannot be resolved; it is left out", ref)
		return cutMark
	}
	depth := 0
	for _, o := range c.inlining {
		if o == target {
			depth++
		}
	}
	if depth > 0 {
		c.fail(fixRecursion, path, "$ref", "$ref refers back to %s, a recursive type; %s has no $ref, so the type is written out %d more level(s) inside itself and the recursion is cut", refName(ref), c.d.provider(), c.d.RecursionDepth)
		if depth > c.d.RecursionDepth {
			return cutMark
		}
	}
	if c.inlined++; c.inlined > maxInlined {
		c.fail(fixInline, "", "$ref", "the schema grows beyond %d references written out inline; the rest are left out", maxInlined)
		return cutMark
	}
	c.inlining = append(c.inlining, target)
	got := c.value(target, tpath, nodeContext{})
	c.inlining = c.inlining[:len(c.inlining)-1]
	if got == cutMark || len(in.keys) == 1 {
		return got
	}
	o, ok := got.(*ordObject)
	if !ok {
		return got
	}
	siblings := newOrdObject()
	for _, k := range in.keys {
		if k != "$ref" {
			siblings.set(k, in.vals[k])
		}
	}
	over := c.object(siblings, path, nodeContext{overlay: true}).(*ordObject)
	for _, k := range over.keys {
		o.set(k, over.vals[k])
	}
	return o
}

// resolve returns the schema a local reference points to and its path.
func (c *conversion) resolve(ref string) (*ordObject, string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, "", false
	}
	ptr := ref[1:]
	var v any = c.root
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, "", false // an anchor
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch cur := v.(type) {
			case *ordObject:
				next, ok := cur.get(tok)
				if !ok {
					return nil, "", false
				}
				v = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(cur) {
					return nil, "", false
				}
				v = cur[i]
			default:
				return nil, "", false
			}
		}
	}
	o, ok := v.(*ordObject)
	return o, ptr, ok
}

// openAPIType writes the type as Gemini's Schema does: one upper-case type,
// and nullable: true for null. It reports false when nothing is left.
func (c *conversion) openAPIType(out *ordObject, path string, nullable bool) bool {
	var types []string
	switch t := out.vals["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				types = append(types, s)
			}
		}
	}
	var nonNull []string
	for _, t := range types {
		if strings.EqualFold(t, "null") {
			nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	switch {
	case len(nonNull) == 0 && len(types) > 0:
		c.fail(fixNull, path, "type", "a value that can only be null cannot be expressed in %s; it is left out", c.d.provider())
		return false
	case len(nonNull) > 1:
		c.fail(fixTypes, path, "type", "%s takes one type per schema; of %s only %s is kept", c.d.provider(), strings.Join(nonNull, ", "), nonNull[0])
	}
	if len(nonNull) > 0 {
		out.set("type", strings.ToUpper(nonNull[0]))
	}
	if nullable {
		out.setAfter("nullable", true, "type")
	}
	return true
}

// enums rewrites enum and const for the dialect.
func (c *conversion) enums(out *ordObject, path string, notes *foldNotes) {
	if c.d.has(ScalarEnums) {
		if e, ok := out.vals["enum"].([]any); ok && !allPrimitive(e) {
			out.del("enum")
			c.fail(fixEnum, path, "enum", "%s accepts enum values of strings, numbers, booleans and null only; enum is left out", c.d.provider())
		}
		if v, ok := out.get("const"); ok && !allPrimitive([]any{v}) {
			out.del("const")
			c.fail(fixEnum, path, "const", "%s accepts a const of a string, number, boolean or null only; const is left out", c.d.provider())
		}
	}
	if c.d.has(ConstAsEnum) {
		if v, ok := out.get("const"); ok {
			out.del("const")
			switch v.(type) {
			case string, json.Number:
				if !out.has("enum") {
					out.set("enum", []any{v})
				}
			default:
				if c.d.has(StringNumberEnums) {
					notes.add("const", v)
					c.folded(path, "const", v)
				} else if !out.has("enum") {
					out.set("enum", []any{v})
				}
			}
		}
	}
	switch {
	case c.d.has(StringEnums):
		c.stringEnums(out, path, notes)
	case c.d.has(StringNumberEnums):
		if e, ok := out.vals["enum"].([]any); ok {
			for _, v := range e {
				switch v.(type) {
				case nil, string, json.Number:
					continue
				}
				out.del("enum")
				notes.add("enum", nonNull(e))
				c.report(SeverityFolded, path, "enum", "%s accepts enums of strings and numbers only; the description lists the values instead", c.d.provider())
				break
			}
		}
	}
}

// stringEnums keeps an enum of strings and folds any other into the
// description. Gemini's Schema documents enum for Type.STRING only, and
// answers 400 to an enum on INTEGER or NUMBER, even with its values written
// as strings and format "enum". Writing a numeric enum as a string enum
// would make the model send strings the tool's type refuses, and need a
// mapping back on every call; folded, the model reads the values, sends a
// number, and the validator still enforces the enum.
func (c *conversion) stringEnums(out *ordObject, path string, notes *foldNotes) {
	e, ok := out.vals["enum"].([]any)
	if !ok {
		return
	}
	var strs, nums, others []any
	for _, v := range e {
		switch v := v.(type) {
		case nil:
			out.setAfter("nullable", true, "type")
		case string:
			strs = append(strs, v)
		case json.Number:
			nums = append(nums, v)
		default:
			others = append(others, v)
		}
	}
	switch {
	case len(others) > 0 || len(strs) > 0 && len(nums) > 0:
		out.del("enum")
		notes.add("enum", nonNull(e))
		c.report(SeverityFolded, path, "enum", "%s accepts enums of strings only; the description lists the values instead", c.d.provider())
	case len(nums) > 0:
		out.del("enum")
		notes.add("enum", nums)
		c.report(SeverityFolded, path, "enum", "%s accepts an enum only on a string; the description lists the values instead", c.d.provider())
	case len(strs) > 0:
		out.set("enum", strs)
	default:
		out.del("enum")
	}
}

// objects applies the dialect's rules for objects. It reports false when
// the object cannot be expressed.
func (c *conversion) objects(out *ordObject, path string, ctx nodeContext, openMap bool) bool {
	if !isObjectSchema(out) {
		return true
	}
	props := out.obj("properties")
	empty := props == nil || len(props.keys) == 0
	if c.d.has(CloseObjects) {
		if openMap && empty && !ctx.root {
			return false
		}
		if ap, ok := out.get("additionalProperties"); !ok || ap != false {
			out.set("additionalProperties", false)
		}
	}
	if c.d.has(RequireAll) && props != nil {
		required := stringSet(out.vals["required"])
		all := make([]any, 0, len(props.keys))
		for _, name := range props.keys {
			if !required[name] {
				props.vals[name] = nullableSchema(props.vals[name])
			}
			all = append(all, name)
		}
		out.setBefore("required", all, "additionalProperties")
	}
	if c.d.has(OpenAPITypes) {
		out.del("additionalProperties")
		if empty && !ctx.root {
			if !openMap {
				c.fail(fixEmptyObject, path, "properties", "%s cannot express an object without properties; it is left out", c.d.provider())
			}
			return false
		}
	}
	if props != nil {
		// Leave out what was cut.
		if req, ok := out.vals["required"].([]any); ok {
			kept := []any{}
			for _, name := range req {
				if s, _ := name.(string); props.has(s) {
					kept = append(kept, name)
				}
			}
			if len(kept) == 0 {
				out.del("required")
			} else {
				out.set("required", kept)
			}
		}
		if c.d.has(OrderProperties) && len(props.keys) > 1 && !out.has("propertyOrdering") {
			order := make([]any, len(props.keys))
			for i, k := range props.keys {
				order[i] = k
			}
			out.setAfter("propertyOrdering", order, "required", "properties")
		}
	}
	return true
}

// stripRef drops the keywords beside a $ref, as anthropic-sdk-go's
// transformSchema does ("$ref is not supported alongside other
// properties"), with a warning for each: the model is told less.
func (c *conversion) stripRef(o *ordObject, path string) *ordObject {
	if len(o.keys) == 1 {
		return o
	}
	for _, k := range o.keys {
		if k != "$ref" {
			c.report(SeverityWarning, path, k, "%s takes a $ref only on its own, so %s %s beside it is left out and the model does not see it", c.d.provider(), k, shortJSON(o.vals[k]))
		}
	}
	ref := newOrdObject()
	ref.set("$ref", o.vals["$ref"])
	return ref
}

// wrapRef moves the keywords beside a $ref into a one-branch anyOf around
// it, for dialects in which a $ref stands alone.
func wrapRef(o *ordObject) *ordObject {
	others := false
	for _, k := range o.keys {
		if !strings.HasPrefix(k, "$") {
			others = true
		}
	}
	if !others {
		return o
	}
	ref := newOrdObject()
	ref.set("$ref", o.vals["$ref"])
	w := newOrdObject()
	w.set("anyOf", []any{ref})
	for _, k := range o.keys {
		if k != "$ref" {
			w.set(k, o.vals[k])
		}
	}
	return w
}

// splitNullEnum rewrites an enum that holds null, which Gemini's JSON
// Schema does not accept, as anyOf the enum without null, and null.
func splitNullEnum(o *ordObject) *ordObject {
	e, ok := o.vals["enum"].([]any)
	if !ok || !containsValue(e, nil) {
		return o
	}
	outer, inner := newOrdObject(), newOrdObject()
	for _, k := range o.keys {
		switch k {
		case "title", "description", "default", "examples", "deprecated":
			outer.set(k, o.vals[k])
		case "enum":
			inner.set(k, nonNull(e))
		case "type":
			var types []any
			switch t := o.vals[k].(type) {
			case string:
				types = []any{t}
			case []any:
				types = t
			}
			kept := nonNullStrings(types)
			switch len(kept) {
			case 0:
			case 1:
				inner.set(k, kept[0])
			default:
				inner.set(k, kept)
			}
		default:
			inner.set(k, o.vals[k])
		}
	}
	null := newOrdObject()
	null.set("type", "null")
	w := newOrdObject()
	w.set("anyOf", []any{inner, null})
	for _, k := range outer.keys {
		w.set(k, outer.vals[k])
	}
	return w
}

func allPrimitive(values []any) bool {
	for _, v := range values {
		switch v.(type) {
		case *ordObject, []any:
			return false
		}
	}
	return true
}

func containsValue(a []any, v any) bool {
	for _, e := range a {
		if e == v {
			return true
		}
	}
	return false
}

func containsObject(a []*ordObject, o *ordObject) bool {
	for _, e := range a {
		if e == o {
			return true
		}
	}
	return false
}

func nonNull(a []any) []any {
	out := []any{}
	for _, v := range a {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

func nonNullStrings(a []any) []any {
	out := []any{}
	for _, v := range a {
		if s, ok := v.(string); ok && s != "null" {
			out = append(out, s)
		}
	}
	return out
}

func stringSet(v any) map[string]bool {
	set := map[string]bool{}
	if a, ok := v.([]any); ok {
		for _, e := range a {
			if s, ok := e.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}
