package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
)

// A compiler turns one top-level Go type into a graph of nodes. Nodes and
// fields are allocated in blocks: a type's plan lives and dies as a whole.
type compiler struct {
	root       reflect.Type
	output     bool // describe the encoding (Marshal* methods) rather than the decoding
	structs    map[reflect.Type]*node
	at         []fieldStep // the fields from the root to the one being compiled, for errors
	nodes      []node      // free space in the current block of nodes
	count      int         // nodes made
	pointers   int         // pointer nodes made, which share their element's schema
	entries    []tagEntry  // reused by parseToolTag
	jsonFields []jsonField // the fields of the structs being compiled, innermost last

	// methods is set when decoding a value runs a method of its own, or of
	// a type in it: UnmarshalText, UnmarshalJSON (or encoding/json's
	// decoding of a type with a JSONSchema method) or Validate. Those
	// methods receive pointers into the value.
	methods bool
}

// Compilers are pooled for their scratch space.
var compilerPool = sync.Pool{New: func() any { return &compiler{structs: map[reflect.Type]*node{}} }}

// newCompiler returns a compiler for the type t from the pool.
func newCompiler(t reflect.Type, output bool) *compiler {
	c := compilerPool.Get().(*compiler)
	c.root, c.output = t, output
	return c
}

// free returns c to the pool. The nodes it made belong to the plan, so only
// its scratch space is kept.
func (c *compiler) free() {
	c.root = nil
	clear(c.structs)
	clear(c.at[:cap(c.at)]) // drop what the last type referred to
	c.at = c.at[:0]
	clear(c.entries[:cap(c.entries)])
	c.entries = c.entries[:0]
	clear(c.jsonFields[:cap(c.jsonFields)])
	c.jsonFields = c.jsonFields[:0]
	c.nodes, c.count, c.pointers, c.methods = nil, 0, 0, false
	compilerPool.Put(c)
}

// A fieldStep is a field of a struct on the way from the root to the field
// being compiled.
type fieldStep struct {
	typ   reflect.Type
	index []int
}

// fail returns a DefinitionError at the current field.
func (c *compiler) fail(tag string, format string, args ...any) error {
	names := make([]string, len(c.at))
	for i, step := range c.at {
		names[i] = goFieldPath(step.typ, step.index)
	}
	return &DefinitionError{Type: c.root, Field: strings.Join(names, "."), Tag: tag, Err: fmt.Errorf(format, args...)}
}

// newNode returns a node of kind k for type t, with no constraints set.
func (c *compiler) newNode(k kind, t reflect.Type) *node {
	size := 16
	if c.count == 0 && t.Kind() == reflect.Struct {
		size = 2*t.NumField() + 2 // the root: a field usually needs one node, sometimes two
	}
	n := nextIn(&c.nodes, size)
	c.count++
	switch k {
	case kindPointer:
		c.pointers++
	case kindText, kindCustom:
		c.methods = true
	}
	n.kind, n.typ, n.size = k, t, t.Size()
	n.minLength, n.maxLength, n.minItems, n.maxItems, n.minProps, n.maxProps = -1, -1, -1, -1, -1, -1
	return n
}

// typeNode returns the node that reads values of type t, with no field
// constraints yet. Struct nodes are shared; every other node is new.
func (c *compiler) typeNode(t reflect.Type) (*node, error) {
	switch {
	case t == timeType:
		n := c.newNode(kindTime, t)
		n.format = formats["date-time"]
		return n, nil
	case t == rawMessageType:
		return c.newNode(kindRaw, t), nil
	case t == durationType && !c.output:
		// encoding/json writes a time.Duration as nanoseconds, which is
		// what an output says; an input says its unit (see duration.go).
		n := c.newNode(kindDuration, t)
		n.pattern = durationPattern
		return n, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		(t.Implements(schemaProviderType) || reflect.PointerTo(t).Implements(schemaProviderType)):
		return c.customNode(t)
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		if c.output {
			if t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) {
				return c.newNode(kindCustom, t), nil
			}
			if t.Implements(textMarshalerType) || pt.Implements(textMarshalerType) {
				return c.newNode(kindText, t), nil
			}
		} else {
			if pt.Implements(jsonUnmarshalerType) {
				return c.selfReadNode(t, pt)
			}
			if pt.Implements(textUnmarshalerType) {
				return c.newNode(kindText, t), nil
			}
		}
	}
	return c.kindNode(t)
}

