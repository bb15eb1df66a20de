package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
)

// Default limits, used where Options leave a limit at zero.
const (
	// DefaultMaxBytes is the largest document a validator reads: 4 MiB.
	DefaultMaxBytes = 4 << 20
	// DefaultMaxDepth is the deepest nesting of arrays and objects a
	// validator reads.
	DefaultMaxDepth = 128
	// DefaultMaxIssues is how many issues an Error lists before it says how
	// many more there are.
	DefaultMaxIssues = 100
)

// Options configure a Validator. A nil *Options, like the zero value, selects
// every default.
type Options struct {
	// Limits bound what a document may cost: its size, its nesting and how
	// many issues are listed. The zero value selects the defaults.
	Limits
	// NullAsAbsent makes a null for an optional property count as absent, so
	// that its default applies, unless the field says tool:"nullable". It is
	// the convention of providers that send every property and mark the
	// optional ones nullable (OpenAI's strict mode). DecodeRepaired reports
	// where it applied.
	NullAsAbsent bool
	// Output describes how values of the type are written rather than read:
	// types are taken as their MarshalJSON and MarshalText methods present
	// them, not as their Unmarshal methods read them. Use it for a tool's
	// output schema.
	Output bool
}

// A Validator is the compiled form of one Go struct type: its draft 2020-12
// JSON Schema and a plan that validates JSON against that schema while it
// decodes it, in one pass over the bytes. Compiling is done once per type and
// cached. A Validator is safe for concurrent use.
type Validator struct {
	plan       *plan
	maxBytes   int
	maxIssues  int
	maxDepth   int
	nullAbsent bool
	values     sync.Pool // of *T, where DecodeValue decodes a plain type's values
}

// A plan is what compiling a type produces; plans are cached by type.
type plan struct {
	typ     reflect.Type
	root    *node
	schemas int  // how many schemas its schema tree usually has, for emit
	plain   bool // no method of the type's own runs on a value while it is decoded
}

type planKey struct {
	typ    reflect.Type
	output bool
}

type planResult struct {
	plan *plan
	err  error
}

var plans sync.Map // planKey → *planResult

// For returns the validator of type T, which must be a struct. It returns a
// *DefinitionError when T cannot describe JSON arguments.
func For[T any](opts *Options) (*Validator, error) {
	return ForType(reflect.TypeFor[T](), opts)
}

// ForType is For for a reflect.Type.
func ForType(t reflect.Type, opts *Options) (*Validator, error) {
	if opts == nil {
		opts = &Options{}
	}
	p, err := compile(t, opts.Output)
	if err != nil {
		return nil, err
	}
	l := opts.Limits.resolved()
	v := &Validator{plan: p, maxBytes: l.MaxBytes, maxIssues: l.MaxIssues, maxDepth: l.MaxDepth, nullAbsent: opts.NullAsAbsent}
	return v, nil
}

// compile returns the cached plan of t, compiling it on first use.
func compile(t reflect.Type, output bool) (*plan, error) {
	key := planKey{t, output}
	if r, ok := plans.Load(key); ok {
		return r.(*planResult).plan, r.(*planResult).err
	}
	p, err := compileUncached(t, output)
	r, _ := plans.LoadOrStore(key, &planResult{p, err})
	return r.(*planResult).plan, r.(*planResult).err
}

func compileUncached(t reflect.Type, output bool) (*plan, error) {
	if t == nil {
		return nil, &DefinitionError{Err: errors.New("the type is nil")}
	}
	if t.Kind() != reflect.Struct {
		return nil, &DefinitionError{Type: t, Err: fmt.Errorf("arguments are a JSON object, so the type must be a struct, not %s", t.Kind())}
	}
	c := newCompiler(t, output)
	defer c.free()
	root, err := c.typeNode(t)
	if err != nil {
		return nil, err
	}
	if root.kind != kindStruct || root.selfRead {
		// A struct with UnmarshalJSON or JSONSchema reads itself.
		return nil, &DefinitionError{Type: t, Err: errors.New("the type reads its own JSON (UnmarshalJSON, UnmarshalText or JSONSchema); the top level must be a plain struct whose fields hands can describe")}
	}
	root.isRoot = true
	markWork(c.structs)
	if n, f, issues := checkDefaults(c.structs); issues != nil {
		field := goFieldPath(n.typ, f.index)
		if n != root {
			field = n.typ.String() + "." + field
		}
		tag := `tool:"` + n.typ.FieldByIndex(f.index).Tag.Get("tool") + `"`
		return nil, &DefinitionError{Type: t, Field: field, Tag: tag, Err: fmt.Errorf("default %s fails the field's own constraints: %s", f.dflt, issues[0])}
	}
	return &plan{typ: t, root: root, schemas: c.count - c.pointers + 2*len(c.structs), plain: !c.methods}, nil
}

