package schema

import (
	"encoding"
	"encoding/json"
	"math/big"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/google/jsonschema-go/jsonschema"
)

// A kind is how a node reads JSON.
type kind uint8

const (
	kindBool     kind = iota + 1
	kindInt           // every signed integer size
	kindUint          // every unsigned integer size
	kindFloat         // float32 and float64
	kindString        // a string kind
	kindBytes         // []byte, which encoding/json writes as base64
	kindSlice         // a slice other than []byte
	kindArray         // a fixed-length array
	kindMap           // a map with string keys
	kindStruct        // a struct, read field by field
	kindPointer       // a pointer; null is nil
	kindAny           // an empty interface: any JSON value
	kindRaw           // json.RawMessage: any JSON value, kept as bytes
	kindTime          // time.Time: an RFC 3339 date-time string
	kindDuration      // time.Duration, as an input: a duration string such as "1m30s"
	kindText          // an encoding.TextUnmarshaler: a string it parses
	kindCustom        // a type with a JSONSchema method, or one that reads and writes its own JSON
)

// A node is the compiled plan for one value: its Go type, how to read it and
// the constraints to check while reading. Struct nodes are shared by every
// field of that type (which is how recursive types work); every other node
// belongs to one field, so its constraints are that field's.
type node struct {
	typ  reflect.Type
	size uintptr // typ.Size()
	bits int     // the size of a number kind, for its range

	// Number keywords.
	minimum, maximum                   *float64
	exclusiveMinimum, exclusiveMaximum *float64
	multipleOf                         *multiple

	// String keywords. Lengths count code points; -1 is unset.
	minLength, maxLength int
	pattern              *pattern
	format               *format

	enum *enumSet // enum or const, on a value of a scalar kind

	// Array, slice and map keywords; -1 is unset.
	elem               *node
	length             int // a fixed array's length
	minItems, maxItems int
	minProps, maxProps int
	items              *sync.Pool // of *itemBuffer, for a slice

	// Struct plan.
	fields []*field
	settle uint64            // the bits of the fields (of the first 64) that are required or have a default: those an absent field makes work for
	byName map[string]*field // for a struct of more than maxFieldScan fields

	custom *customSchema // the schema a type's JSONSchema method returns

	newElem func() unsafe.Pointer // for a pointer to a predeclared scalar type, allocates one without reflect

	kind        kind
	nullable    bool // a JSON null is accepted and leaves the zero value
	selfRead    bool // UnmarshalJSON reads the value once it passed the checks of its kind
	opaque      bool // a kindCustom that reads and writes itself with no schema: any JSON value
	uniqueItems bool
	stringItems bool // a slice of, or map[string] to, plain strings (type string exactly)
	refine      bool // *T has Validate() error
	hasWork     bool // a Validate method runs here or somewhere below
	inDefs      bool // emitted once under $defs and referenced (recursive types)
	isRoot      bool
	compiling   bool // its fields are being compiled
}

// A multiple is a multipleOf keyword. The rational form keeps the check
// exact.
type multiple struct {
	rat  *big.Rat
	text string // as the tag wrote it
}

// A format is an asserted format keyword.
type format struct {
	name  string
	check func(string) bool
}

// An enumSet is the values an enum or a const allows.
type enumSet struct {
	values  []any               // the canonical Go form of JSON: string, float64 or bool
	text    []string            // the values as JSON, for the schema and messages
	index   map[string]struct{} // the string values, for a large enum
	isConst bool                // a const, which has one value
}

// A customSchema is the schema of a type with a JSONSchema method.
type customSchema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// A field is one JSON property of a struct node.
type field struct {
	name   string
	index  []int
	offset uintptr // from the struct's start, unless throughPtr
	node   *node
	bit    int // position in the struct's seen-set

	description string
	title       string
	examples    []json.RawMessage
	dflt        json.RawMessage // canonical JSON; nil when there is none
	dfltValue   reflect.Value   // the decoded default, copied in for scalars
	dfltStrings []string        // dfltValue's items, when it is a slice of plain strings (dfltItems and the node's stringItems)

	throughPtr  bool // index passes through an embedded pointer
	required    bool
	nullable    bool // tool:"nullable" on a field whose node cannot carry it
	nullTagged  bool // the field says tool:"nullable": a null is meant
	omitEmpty   bool // omitempty or omitzero: absent in the encoding when zero
	deprecated  bool
	deprecation string    // the message of tool:"deprecated=…", said in the description
	dfltShared  bool      // dfltValue holds no references and may be copied
	dfltItems   bool      // dfltValue is a slice of plain items, copied into a new slice
	plainName   bool      // name is printable ASCII other than '"' and '\\': a document can write it only as it is
	nameWord    [2]uint64 // a plain name and its closing '"', as object compares them (see nameWords)
	nameMask    [2]uint64 // the bytes of nameWord that hold them; zero when the name is longer than 15 bytes
}

// newScalar allocates a value of each predeclared scalar type, for the
// pointers to them that optional fields usually are: reflect.New finds the
// pointer type first, which costs more than the allocation.
var newScalar = map[reflect.Type]func() unsafe.Pointer{
	reflect.TypeFor[bool]():    newOf[bool],
	reflect.TypeFor[int]():     newOf[int],
	reflect.TypeFor[int8]():    newOf[int8],
	reflect.TypeFor[int16]():   newOf[int16],
	reflect.TypeFor[int32]():   newOf[int32],
	reflect.TypeFor[int64]():   newOf[int64],
	reflect.TypeFor[uint]():    newOf[uint],
	reflect.TypeFor[uint8]():   newOf[uint8],
	reflect.TypeFor[uint16]():  newOf[uint16],
	reflect.TypeFor[uint32]():  newOf[uint32],
	reflect.TypeFor[uint64]():  newOf[uint64],
	reflect.TypeFor[float32](): newOf[float32],
	reflect.TypeFor[float64](): newOf[float64],
	reflect.TypeFor[string]():  newOf[string],
}

func newOf[T any]() unsafe.Pointer { return unsafe.Pointer(new(T)) }

var (
	timeType            = reflect.TypeFor[time.Time]()
	durationType        = reflect.TypeFor[time.Duration]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	schemaProviderType  = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
	refinerType         = reflect.TypeFor[interface{ Validate() error }]()
	byteType            = reflect.TypeFor[byte]()
	stringType          = reflect.TypeFor[string]()
)

// deref follows pointer nodes.
func (n *node) deref() *node {
	for n.kind == kindPointer {
		n = n.elem
	}
	return n
}

// stringLike reports whether the node reads a JSON string.
func (n *node) stringLike() bool {
	switch n.deref().kind {
	case kindString, kindText, kindTime, kindBytes, kindDuration:
		return true
	}
	return false
}

// jsonType names the JSON type a node expects, for messages.
func (n *node) jsonType() string {
	switch n.kind {
	case kindBool:
		return "boolean"
	case kindInt, kindUint:
		return "integer"
	case kindFloat:
		return "number"
	case kindString, kindBytes, kindTime, kindText, kindDuration:
		return "string"
	case kindSlice, kindArray:
		return "array"
	case kindMap, kindStruct:
		return "object"
	case kindPointer:
		return n.elem.jsonType()
	}
	return "value"
}