// selfReadNode is the node of a type that reads itself with UnmarshalJSON
// and has no JSONSchema method. Unless it writes itself too, encoding/json
// writes it by its kind, and that is what it is taken to read: its JSON is
// checked as a value of its kind (a named string as a string with the
// field's constraints, a struct by its fields), and then UnmarshalJSON reads
// the same bytes. A type that writes itself as well (MarshalJSON, or
// MarshalText, a string) could read anything: it takes any JSON value, and
// dialect.Dialect.Lint warns that the model is told nothing about it.
func (c *compiler) selfReadNode(t, pt reflect.Type) (*node, error) {
	if t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || pt.Implements(textMarshalerType) {
		n := c.newNode(kindCustom, t)
		n.opaque = true
		return n, nil
	}
	n, err := c.kindNode(t)
	if err != nil {
		if derr, ok := errors.AsType[*DefinitionError](err); ok && !errors.Is(derr.Err, errSelfRead) {
			derr.Err = fmt.Errorf("%w (%s reads itself with UnmarshalJSON, and its JSON is taken to be that of its underlying type; %w)", derr.Err, t, errSelfRead)
		}
		return nil, err
	}
	n.selfRead = true
	c.methods = true
	return n, nil
}

// errSelfRead ends the message of a definition error met in a type that
// reads itself.
var errSelfRead = errors.New("a JSONSchema method would say what it reads")

// kindNode returns the node that reads values of type t by its kind, with
// no regard to its methods.
func (c *compiler) kindNode(t reflect.Type) (*node, error) {
	switch t.Kind() {
	case reflect.Bool:
		return c.newNode(kindBool, t), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := c.newNode(kindInt, t)
		n.bits = t.Bits()
		if n.bits < 64 {
			n.minimum = ptr(-math.Ldexp(1, n.bits-1))
			n.maximum = ptr(math.Ldexp(1, n.bits-1) - 1)
		}
		return n, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := c.newNode(kindUint, t)
		n.bits = t.Bits()
		n.minimum = ptr(0.0)
		if n.bits < 64 {
			n.maximum = ptr(math.Ldexp(1, n.bits) - 1)
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		n := c.newNode(kindFloat, t)
		n.bits = t.Bits()
		return n, nil
	case reflect.String:
		return c.newNode(kindString, t), nil
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, c.fail("", "interface type %s is not supported; use any (any JSON value) or a concrete type", t)
		}
		n := c.newNode(kindAny, t)
		n.nullable = true
		return n, nil
	case reflect.Pointer:
		elem, err := c.typeNode(t.Elem())
		if err != nil {
			return nil, err
		}
		if elem.kind == kindPointer {
			return nil, c.fail("", "pointer to pointer %s is not supported", t)
		}
		n := c.newNode(kindPointer, t)
		n.elem = elem
		n.nullable = true
		n.newElem = newScalar[t.Elem()]
		return n, nil
	case reflect.Slice:
		if t.Elem() == byteType {
			n := c.newNode(kindBytes, t)
			n.nullable = c.output // see containerNode
			return n, nil
		}
		return c.containerNode(kindSlice, t)
	case reflect.Array:
		n, err := c.containerNode(kindArray, t)
		if err != nil {
			return nil, err
		}
		n.length = t.Len()
		return n, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, c.fail("", "map key type %s is not supported; JSON object keys are strings, so use map[string]T", t.Key())
		}
		return c.containerNode(kindMap, t)
	case reflect.Struct:
		return c.structNode(t)
	}
	return nil, c.fail("", "type %s (%s) has no JSON form; use a bool, number, string, slice, array, map[string]T, struct, pointer or any", t, t.Kind())
}

func ptr[T any](v T) *T { return &v }