// markWork sets hasWork on every node below which a Validate method runs.
func markWork(structs map[reflect.Type]*node) {
	for changed := true; changed; {
		changed = false
		for _, n := range structs {
			if n.hasWork {
				continue
			}
			if n.refine || slices.ContainsFunc(n.fields, func(f *field) bool { return f.node.needsWork() }) {
				n.hasWork = true
				changed = true
			}
		}
	}
}

// needsWork reports whether a Validate method runs at or below n.
func (n *node) needsWork() bool {
	for {
		switch n.kind {
		case kindStruct:
			return n.hasWork
		case kindPointer, kindSlice, kindArray, kindMap:
			n = n.elem
		default:
			return false
		}
	}
}

// Type returns the Go type the validator reads.
func (v *Validator) Type() reflect.Type { return v.plan.typ }

// Schema returns the draft 2020-12 JSON Schema of the type. Each call
// writes a new schema from the compiled plan, which the caller may change.
func (v *Validator) Schema() *jsonschema.Schema { return emit(v.plan.root, v.plan.schemas) }

// Decode validates data against the schema and, in the same pass, decodes it
// into dst, which must be a non-nil pointer to the validator's type. Absent
// properties that have a default get it; then the Validate methods of the
// structs in the value run. On failure it returns a *Error that lists every
// issue; dst then holds a partly decoded value that must not be used.
func (v *Validator) Decode(data []byte, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != v.plan.typ {
		return fmt.Errorf("schema: Decode needs a non-nil *%s, got %T", v.plan.typ, dst)
	}
	rv.Elem().SetZero()
	_, err := v.decode(data, rv.Elem())
	return err
}

// DecodeRepaired is Decode that also returns the JSON Pointers of the nulls
// it counted as absent under Options.NullAsAbsent, in document order.
func (v *Validator) DecodeRepaired(data []byte, dst any) (nulls []string, err error) {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != v.plan.typ {
		return nil, fmt.Errorf("schema: DecodeRepaired needs a non-nil *%s, got %T", v.plan.typ, dst)
	}
	rv.Elem().SetZero()
	return v.decode(data, rv.Elem())
}

// DecodeValue is DecodeRepaired for a caller that wants the value returned
// rather than written through a pointer: it validates data against the
// schema of v, which must be the validator of T, and decodes it in the same
// pass. On failure the value is T's zero value.
//
// When decoding a T runs no method of its own (no UnmarshalJSON,
// UnmarshalText or Validate method of T or of a type in it), the value is
// decoded in memory that v reuses from call to call, and the call allocates
// only for what the value refers to, not for the value itself.
func DecodeValue[T any](v *Validator, data []byte) (T, []string, error) {
	var zero T
	if t := reflect.TypeFor[T](); t != v.plan.typ {
		return zero, nil, fmt.Errorf("schema: DecodeValue needs the validator of %s, not of %s", t, v.plan.typ)
	}
	if !v.plan.plain {
		p := new(T)
		nulls, err := v.decode(data, reflect.ValueOf(p).Elem())
		if err != nil {
			return zero, nulls, err
		}
		return *p, nulls, nil
	}
	// No code but the decoder's saw the value's address, and the decoder
	// keeps none of it, so once the value is copied out, the memory is free
	// to reuse. It is zeroed before it is pooled, to hold no references.
	p, _ := v.values.Get().(*T)
	if p == nil {
		p = new(T)
	}
	// A plain type has no Validate methods, so there is nothing to refine.
	nulls, err := v.decodeAt(data, unsafe.Pointer(p))
	out := *p
	*p = zero
	v.values.Put(p)
	if err != nil {
		return zero, nulls, err
	}
	return out, nulls, nil
}

// Validate reports whether data is valid, with every issue when it is not.
// It runs the same checks as Decode, Validate methods included.
func (v *Validator) Validate(data []byte) error {
	_, err := v.decode(data, reflect.New(v.plan.typ).Elem())
	return err
}