func (c *compiler) containerNode(k kind, t reflect.Type) (*node, error) {
	elem, err := c.typeNode(t.Elem())
	if err != nil {
		return nil, err
	}
	n := c.newNode(k, t)
	n.elem = elem
	if k == kindSlice {
		n.items = new(sync.Pool)
	}
	// A nil slice or map is written as null, so an output may hold one;
	// an input holds null only where the field says so (a pointer, or
	// tool:"nullable").
	n.nullable = k != kindArray && c.output
	n.stringItems = k != kindArray && t.Elem() == stringType && (k != kindMap || t.Key() == stringType)
	return n, nil
}

// customNode is a type that reads itself (UnmarshalJSON) or says its own
// schema (JSONSchema).
func (c *compiler) customNode(t reflect.Type) (*node, error) {
	n := c.newNode(kindCustom, t)
	var s *jsonschema.Schema
	if t.Implements(schemaProviderType) {
		s = reflect.Zero(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }).JSONSchema()
	} else {
		s = reflect.New(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }).JSONSchema()
	}
	if s == nil {
		return nil, c.fail("", "%s.JSONSchema returned nil", t)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, c.fail("", "%s.JSONSchema: %v", t, err)
	}
	n.custom = &customSchema{schema: s, resolved: resolved}
	return n, nil
}

// structNode compiles a struct type once and shares the node.
func (c *compiler) structNode(t reflect.Type) (*node, error) {
	if n, ok := c.structs[t]; ok {
		if n.compiling {
			n.inDefs = true // reached again while its fields are compiled: recursive
		}
		return n, nil
	}
	n := c.newNode(kindStruct, t)
	n.refine = reflect.PointerTo(t).Implements(refinerType)
	c.methods = c.methods || n.refine
	c.structs[t] = n
	n.compiling = true
	defer func() { n.compiling = false }()

	base := len(c.jsonFields)
	c.jsonFields = jsonFields(c.jsonFields, t)
	count := len(c.jsonFields) - base
	defer func() { c.jsonFields = c.jsonFields[:base] }()
	fields := make([]field, count)
	n.fields = make([]*field, 0, count)
	for i := range count {
		// The structs of the fields append to c.jsonFields, which may move
		// it: this struct's fields are read from it afresh each time.
		jf := c.jsonFields[base+i]
		f := &fields[i]
		c.at = append(c.at, fieldStep{t, jf.index})
		err := c.field(f, &jf, indexThroughPointer(t, jf.index))
		c.at = c.at[:len(c.at)-1]
		if err != nil {
			return nil, err
		}
		if f.throughPtr && unexportedPointerStep(t, jf.index) {
			return nil, &DefinitionError{Type: c.root, Field: goFieldPath(t, jf.index), Err: errors.New("the field is reached through an embedded pointer to an unexported struct type, which cannot be allocated from outside its package (encoding/json cannot set it either); embed the struct by value or export its type")}
		}
		if !f.throughPtr {
			f.offset = fieldOffset(t, jf.index)
		}
		f.bit = len(n.fields)
		f.plainName = plainName(f.name)
		if f.plainName {
			f.nameWord, f.nameMask = nameWords(f.name)
		}
		n.fields = append(n.fields, f)
	}
	for _, f := range n.fields {
		if f.bit < 64 && (f.required || f.dflt != nil) {
			n.settle |= 1 << f.bit
		}
	}
	if len(n.fields) > maxFieldScan {
		n.byName = make(map[string]*field, len(n.fields))
		for _, f := range n.fields {
			n.byName[f.name] = f
		}
	}
	return n, nil
}

// plainName reports whether a member name is all plain string bytes
// (plainStringByte), which a JSON string holds only as they are.
func plainName(name string) bool {
	for i := range len(name) {
		if !plainStringByte[name[i]] {
			return false
		}
	}
	return true
}

// fieldOffset returns the offset of a possibly promoted field from the start
// of struct t, when no embedded pointer is on the way.
func fieldOffset(t reflect.Type, index []int) uintptr {
	var off uintptr
	for _, i := range index {
		sf := t.Field(i)
		off += sf.Offset
		t = sf.Type
	}
	return off
}

// indexThroughPointer reports whether reaching a promoted field from t
// passes through an embedded pointer.
func indexThroughPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		t = t.Field(i).Type
		if t.Kind() == reflect.Pointer {
			return true
		}
	}
	return false
}

// unexportedPointerStep reports whether reaching a promoted field passes
// through an embedded pointer field that is not exported.
func unexportedPointerStep(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		sf := t.Field(i)
		if sf.Type.Kind() == reflect.Pointer {
			if !sf.IsExported() {
				return true
			}
			t = sf.Type.Elem()
		} else {
			t = sf.Type
		}
	}
	return false
}

// goFieldPath names a possibly promoted field, such as "Base.ID".
func goFieldPath(t reflect.Type, index []int) string {
	var names []string
	for _, i := range index {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		sf := t.Field(i)
		names = append(names, sf.Name)
		t = sf.Type
	}
	return strings.Join(names, ".")
}

// field compiles one struct field with its tags into f. throughPtr says
// that the field is promoted through an embedded pointer.
func (c *compiler) field(f *field, jf *jsonField, throughPtr bool) error {
	sf := &jf.sf
	f.name, f.index = jf.name, jf.index
	f.throughPtr = throughPtr
	f.omitEmpty = jf.omitEmpty || jf.omitZero
	if jf.stringOpt {
		return c.fail(`json:"`+jf.tags.json+`"`, `the ",string" option is not supported; use a string field and convert it in the handler`)
	}
	if desc, ok := jf.tags.jsonschema, jf.tags.hasJSONSchema; ok {
		if err := checkDescriptionTag(desc); err != nil {
			return c.fail(`jsonschema:"`+desc+`"`, "%v", err)
		}
		f.description = desc
	}
	n, err := c.typeNode(sf.Type)
	if err != nil {
		return err
	}
	f.node = n

	toolTag, hasTool := jf.tags.tool, jf.tags.hasTool
	entries := c.entries[:0]
	if hasTool {
		entries, err = parseToolTag(toolTag, entries)
		if err != nil {
			return c.fail(`tool:"`+toolTag+`"`, "%v", err)
		}
		c.entries = entries
	}
	if err := c.applyTag(f, entries); err != nil {
		return c.fail(`tool:"`+toolTag+`"`, "%v", err)
	}
	return nil
}