// decode decodes data into out, an addressable zero value of the
// validator's type, and then runs the Validate methods in it.
func (v *Validator) decode(data []byte, out reflect.Value) ([]string, error) {
	nulls, err := v.decodeAt(data, out.Addr().UnsafePointer())
	if err != nil {
		return nulls, err
	}
	return nulls, refine(v.plan.root, out)
}

// decodeAt is decode into the zero value of the validator's type at p,
// without the Validate methods.
func (v *Validator) decodeAt(data []byte, p unsafe.Pointer) ([]string, error) {
	if v.maxBytes > 0 && len(data) > v.maxBytes {
		return nil, &Error{Issues: []Issue{sizeIssue(len(data), v.maxBytes)}, Err: ErrInvalidDocument}
	}
	d := getDecoder(data, v.maxDepth, v.maxIssues)
	d.nullAbsent = v.nullAbsent
	d.documentAt(v.plan.root, p)
	issues := d.takeIssues()
	var nulls []string
	if len(d.nulls) > 0 {
		nulls = append(nulls, d.nulls...)
	}
	putDecoder(d)
	if issues != nil {
		return nulls, &Error{Issues: issues, Err: ErrInvalidDocument}
	}
	return nulls, nil
}

// Check validates a Go value of the validator's type against the same
// constraints, as its encoding/json encoding, and runs its Validate methods.
// Defaults are not applied: a Go value has no absent fields, only zero ones.
// A nil slice or map, which encoding/json writes as null, is judged as an
// empty one, and a time.Duration, which it writes as nanoseconds, is read
// as that number.
func (v *Validator) Check(value any) error {
	rv := reflect.ValueOf(value)
	if rv.Kind() == reflect.Pointer && rv.Type().Elem() == v.plan.typ && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Type() != v.plan.typ {
		return fmt.Errorf("schema: Check needs a %s, got %T", v.plan.typ, value)
	}
	data, err := json.Marshal(rv.Interface())
	if err != nil {
		return &Error{Issues: []Issue{{Keyword: KeywordType, Message: oneLine("the value has no JSON encoding: " + err.Error())}}, Err: ErrInvalidDocument}
	}
	d := getDecoder(data, v.maxDepth, v.maxIssues)
	d.goValue = true
	d.document(v.plan.root, reflect.New(v.plan.typ).Elem())
	issues := d.takeIssues()
	putDecoder(d)
	if issues != nil {
		return &Error{Issues: issues, Err: ErrInvalidDocument}
	}
	copied := reflect.New(v.plan.typ).Elem()
	copied.Set(rv)
	return refine(v.plan.root, copied)
}

// refine runs the Validate methods in a decoded value, inner structs first,
// and returns every issue they report.
func refine(root *node, v reflect.Value) error {
	if !root.hasWork {
		return nil
	}
	var issues []Issue
	walkRefine(root, v, nil, &issues)
	if issues != nil {
		return &Error{Issues: issues, Err: ErrInvalidDocument}
	}
	return nil
}

func walkRefine(n *node, v reflect.Value, path []byte, issues *[]Issue) {
	switch n.kind {
	case kindPointer:
		if !v.IsNil() && n.elem.needsWork() {
			walkRefine(n.elem, v.Elem(), path, issues)
		}
	case kindSlice, kindArray:
		if n.elem.needsWork() {
			for i := range v.Len() {
				walkRefine(n.elem, v.Index(i), strconv.AppendInt(append(path, '/'), int64(i), 10), issues)
			}
		}
	case kindMap:
		if n.elem.needsWork() {
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int {
				if a.String() < b.String() {
					return -1
				}
				return 1
			})
			for _, k := range keys {
				elem := reflect.New(n.elem.typ).Elem()
				elem.Set(v.MapIndex(k))
				walkRefine(n.elem, elem, appendPointerToken(path, k.String()), issues)
			}
		}
	case kindStruct:
		for _, f := range n.fields {
			if !f.node.needsWork() {
				continue
			}
			fv, ok := fieldValueNoAlloc(v, f)
			if ok {
				walkRefine(f.node, fv, appendPointerToken(path, f.name), issues)
			}
		}
		if n.refine {
			if err := v.Addr().Interface().(interface{ Validate() error }).Validate(); err != nil {
				*issues = append(*issues, issuesOf(err, string(path), KeywordValidate)...)
			}
		}
	}
}

// fieldValueNoAlloc returns field f of v, or false when an embedded pointer
// on the way is nil.
func fieldValueNoAlloc(v reflect.Value, f *field) (reflect.Value, bool) {
	for i, x := range f.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