// applyTag applies the tool tag's entries to a field and its node.
func (c *compiler) applyTag(f *field, entries []tagEntry) error {
	n := f.node
	container := n.deref()
	value := container
	if k := container.kind; k == kindSlice || k == kindArray || k == kindMap {
		value = container.elem.deref()
	}

	var (
		optional, required, nullable bool
		hasDflt, hasConst            bool
		dfltText, constText          string
		enumList, exampleList        []string
	)
	for i := range entries {
		e := &entries[i]
		var err error
		switch e.key {
		case "minLength", "maxLength", "pattern", "format":
			err = applyStringKeyword(value, e)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			err = applyNumberKeyword(value, e)
		case "minItems", "maxItems", "uniqueItems":
			err = applyItemsKeyword(container, e)
		case "minProperties", "maxProperties":
			if container.kind != kindMap {
				return fmt.Errorf("%s applies to a map field, not %s", e.key, describeKind(container))
			}
			container.minProps, container.maxProps, err = setCount(e, container.minProps, container.maxProps, "minProperties")
		case "enum":
			enumList = e.list
		case "const":
			hasConst, constText = true, e.value
		case "default":
			hasDflt, dfltText = true, e.value
		case "examples":
			exampleList = e.list
		case "title":
			f.title = e.value
		case "deprecated":
			// A flag, or the message saying what to use instead.
			if v, perr := strconv.ParseBool(e.value); perr == nil {
				f.deprecated = v
			} else {
				f.deprecated, f.deprecation = true, e.value
			}
		case "required":
			required, err = parseFlag(e)
		case "optional":
			optional, err = parseFlag(e)
		case "nullable":
			nullable, err = parseFlag(e)
		}
		if err != nil {
			return err
		}
	}
	if err := checkRanges(value); err != nil {
		return err
	}
	if container.minItems >= 0 && container.maxItems >= 0 && container.minItems > container.maxItems {
		return fmt.Errorf("minItems %d is greater than maxItems %d", container.minItems, container.maxItems)
	}
	if container.minProps >= 0 && container.maxProps >= 0 && container.minProps > container.maxProps {
		return fmt.Errorf("minProperties %d is greater than maxProperties %d", container.minProps, container.maxProps)
	}
	if container.kind == kindArray && (container.minItems >= 0 || container.maxItems >= 0) {
		return fmt.Errorf("minItems and maxItems do not apply to an array of fixed length %d", container.length)
	}

	if enumList != nil && hasConst {
		return errors.New("enum and const cannot be used together")
	}
	if enumList != nil || hasConst {
		if !value.scalar() {
			return fmt.Errorf("enum and const apply to booleans, numbers and strings, not %s", describeKind(value))
		}
		list := enumList
		if hasConst {
			list = []string{constText}
		}
		enum := make([]any, 0, len(list))
		enumText := make([]string, 0, len(list))
		var seen map[string]bool // for a long list; a short one is searched
		if len(list) > 16 {
			seen = make(map[string]bool, len(list))
		}
		for _, item := range list {
			raw, err := literal(value, item)
			if err != nil {
				return fmt.Errorf("enum value %q: %w", item, err)
			}
			if issues := c.check(value, raw); len(issues) > 0 {
				return fmt.Errorf("enum value %s can never be accepted: %s", raw, issues[0].Message)
			}
			if seen[string(raw)] || seen == nil && slices.Contains(enumText, string(raw)) {
				return fmt.Errorf("enum value %s appears twice", raw)
			}
			if seen != nil {
				seen[string(raw)] = true
			}
			canon, _ := canonical(raw)
			enum = append(enum, canon)
			enumText = append(enumText, string(raw))
		}
		set := &enumSet{values: enum, text: enumText, isConst: hasConst}
		if len(enum) > 8 && value.deref().kind != kindBool {
			set.index = make(map[string]struct{}, len(enum))
			for _, v := range enum {
				if s, ok := v.(string); ok {
					set.index[s] = struct{}{}
				}
			}
		}
		value.enum = set
	}

	f.nullTagged = nullable
	switch {
	case nullable && n.kind == kindStruct:
		f.nullable = true
	case nullable:
		n.nullable = true
	}

	if hasDflt {
		raw, err := literal(n, dfltText)
		if err != nil {
			return fmt.Errorf("default %q: %w", dfltText, err)
		}
		f.dflt = raw
		switch s := n.deref(); {
		case n.kind != kindPointer && s.scalar() && s.kind != kindText && !s.selfRead || n.kind == kindSlice && !n.selfRead && n.elem.plain():
			// One decode both checks the default and gives the value that
			// is copied in.
			v := reflect.New(n.typ).Elem()
			if !(f.nullable && string(raw) == "null") {
				if issues := decodeInto(n, raw, v); len(issues) > 0 {
					return fmt.Errorf("default %s fails the field's own constraints: %s", raw, issues[0])
				}
			}
			f.dfltValue = v
			f.dfltShared = n.kind != kindSlice
			f.dfltItems = n.kind == kindSlice
			if f.dfltItems && n.stringItems {
				// As in stringSlice: a slice of type-string items is a
				// []string.
				f.dfltStrings = *(*[]string)(v.Addr().UnsafePointer())
			}
		default:
			// Decoded on use, and checked by checkDefaults once the plan is
			// complete: it may hold the struct being compiled.
		}
	}
	for _, item := range exampleList {
		raw, err := literal(n, item)
		if err != nil {
			return fmt.Errorf("example %q: %w", item, err)
		}
		if issues := c.checkField(f, raw); len(issues) > 0 {
			return fmt.Errorf("example %s fails the field's own constraints: %s", raw, issues[0])
		}
		f.examples = append(f.examples, raw)
	}

	if required && optional {
		return errors.New("a field cannot be both required and optional")
	}
	if required && f.dflt != nil {
		return errors.New("a required field never uses its default; drop one of them")
	}
	// A field promoted through an embedded pointer is absent from the
	// encoding when the pointer is nil, so it is not required by default.
	f.required = required || !(optional || f.omitEmpty || f.dflt != nil || n.kind == kindPointer || f.throughPtr)
	return nil
}

// check validates raw JSON against a node, for values found at definition.
func (c *compiler) check(n *node, raw json.RawMessage) []Issue {
	if n.kind == kindString && n.minLength < 0 && n.maxLength < 0 && n.pattern == nil &&
		n.format == nil && n.enum == nil && plainJSONString(raw) {
		return nil // any string will do, and this is one
	}
	return decodeInto(n, raw, reflect.New(n.typ).Elem())
}

// checkField validates raw JSON as a value of field f, null included.
func (c *compiler) checkField(f *field, raw json.RawMessage) []Issue {
	if f.nullable && string(raw) == "null" {
		return nil
	}
	return c.check(f.node, raw)
}

// plain reports whether values of n are plain data, safe to copy: booleans,
// numbers and strings (whose bytes never change).
func (n *node) plain() bool {
	if n.selfRead {
		return false
	}
	switch n.kind {
	case kindBool, kindInt, kindUint, kindFloat, kindString:
		return true
	}
	return false
}

func (n *node) scalar() bool {
	switch n.deref().kind {
	case kindBool, kindInt, kindUint, kindFloat, kindString, kindText, kindDuration:
		return true
	}
	return false
}

func describeKind(n *node) string {
	switch n.kind {
	case kindStruct:
		return "a struct"
	case kindSlice, kindArray:
		return "a slice or array"
	case kindMap:
		return "a map"
	case kindAny, kindRaw:
		return "any JSON value"
	case kindCustom:
		return "a type that reads its own JSON"
	case kindTime:
		return "a time.Time"
	case kindDuration:
		return "a time.Duration"
	case kindBytes:
		return "a []byte"
	}
	if t := n.jsonType(); t == "integer" || t == "array" || t == "object" {
		return "an " + t + " field"
	}
	return "a " + n.jsonType() + " field"
}

func parseFlag(e *tagEntry) (bool, error) {
	b, err := strconv.ParseBool(e.value)
	if err != nil {
		return false, fmt.Errorf("%s takes no value or true/false, not %q", e.key, e.value)
	}
	return b, nil
}

func parseCount(e *tagEntry) (int, error) {
	v, err := strconv.Atoi(e.value)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s must be a non-negative integer, not %q", e.key, e.value)
	}
	return v, nil
}

// setCount sets the min or max of a pair of counts, by the entry's key.
func setCount(e *tagEntry, lo, hi int, minKey string) (int, int, error) {
	v, err := parseCount(e)
	if err != nil {
		return lo, hi, err
	}
	if e.key == minKey {
		return v, hi, nil
	}
	return lo, v, nil
}

func applyStringKeyword(n *node, e *tagEntry) error {
	if k := n.kind; k != kindString && k != kindText {
		return fmt.Errorf("%s applies to strings, not %s", e.key, describeKind(n))
	}
	var err error
	switch e.key {
	case "minLength", "maxLength":
		n.minLength, n.maxLength, err = setCount(e, n.minLength, n.maxLength, "minLength")
	case "pattern":
		n.pattern, err = compilePattern(e.value)
		if err != nil {
			return fmt.Errorf("pattern %q does not compile: %v", e.value, err)
		}
	case "format":
		f, ok := formats[e.value]
		if !ok {
			names := slices.Sorted(maps.Keys(formatCheckers))
			return fmt.Errorf("format %q is not one hands asserts; use one of %s, or a pattern", e.value, strings.Join(names, ", "))
		}
		n.format = f
	}
	return err
}

func applyNumberKeyword(n *node, e *tagEntry) error {
	if k := n.kind; k != kindInt && k != kindUint && k != kindFloat {
		return fmt.Errorf("%s applies to numbers, not %s", e.key, describeKind(n))
	}
	v, err := strconv.ParseFloat(e.value, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || !json.Valid([]byte(e.value)) {
		return fmt.Errorf("%s must be a JSON number, not %q", e.key, e.value)
	}
	switch e.key {
	case "minimum":
		n.minimum = tighter(n.minimum, v, math.Max)
	case "maximum":
		n.maximum = tighter(n.maximum, v, math.Min)
	case "exclusiveMinimum":
		n.exclusiveMinimum = &v
	case "exclusiveMaximum":
		n.exclusiveMaximum = &v
	case "multipleOf":
		r, ok := new(big.Rat).SetString(e.value)
		if !ok || r.Sign() <= 0 {
			return fmt.Errorf("multipleOf must be greater than 0, not %q", e.value)
		}
		n.multipleOf = &multiple{rat: r, text: e.value}
	}
	return nil
}

// tighter combines a bound set by the type (an int8's range) with the tag's.
func tighter(old *float64, v float64, pick func(a, b float64) float64) *float64 {
	if old == nil {
		return &v
	}
	return ptr(pick(*old, v))
}

func applyItemsKeyword(n *node, e *tagEntry) error {
	if k := n.kind; k != kindSlice && k != kindArray {
		return fmt.Errorf("%s applies to slices and arrays, not %s", e.key, describeKind(n))
	}
	var err error
	switch e.key {
	case "uniqueItems":
		n.uniqueItems, err = parseFlag(e)
	default:
		n.minItems, n.maxItems, err = setCount(e, n.minItems, n.maxItems, "minItems")
	}
	return err
}

// checkRanges rejects constraints that no value can meet.
func checkRanges(n *node) error {
	if n.minLength >= 0 && n.maxLength >= 0 && n.minLength > n.maxLength {
		return fmt.Errorf("minLength %d is greater than maxLength %d", n.minLength, n.maxLength)
	}
	if n.minimum != nil && n.maximum != nil && *n.minimum > *n.maximum {
		return fmt.Errorf("minimum %v is greater than maximum %v", *n.minimum, *n.maximum)
	}
	return nil
}

// literal turns a tag value into JSON for node n: the value itself when it is
// JSON and fits, or else a JSON string when n reads strings.
func literal(n *node, text string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(text)
	if nanos, ok := durationNanos(n, trimmed); ok {
		return nanos, nil
	}
	// JSON is what json.Valid calls JSON; isJSON is a faster yes for most of
	// it (json.Valid takes a copy of the bytes), and the decoder's stricter
	// rules (UTF-8, surrogates, duplicate names, depth) are for the check
	// that follows, which reports them.
	if trimmed != "" && strings.IndexByte(`"[{-0123456789tfn`, trimmed[0]) >= 0 &&
		(isJSON(trimmed) || json.Valid([]byte(trimmed))) {
		isString := trimmed[0] == '"'
		if isString || !n.stringLike() {
			if !strings.ContainsAny(trimmed, " \t\n\r") {
				return json.RawMessage(trimmed), nil
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(trimmed)); err != nil {
				return nil, err
			}
			return buf.Bytes(), nil
		}
	}
	if n.stringLike() {
		return quoteJSON(text)
	}
	return nil, fmt.Errorf("not valid JSON for %s", describeKind(n.deref()))
}

// isJSON reports whether s is one JSON value and nothing more.
func isJSON(s string) bool {
	d := getDecoder(unsafe.Slice(unsafe.StringData(s), len(s)), DefaultMaxDepth, 1)
	defer putDecoder(d)
	if _, ok := d.skip(); !ok || d.fatal {
		return false
	}
	d.peek()
	return d.pos == len(d.data)
}

// quoteJSON returns s as a JSON string, as encoding/json writes it.
func quoteJSON(s string) (json.RawMessage, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return json.Marshal(s)
		}
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// plainJSONString reports whether raw is a JSON string of printable ASCII
// with no escapes, which is its own text between the quotes.
func plainJSONString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// canonical decodes raw JSON into the Go form used to compare enum values,
// as json.Unmarshal into an any would.
func canonical(raw json.RawMessage) (any, error) {
	switch s := string(raw); {
	case s == "true":
		return true, nil
	case s == "false":
		return false, nil
	case s == "null":
		return nil, nil
	case plainJSONString(raw):
		return s[1 : len(s)-1], nil
	}
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}
