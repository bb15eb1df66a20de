package schema

// Differential tests against github.com/santhosh-tekuri/jsonschema/v6, an
// independent draft 2020-12 validator, run with format assertion on. For
// each Go type below, the oracle compiles the schema hands emits, and both
// judge the same bytes: hand-written documents, thousands of generated
// near-misses and, in FuzzDifferential, whatever the fuzzer finds. They must
// agree on the verdict, and every instance location the oracle reports must
// be among the paths hands reports. FuzzOwnEncoding checks the property that
// a type's schema accepts the type's own json.Marshal output, in both
// validators.
//
// Deliberate differences. hands reads JSON into a Go value and checks more
// than a schema can say; these are the only disagreements allowed, and each
// is recognized precisely rather than by the verdict alone:
//
//   - "range": a number the Go type cannot hold (1e400 for a float64, or
//     inside an any; 3.5e38 for a float32; 1e20 for an int64 whose schema
//     has no bounds; 2^64 for a uint64). The oracle accepts it; hands
//     rejects it.
//   - "contentEncoding": a []byte whose string is not base64. The schema
//     says contentEncoding: base64, which draft 2020-12 treats as an
//     annotation, so the oracle accepts it.
//   - "unmarshal", "validate", "schema": a type's own UnmarshalText or
//     UnmarshalJSON, a Validate method, or a JSONSchema method's schema
//     checked by jsonschema-go. The emitted schema cannot express them. A
//     time.Time string that is a valid date-time but that time.Time cannot
//     hold (a leap second, 23:59:60) is an "unmarshal" issue too.
//   - "limit": the depth and size limits (DefaultMaxDepth, DefaultMaxBytes)
//     and the cap on listed issues.
//   - "syntax" on JSON that encoding/json accepts but RFC 8259 strict
//     parsing does not: duplicate object names and invalid UTF-8 (raw
//     bytes or unpaired surrogate escapes). hands rejects them; the oracle,
//     reading through encoding/json, keeps the last duplicate and replaces
//     bad bytes with U+FFFD.
//   - Precision: a number literal with more digits than a float64 holds
//     (1.00000000000000001, 9007199254740993), compared with a bound or an
//     enum value: hands compares as float64 (doc.go, "Deviations"), the
//     oracle exactly. Whether a number is an integer, and multipleOf, are
//     exact in both.
//   - uniqueItems compares decoded Go values (doc.go, "Deviations"): items
//     that differ as JSON but decode to equal Go values, such as two
//     objects that differ only by a property whose default fills the gap,
//     or two float32s that round alike. hands judges uniqueness only once
//     every item is valid (an item that failed holds a zero value); the
//     oracle's uniqueItems at an array whose items hands reports is covered.
//
// The oracle panics on a number whose exponent big.Rat refuses (beyond
// ±1e6, such as 1e-1000001); such documents are skipped.
//
// Paths: the oracle reports a failed anyOf branch at every branch; the
// branch {"type": "null"} of a nullable $ref is not a place hands reports,
// so it is left out. An issue hands reports with keyword "schema" or
// "unmarshal" covers the oracle's locations inside that value. Paths hands
// reports beyond the oracle's are logged, not failed.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	oracle "github.com/santhosh-tekuri/jsonschema/v6"
	oraclekind "github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The input types. Together they use every tag key and every kind of Go type
// that package schema supports.

type diffLevel int

// UnmarshalText reads "low" or "high".
func (l *diffLevel) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return fmt.Errorf("unknown level %q", b)
	}
	return nil
}

type diffStrings struct {
	Name   string    `json:"name" jsonschema:"the name" tool:"minLength=2,maxLength=8"`
	Code   string    `json:"code" tool:"pattern=^[A-Z]{3}-[0-9]+$"`
	Kind   string    `json:"kind" tool:"const=widget"`
	Color  string    `json:"color,omitempty" tool:"enum=red|green|blue"`
	Greek  string    `json:"greek,omitempty" tool:"minLength=1,maxLength=3"`
	Nick   string    `json:"nick" tool:"nullable,maxLength=4"`
	Mode   *string   `json:"mode" tool:"enum=fast|slow"`
	Odd    string    `json:"odd,omitempty" tool:"enum='a,b|c d|it''s'"`
	Note   string    `json:"note,omitempty" tool:"title=Note,deprecated,examples=hi|there,default=hello,maxLength=10"`
	Tags   []string  `json:"tags,omitempty" tool:"minItems=1,maxItems=3,uniqueItems,minLength=1,maxLength=5"`
	Must   *string   `json:"must" tool:"required"`
	Maybe  string    `json:"maybe" tool:"optional,pattern=^m"`
	Level  diffLevel `json:"level,omitempty" tool:"minLength=3"`
	Skip   string    `json:"-"`
	Zero   string    `json:"zero,omitzero" tool:"maxLength=2"`
	Only   string    `json:"only,omitempty" tool:"nullable,const=x"`
	hidden string
}

type diffNumbers struct {
	I8     int8      `json:"i8"`
	I16    int16     `json:"i16"`
	I32    int32     `json:"i32"`
	I64    int64     `json:"i64"`
	I      int       `json:"i"`
	U8     uint8     `json:"u8"`
	U16    uint16    `json:"u16" tool:"minimum=1"`
	U32    uint32    `json:"u32"`
	U64    uint64    `json:"u64"`
	U      uint      `json:"u,omitempty"`
	F32    float32   `json:"f32"`
	F64    float64   `json:"f64"`
	Price  float64   `json:"price" tool:"minimum=0,maximum=1000,multipleOf=0.01"`
	Ratio  float32   `json:"ratio" tool:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Step   int       `json:"step" tool:"multipleOf=5,minimum=-50,maximum=50"`
	Level  int       `json:"level" tool:"enum=1|2|3"`
	Answer int64     `json:"answer,omitempty" tool:"const=42"`
	Temp   float64   `json:"temp,omitempty" tool:"minimum=-273.15,default=20.5"`
	Small  int8      `json:"small,omitempty" tool:"minimum=-200,maximum=100"`
	Scores []float64 `json:"scores,omitempty" tool:"minimum=0,maximum=100,multipleOf=0.5,maxItems=4"`
	Count  *int      `json:"count" tool:"minimum=0"`
	Weight float64   `json:"weight,omitempty" tool:"enum=0.5|1.5|2.25"`
	On     bool      `json:"on" tool:"const=true"`
	Off    bool      `json:"off,omitempty"`
	Cents  uint32    `json:"cents,omitempty" tool:"exclusiveMaximum=100000,multipleOf=25"`
	Tiny   float32   `json:"tiny,omitempty" tool:"maximum=0.1,minimum=-0.1"`
	Pick   *int      `json:"pick,omitempty" tool:"enum=1|2"`
	Halves *float32  `json:"halves,omitempty" tool:"multipleOf=0.25,exclusiveMinimum=-1"`
}

type diffFormats struct {
	DateTime     string            `json:"dateTime" tool:"format=date-time"`
	Date         string            `json:"date" tool:"format=date"`
	Time         string            `json:"time" tool:"format=time"`
	Duration     string            `json:"duration" tool:"format=duration"`
	Email        string            `json:"email" tool:"format=email"`
	Hostname     string            `json:"hostname" tool:"format=hostname"`
	IPv4         string            `json:"ipv4" tool:"format=ipv4"`
	IPv6         string            `json:"ipv6" tool:"format=ipv6"`
	URI          string            `json:"uri" tool:"format=uri"`
	URIReference string            `json:"uriReference" tool:"format=uri-reference"`
	UUID         string            `json:"uuid" tool:"format=uuid"`
	When         time.Time         `json:"when"`
	Since        *time.Time        `json:"since"`
	Emails       []string          `json:"emails,omitempty" tool:"format=email,maxItems=3"`
	Hosts        map[string]string `json:"hosts,omitempty" tool:"format=hostname"`
	Wait         time.Duration     `json:"wait,omitempty" tool:"default=30s"`
	Waits        []time.Duration   `json:"waits,omitempty" tool:"maxItems=3"`
	Pick         *time.Duration    `json:"pick,omitempty" tool:"enum=1s|1m"`
}

type diffItem struct {
	ID   int    `json:"id" tool:"minimum=1"`
	Name string `json:"name,omitempty" tool:"maxLength=6"`
}

type diffContainers struct {
	Fixed     [3]int               `json:"fixed"`
	Grid      [2][2]int8           `json:"grid,omitempty"`
	Labels    map[string]string    `json:"labels" tool:"minProperties=1,maxProperties=3,maxLength=4"`
	Counts    map[string]int       `json:"counts,omitempty" tool:"minimum=0"`
	Unique    []int                `json:"unique,omitempty" tool:"uniqueItems"`
	UniqueAny []any                `json:"uniqueAny,omitempty" tool:"uniqueItems"`
	Matrix    [][]string           `json:"matrix,omitempty" tool:"maxItems=2"`
	Data      []byte               `json:"data"`
	Blob      []byte               `json:"blob,omitempty"`
	Any       any                  `json:"any"`
	Raw       json.RawMessage      `json:"raw,omitempty"`
	Items     []diffItem           `json:"items,omitempty" tool:"maxItems=2"`
	ByName    map[string]diffItem  `json:"byName,omitempty"`
	Ptrs      []*diffItem          `json:"ptrs,omitempty" tool:"uniqueItems"`
	Pairs     [2]string            `json:"pairs,omitempty" tool:"enum=x|y|z"`
	Flags     []bool               `json:"flags,omitempty" tool:"maxItems=3"`
	Nums      map[string][]float64 `json:"nums,omitempty"`
	Sized     [2]uint8             `json:"sized,omitempty" tool:"uniqueItems"`
	UPtrs     []*string            `json:"uptrs,omitempty" tool:"uniqueItems"`
	URaw      []json.RawMessage    `json:"uraw,omitempty" tool:"uniqueItems"`
	UFloats   []float32            `json:"ufloats,omitempty" tool:"uniqueItems"`
	UTimes    []time.Time          `json:"utimes,omitempty" tool:"uniqueItems"`
	UAny      [][]any              `json:"uany,omitempty" tool:"uniqueItems"`
	NullItems []*string            `json:"nullItems,omitempty" tool:"enum=a|b,maxItems=3"`
	NullPairs [2]*int              `json:"nullPairs,omitempty" tool:"minimum=0"`
	PtrMap    map[string]*int      `json:"ptrMap,omitempty" tool:"maximum=9,maxProperties=2"`
}

type diffBase struct {
	ID      string    `json:"id" tool:"format=uuid"`
	Created time.Time `json:"created,omitempty"`
}

type DiffMeta struct {
	Version  int               `json:"version" tool:"minimum=1,default=1"`
	MetaTags map[string]string `json:"metaTags,omitempty" tool:"maxProperties=2"`
}

type diffGeo struct {
	Lat       float64 `json:"lat" tool:"minimum=-90,maximum=90"`
	Lon       float64 `json:"lon" tool:"minimum=-180,maximum=180"`
	Precision int     `json:"precision" tool:"default=6,minimum=0,maximum=12"`
}

type diffAddress struct {
	Street  string   `json:"street" tool:"minLength=1"`
	Zip     string   `json:"zip" tool:"pattern=^[0-9]{5}$"`
	Country string   `json:"country,omitempty" tool:"default=US,enum=US|CA|MX"`
	Geo     *diffGeo `json:"geo,omitempty"`
}

type diffNested struct {
	diffBase
	*DiffMeta
	Home   diffAddress   `json:"home"`
	Work   *diffAddress  `json:"work"`
	Prev   diffAddress   `json:"prev" tool:"nullable"`
	Others []diffAddress `json:"others,omitempty" tool:"maxItems=3,uniqueItems"`
	Coords diffGeo       `json:"coords,omitempty" tool:"default={\"lat\":1,\"lon\":2}"`
}

type diffTree struct {
	Name     string     `json:"name" tool:"minLength=1"`
	Children []diffTree `json:"children,omitempty" tool:"maxItems=3"`
	Next     *diffTree  `json:"next,omitempty"`
}

type diffNode struct {
	Value int                 `json:"value" tool:"minimum=0,maximum=9"`
	Left  *diffNode           `json:"left,omitempty"`
	Right *diffNode           `json:"right,omitempty"`
	Meta  map[string]diffNode `json:"meta,omitempty"`
}

type diffForest struct {
	Root  *diffNode  `json:"root"`
	Trees []diffNode `json:"trees,omitempty" tool:"minItems=1"`
	Top   diffNode   `json:"top" tool:"nullable"`
}

// diffFlex reads any JSON but the string "bad", and writes what it read:
// it takes any JSON value.
type diffFlex struct{ raw json.RawMessage }

// MarshalJSON writes the value read.
func (f diffFlex) MarshalJSON() ([]byte, error) {
	if f.raw == nil {
		return []byte("null"), nil
	}
	return f.raw, nil
}

// UnmarshalJSON rejects the string "bad".
func (f *diffFlex) UnmarshalJSON(b []byte) error {
	if string(b) == `"bad"` {
		return errors.New("flex: bad value")
	}
	f.raw = append(f.raw[:0], b...)
	return nil
}

// diffName reads itself, trimmed and lower-cased, and is described as the
// string it is.
type diffName string

// UnmarshalJSON trims and lower-cases a string.
func (n *diffName) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*n = diffName(strings.ToLower(strings.TrimSpace(s)))
	return nil
}

// diffSpan reads itself, swapping its ends when they are the wrong way
// round, and is described by its fields.
type diffSpan struct {
	From int `json:"from" tool:"minimum=0"`
	To   int `json:"to,omitempty"`
}

// UnmarshalJSON reads the fields and orders them.
func (s *diffSpan) UnmarshalJSON(b []byte) error {
	type plain diffSpan
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	if s.To < s.From {
		s.From, s.To = s.To, s.From
	}
	return nil
}

// diffColor says its own schema.
type diffColor string

// JSONSchema returns the colors of print.
func (diffColor) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: []any{"cyan", "magenta", "yellow"}}
}

type diffChecked struct {
	Lo int `json:"lo"`
	Hi int `json:"hi"`
}

// Validate requires Lo <= Hi.
func (c *diffChecked) Validate() error {
	if c.Lo > c.Hi {
		return errors.New("lo must not exceed hi")
	}
	return nil
}

// diffNames has names of the lengths around those the decoder compares in
// place as words (up to 15 bytes, and its closing quote), names that are
// prefixes of others, and a last field whose name can end a document.
type diffNames struct {
	A   string `json:"a"`
	Ab  string `json:"ab,omitempty"`
	N7  string `json:"abcdefg"`
	N8  int    `json:"abcdefgh,omitempty"`
	N15 string `json:"abcdefghijklmno,omitempty"`
	N16 string `json:"abcdefghijklmnop,omitempty"`
	N17 bool   `json:"abcdefghijklmnopq,omitempty"`
	Z   string `json:"z,omitempty"`
}

type diffCustom struct {
	Level  diffLevel     `json:"level" tool:"minLength=3"`
	Flex   diffFlex      `json:"flex"`
	Color  diffColor     `json:"color,omitempty"`
	Check  diffChecked   `json:"check"`
	Checks []diffChecked `json:"checks,omitempty"`
	Addr   netip.Addr    `json:"addr,omitempty"`
	Name   diffName      `json:"name,omitempty" tool:"minLength=2,maxLength=8"`
	Span   *diffSpan     `json:"span,omitempty"`
	Spans  []diffSpan    `json:"spans,omitempty" tool:"maxItems=2"`
}

// A diffCase is one type with hand-written documents. The valid ones are the
// starting points of the generated near-misses.
type diffCase struct {
	name    string
	typ     reflect.Type
	valid   []string
	invalid []string
}

var diffCases = []diffCase{
	{
		name: "names",
		typ:  reflect.TypeFor[diffNames](),
		valid: []string{
			`{"a":"x","abcdefg":"y"}`,
			`{"a":"x","abcdefg":"y","z":""}`,
			`{"a":"x","ab":"1","abcdefg":"y","abcdefgh":1,"abcdefghijklmno":"o","abcdefghijklmnop":"p","abcdefghijklmnopq":true,"z":"end"}`,
			`{"z":"","abcdefghijklmnopq":false,"abcdefghijklmnop":"","abcdefghijklmno":"","abcdefgh":0,"abcdefg":"","ab":"","a":""}`,
			`{"a":"x","abcdefg":"y","abcdefghijklmnop":"p"}`,
			`{"a":"x","abcdefg":"y","abcdefghijklmno":"o"}`,
			`{ "a" : "x" , "abcdefg" : "y" , "z" : "" }`,
			`{"\u0061":"x","abcdef\u0067":"y","abcdefghijklmn\u006f":"o"}`,
		},
		invalid: []string{
			`{"a":"x"}`,
			`{"a":"x","abcdefg":"y","abcdefgX":1}`,
			`{"a":"x","abcdefg":"y","abcdefghijklmnoP":"o"}`,
			`{"a":"x","abcdefg":"y","abcdefghijklmn":"o"}`,
			`{"a":"x","abcdefgh":1}`,
			`{"a":"x","abcdefg":"y","abcdefghijklmnopqr":true}`,
			`{"a":"x","abcdefg":"y","z":1}`,
			`{"a":"x","b":"y","abcdefg":"y"}`,
			`{"A":"x","abcdefg":"y"}`,
		},
	},
	{
		name: "strings",
		typ:  reflect.TypeFor[diffStrings](),
		valid: []string{
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null}`,
			`{"name":"Ωmega","code":"XYZ-42","kind":"widget","color":"red","greek":"αβγ","nick":"bob","mode":"fast","odd":"a,b","note":"hi","tags":["a","bb"],"must":"x","maybe":"maybe","level":"low","zero":"z"}`,
			`{"name":"12345678","code":"QQQ-0","kind":"widget","color":"blue","nick":"","mode":"slow","odd":"it's","tags":["😀😀😀😀😀"],"must":"","level":"high"}`,
			`{"name":"a\u00e9","code":"ABC-99","kind":"wid\u0067et","nick":"\ud83d\ude00","must":"\n","odd":"c d","mode":null,"note":"0123456789","only":"x"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"only":null}`,
		},
		invalid: []string{
			`{}`,
			`null`,
			`[]`,
			`{"name":"A","code":"ABC-1","kind":"widget","nick":null,"must":null}`,
			`{"name":"123456789","code":"ABC-1","kind":"widget","nick":null,"must":null}`,
			`{"name":"Ada","code":"abc-1","kind":"widget","nick":null,"must":null}`,
			`{"name":"Ada","code":"ABC-1","kind":"gadget","nick":null,"must":null}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":"toolong","must":null,"color":"purple"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"greek":"αβγδ"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"mode":"medium"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"tags":[]}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"tags":["a","a"]}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"tags":["a","b","c","d"]}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"tags":["","toolong"]}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"level":"mid"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"level":"lo"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"odd":"c"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"maybe":"no"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"note":"01234567890"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"zero":"zzz"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"only":"y"}`,
			`{"name":"Ada","code":"ABC-1","kind":"widget","nick":null,"must":null,"Skip":"x","hidden":"y"}`,
			`{"name":null,"code":5,"kind":true,"nick":[],"must":{}}`,
		},
	},
	{
		name: "numbers",
		typ:  reflect.TypeFor[diffNumbers](),
		valid: []string{
			`{"i8":-128,"i16":32767,"i32":-2147483648,"i64":9223372036854775807,"i":0,"u8":255,"u16":1,"u32":4294967295,"u64":18446744073709551615,"f32":3.5,"f64":-1.25e300,"price":19.99,"ratio":0.5,"step":-50,"level":2,"count":null,"on":true}`,
			`{"i8":1.0,"i16":1e2,"i32":0,"i64":-9223372036854775808,"i":-1,"u8":0,"u16":65535,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.999,"step":50,"level":3,"answer":42,"temp":-273.15,"small":100,"scores":[0,0.5,100],"count":0,"weight":2.25,"on":true,"off":false,"cents":99975,"tiny":0.1,"pick":2,"halves":1e2}`,
			`{"i8":127,"i16":-32768,"i32":2147483647,"i64":0,"i":9007199254740992,"u8":1,"u16":2,"u32":3,"u64":4,"u":5,"f32":-3.4e38,"f64":1e-300,"price":1000,"ratio":1e-9,"step":0,"level":1,"temp":1e3,"small":-128,"scores":[],"count":7,"weight":0.5,"on":true,"cents":0,"tiny":-0.1,"pick":null,"halves":-0.75}`,
			`{"i8":-0,"i16":2.0e1,"i32":1E3,"i64":-1,"i":1,"u8":2.55e2,"u16":1,"u32":1,"u64":1,"f32":1,"f64":1,"price":0.01,"ratio":0.25,"step":-5,"level":1,"count":2147483647,"on":true,"cents":25,"tiny":0.05}`,
		},
		invalid: []string{
			`{"i8":128,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`,
			`{"i8":-129,"i16":32768,"i32":2147483648,"i64":0,"i":1.5,"u8":-1,"u16":0,"u32":4294967296,"u64":-1,"f32":"x","f64":null,"price":19.999,"ratio":0,"step":7,"level":4,"count":-1,"on":false}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":256,"u16":65536,"u32":0,"u64":0,"f32":0,"f64":0,"price":-0.01,"ratio":1,"step":55,"level":"2","answer":41,"temp":-274,"small":101,"count":null,"on":true}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":1000.01,"ratio":0.5,"step":0,"level":1,"small":-129,"scores":[101,0.25,-1],"count":null,"weight":1,"on":true,"cents":100000}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"scores":[1,2,3,4,5],"count":null,"on":true,"cents":30,"tiny":0.11}`,
			`{"i8":0,"i16":0,"i32":0,"i64":1e20,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":1e400,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":18446744073709551616,"f32":1e39,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true,"pick":3,"halves":0.1}`,
			`{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true,"pick":"1","halves":-1}`,
		},
	},
	{
		name: "formats",
		typ:  reflect.TypeFor[diffFormats](),
		valid: []string{
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"2024-05-01T12:00:00.123456789+05:30","since":null}`,
			`{"dateTime":"1963-06-19t08:30:06.283185z","date":"2000-01-01","time":"23:59:59.5-08:00","duration":"P1W","email":"first.last@sub.example.org","hostname":"a-b.c","ipv4":"0.0.0.0","ipv6":"2001:db8::8a2e:370:7334","uri":"mailto:a@b.co","uriReference":"#frag","uuid":"123E4567-E89B-12D3-A456-426614174000","when":"0001-01-01T00:00:00Z","since":"2024-01-01T00:00:00-00:00","emails":["x@y.z"],"hosts":{"a":"localhost","b/c":"example.com"}}`,
			`{"dateTime":"2024-05-01T12:00:00+23:59","date":"1900-12-31","time":"00:00:00Z","duration":"PT36H","email":"\"q\"@example.com","hostname":"xn--nxasmq6b.com","ipv4":"255.255.255.255","ipv6":"::ffff:1.2.3.4","uri":"urn:isbn:0451450523","uriReference":"","uuid":"00000000-0000-0000-0000-000000000000","when":"9999-12-31T23:59:59.999999999-23:59","since":"2024-02-29T12:00:00.5Z","emails":[],"hosts":{},"wait":"1m30s","waits":["0","-1.5h",".5µs"],"pick":"1m"}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"2024-05-01T12:00:00Z","since":null,"wait":"2562047h47m16.854775807s","waits":["1h1m1s1ms1us1ns","3μs"],"pick":null}`,
		},
		invalid: []string{
			`{"dateTime":"2024-05-01T12:00:00","date":"2023-02-29","time":"12:00:00","duration":"PT","email":"a@@b","hostname":"-bad.com","ipv4":"256.0.0.1","ipv6":"1::2::3","uri":"/relative","uriReference":"http://x/%zz","uuid":"123e4567e89b12d3a456426614174000","when":"yesterday","since":"2024-13-01T00:00:00Z"}`,
			`{"dateTime":"2024-02-30T00:00:00Z","date":"2024-5-1","time":"24:00:00Z","duration":"P1W2D","email":"@b.co","hostname":"a..b","ipv4":"01.2.3.4","ipv6":"12345::","uri":"http://exa mple.com","uriReference":"\\\\x","uuid":"123e4567-e89b-12d3-a456-42661417400g","when":"2024-05-01 12:00:00Z","since":5}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"1998-12-31T23:59:60Z","since":null,"emails":["a","b@c.d"],"hosts":{"x":"-y"}}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"2024-05-01T12:00:00Z","since":null,"emails":["a@b.c","a@b.c","a@b.c","a@b.c"]}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000"}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"2024-05-01T12:00:00Z","since":null,"wait":30,"waits":["+1s","1d","30",null],"pick":"60s"}`,
			`{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"2024-05-01T12:00:00Z","since":null,"wait":"2562048h"}`,
		},
	},
	{
		name: "containers",
		typ:  reflect.TypeFor[diffContainers](),
		valid: []string{
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"aGVsbG8=","any":null}`,
			`{"fixed":[0,0,0],"grid":[[1,2],[3,4]],"labels":{"a":"","b/c":"wxyz","~":"q"},"counts":{"x":0},"unique":[1,2,3],"uniqueAny":[1,"1",[1],{"a":1},null,true],"matrix":[["a"],[]],"data":"","any":{"deep":[1,{"x":null}]},"raw":[1,2],"items":[{"id":1},{"id":2,"name":"six666"}],"byName":{"k":{"id":3}},"ptrs":[null,{"id":1}],"pairs":["x","z"],"flags":[true,false,true],"nums":{"a":[1.5],"b":[]},"sized":[0,255],"nullItems":["a",null,"b"],"nullPairs":[null,0],"ptrMap":{"a":null,"b":9}}`,
			`{"fixed":[-1,1e3,2.0],"labels":{"k1":"a","k2":"b","k3":"c"},"counts":{},"unique":[],"uniqueAny":[{"a":1},{"a":2},[1,2],[2,1]],"matrix":[],"data":"AAEC","blob":"/w==","any":"s","raw":{"x":[{}]},"items":[],"byName":{},"ptrs":[],"pairs":["y","y"],"flags":[],"nums":{},"sized":[1,2]}`,
		},
		invalid: []string{
			`{"fixed":[1,2],"labels":{"a":"x"},"data":"","any":null}`,
			`{"fixed":[1,2,3,4],"labels":{"a":"x"},"data":"","any":null}`,
			`{"fixed":[1,2,3,"x"],"labels":{"a":"x"},"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{},"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"1","b":"2","c":"3","d":"4"},"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"toolong"},"counts":{"x":-1},"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"unique":[1,1],"uniqueAny":[1,1.0],"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"uniqueAny":[{"a":1,"b":[2]},{"b":[2.0],"a":1}],"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"matrix":[[],[],[]],"data":"","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"!!","any":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":""}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"items":[{"id":1},{"id":2},{"id":3}]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"items":[{"id":0,"name":"1234567"}],"byName":{"k":{}}}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"ptrs":[{"id":"1"}],"pairs":["x","w"]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"grid":[[1,2],[3,128]],"flags":[1],"nums":{"a":["x"]}}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"sized":[7,7]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"sized":[7,7,300]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uptrs":["a","b","a"]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uptrs":[null,"b",null]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uraw":[1,1.0]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uraw":[{"a":1,"b":[2]}, { "b" : [ 2.0 ] , "a":1e0}]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uraw":["\u0041","A"]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"ufloats":[0.1,0.100000001]}`,
			`{"fixed":null,"labels":null,"data":null,"any":null}`,
			// Only pointers, any and raw JSON take null; an optional slice
			// or map is left out instead.
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"matrix":null,"items":null,"flags":null,"blob":null,"counts":null}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"matrix":[null],"nums":{"b":null},"grid":[null,[1,2]]}`,
			`{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"nullItems":["c",null,"a","b"],"nullPairs":[-1,null],"ptrMap":{"a":10,"b":1,"c":null}}`,
		},
	},
	{
		name: "nested",
		typ:  reflect.TypeFor[diffNested](),
		valid: []string{
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","created":"2024-01-01T00:00:00Z","version":3,"metaTags":{"a":"b"},"home":{"street":"Main","zip":"12345","country":"CA","geo":{"lat":-90,"lon":180}},"work":{"street":"x","zip":"00000","geo":{"lat":1.5,"lon":-1.5,"precision":12}},"prev":{"street":"p","zip":"99999"},"others":[{"street":"o","zip":"11111"}],"coords":{"lat":5,"lon":6,"precision":1}}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345","geo":null},"prev":{"street":"p","zip":"99999","country":"MX","geo":{"lat":0,"lon":0,"precision":0}},"others":[]}`,
		},
		invalid: []string{
			`{"id":"123e4567-e89b-12d3-a456-426614174000","version":0,"home":{"street":"Main","zip":"1234"},"work":null,"prev":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345","country":"UK","geo":{"lat":91,"lon":0,"precision":13}},"work":null,"prev":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"","zip":"12345"},"work":{"zip":"12345"},"prev":null,"others":[{"street":"o","zip":"1"},{},{},{}]}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":null,"work":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null,"others":null,"metaTags":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null,"coords":{"lat":100}}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null,"coords":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null,"others":[{"street":"o","zip":"11111"},{"street":"o","zip":"11111","country":"US"}]}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345"},"work":null,"prev":null,"others":[{"street":"o","zip":"11111"},{"zip":"11111","street":"o"}]}`,
			`{"id":"not-a-uuid","created":"yesterday","metaTags":{"a":"1","b":"2","c":"3"},"home":{"street":"Main","zip":"12345"},"work":null,"prev":null}`,
			`{"id":"123e4567-e89b-12d3-a456-426614174000","home":{"street":"Main","zip":"12345","geo":{"lat":"0","lon":0}},"work":null,"prev":null,"diffBase":{},"diffMeta":{}}`,
		},
	},
	{
		name: "tree",
		typ:  reflect.TypeFor[diffTree](),
		valid: []string{
			`{"name":"root"}`,
			`{"name":"a","children":[{"name":"b","children":[{"name":"c"}]},{"name":"d","next":{"name":"e"}}],"next":null}`,
			`{"name":"x","next":{"name":"y","next":{"name":"z","children":[]}}}`,
		},
		invalid: []string{
			`{"name":""}`,
			`{"children":[]}`,
			`{"name":"a","children":[{"name":""}]}`,
			`{"name":"a","children":[{"name":"1"},{"name":"2"},{"name":"3"},{"name":"4"}]}`,
			`{"name":"a","next":{"name":"b","next":{"name":""}}}`,
			`{"name":"a","children":[{"name":"b","extra":1}]}`,
			`{"name":"a","next":5}`,
			`{"name":"a","next":{"name":"b","children":[null]}}`,
			`{"name":"x","children":null}`,
		},
	},
	{
		name: "forest",
		typ:  reflect.TypeFor[diffForest](),
		valid: []string{
			`{"root":null,"top":null}`,
			`{"root":{"value":1,"left":{"value":2},"meta":{"m":{"value":3}}},"trees":[{"value":0}],"top":{"value":9,"right":{"value":0,"right":{"value":5}}}}`,
			`{"root":{"value":0,"left":null,"right":null,"meta":{}},"trees":[{"value":1,"meta":{}},{"value":2}],"top":{"value":4}}`,
		},
		invalid: []string{
			`{"root":{"value":10},"top":null}`,
			`{"root":null,"trees":[],"top":null}`,
			`{"root":null}`,
			`{"root":{"value":-1},"top":{"value":1,"left":{"value":1,"left":{}}}}`,
			`{"root":{"value":1,"meta":{"m":{"value":"x"}}},"top":null}`,
			`{"root":null,"top":{"value":1,"right":{"value":1,"right":{"value":10}}}}`,
			`{"root":[],"top":"x"}`,
			`{"root":{"value":0,"meta":null},"trees":null,"top":{"value":4,"meta":{"m":null}}}`,
		},
	},
	{
		name: "custom",
		typ:  reflect.TypeFor[diffCustom](),
		valid: []string{
			`{"level":"low","flex":{"any":"thing"},"check":{"lo":1,"hi":2}}`,
			`{"level":"high","flex":null,"color":"cyan","check":{"lo":0,"hi":0},"checks":[{"lo":1,"hi":1}],"addr":"::1"}`,
			`{"level":"low","flex":[1,"x"],"color":"yellow","check":{"lo":-5,"hi":5},"checks":[],"addr":"192.168.1.1"}`,
			`{"level":"low","flex":null,"check":{"lo":1,"hi":2},"name":" Ada ","span":{"from":3,"to":1},"spans":[{"from":0},{"from":1,"to":2}]}`,
			`{"level":"low","flex":null,"check":{"lo":1,"hi":2},"name":"ab","span":null}`,
		},
		invalid: []string{
			`{"level":"mid","flex":1,"check":{"lo":1,"hi":2}}`,
			`{"level":"lo","flex":1,"check":{"lo":1,"hi":2}}`,
			`{"level":"low","flex":"bad","check":{"lo":1,"hi":2}}`,
			`{"level":"low","flex":1,"color":"red","check":{"lo":1,"hi":2}}`,
			`{"level":"low","flex":1,"check":{"lo":3,"hi":2}}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"checks":[{"lo":2,"hi":1}]}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"addr":"x"}`,
			`{"level":"low","flex":1}`,
			`{"level":5,"flex":1,"color":5,"check":{"lo":"1","hi":2}}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"checks":null}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"name":null}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"name":5,"span":"1-2"}`,
			`{"level":"low","flex":1,"check":{"lo":1,"hi":2},"name":"a","span":{"from":-1,"extra":1},"spans":[null,{}]}`,
		},
	},
}

// diffRegressions are documents that once exposed a disagreement, by case
// name, with the bug each found.
var diffRegressions = []struct{ name, doc string }{
	// A float32 was compared with its bounds after rounding to float32:
	// 0.1 failed maximum=0.1 and -0.1 failed minimum=-0.1.
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true,"tiny":-0.1}`},
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.1,"step":0,"level":1,"count":null,"on":true,"tiny":0.1}`},
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.99999999,"step":0,"level":1,"count":null,"on":true}`},
	// Whether a number is an integer was decided on its float64 value, so
	// fractions closer to an integer than a float64 resolves passed, and
	// 1e-400 was 0; and the integer was taken from the float64, so
	// 9223372036854775807.0 was out of range.
	{"numbers", `{"i8":0,"i16":0,"i32":-2147483647.999999999,"i64":0,"i":0,"u8":0,"u16":1,"u32":4294967294.999999999,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`},
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":9223372036854775807.0,"i":9007199254740993.0,"u8":0,"u16":1,"u32":0,"u64":18446744073709551615.0e0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`},
	{"numbers", `{"i8":1e-400,"i16":-0.0e5,"i32":0,"i64":1.0000000000000000001,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":0,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`},
	{"custom", `{"check":{"hi":1e-400,"lo":1},"flex":{"any":"thing"},"level":"low"}`},
	// Not a disagreement but a slow path: 1e-999999 against multipleOf
	// took big.Rat 40ms per number; now it is decided as a float64 zero.
	// (1e-1000001 makes the oracle panic, which the comparison skips.)
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":0,"i":1e-999999,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":1e-999999,"ratio":0.5,"step":0,"level":1,"count":null,"on":true,"scores":[0e-999999,-0.0e+999999]}`},
	{"numbers", `{"i8":0,"i16":0,"i32":0,"i64":0,"i":0,"u8":0,"u16":1,"u32":0,"u64":0,"f32":0,"f64":0,"price":1e-1000001,"ratio":0.5,"step":0,"level":1,"count":null,"on":true}`},
	// Items past a fixed array's length were skipped, not checked.
	{"containers", `{"fixed":[1,2,3,"x"],"labels":{"a":"x"},"data":"","any":null}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"sized":[7,7,300]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"pairs":["y","y",-128],"grid":[[1,2],[3,4],[5,"x"]]}`},
	// uniqueItems compared pointer items, and items holding pointers (a
	// time.Time's zone), by address, and json.RawMessage items by their
	// bytes.
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uptrs":["a","b","a"]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uptrs":[null,"b",null],"ptrs":[{"id":1},{"id":1}]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"utimes":["2024-01-01T00:00:00+01:00","2024-01-01T00:00:00+01:00"]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uraw":[{"a":1,"b":[2]}, { "b" : [ 2.0 ] , "a":1e0}],"uany":[[1,{"a":null}],[1.0,{"a":null}]]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"uraw":["\u0041","A"],"ptrs":[null,{"id":1},null]}`},
	// A number beyond a float64 inside an any (or a value checked by a
	// JSONSchema method's schema) was reported as a syntax error at the
	// any's path, and stopped the document.
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":{"deep":[1,{"x":-1e400}]},"uniqueAny":[{"a":1e400},null]}`},
	{"custom", `{"level":"low","flex":[1e400],"color":1e400,"check":{"lo":1,"hi":2}}`},
	{"custom", `{"level":"low","flex":1,"color":[1e400],"check":{"lo":1,"hi":2}}`},
	// hands stops at its depth limit before it reaches the invalid UTF-8.
	{"custom", `{"check":{"hi":2,"lo":1},"flex":` + strings.Repeat(`{"n":[`, 70) + strings.Repeat(`]}`, 70) + `,"level":"low\ud800"}`},
	// Items that failed decoded to equal zero values and were reported as
	// duplicates; uniqueness is now judged once every item is valid.
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"unique":["x","y"],"sized":[-1,-2],"ptrs":[{"id":"a"},{"id":"b"}]}`},
	{"containers", `{"fixed":[1,2,3],"labels":{"a":"x"},"data":"","any":null,"unique":["x","x"]}`},
	// time.Time rejected a lower-case t or z, which RFC 3339 allows, and
	// reported a leap second as a format failure.
	{"formats", `{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"1963-06-19t08:30:06.283185z","since":"2024-05-01T12:00:00z"}`},
	{"formats", `{"dateTime":"2024-05-01T12:00:00Z","date":"2024-02-29","time":"12:00:00+01:00","duration":"P3DT4H","email":"a@example.com","hostname":"example.com","ipv4":"192.168.0.1","ipv6":"::1","uri":"https://example.com/a?b=c#d","uriReference":"../a/b","uuid":"123e4567-e89b-12d3-a456-426614174000","when":"1998-12-31T23:59:60Z","since":"1963-06-19T+8:+3:+6Z"}`},
}

// A diffTarget is a case compiled by both validators.
type diffTarget struct {
	diffCase
	v      *Validator
	oracle *oracle.Schema
	schema []byte // hands' schema as JSON
}

var diffTargets = sync.OnceValues(func() ([]*diffTarget, error) {
	var out []*diffTarget
	for _, c := range diffCases {
		v, err := ForType(c.typ, nil)
		if err != nil {
			return nil, fmt.Errorf("ForType(%s): %w", c.typ, err)
		}
		sch, err := compileOracle(c.name, v)
		if err != nil {
			return nil, err
		}
		data, _ := json.Marshal(v.Schema())
		out = append(out, &diffTarget{diffCase: c, v: v, oracle: sch, schema: data})
	}
	return out, nil
})

// compileOracle compiles hands' schema of v with the oracle, format
// assertion on.
func compileOracle(name string, v *Validator) (*oracle.Schema, error) {
	data, err := json.Marshal(v.Schema())
	if err != nil {
		return nil, fmt.Errorf("marshal the schema of %s: %w", name, err)
	}
	doc, err := oracle.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read the schema of %s: %w", name, err)
	}
	c := oracle.NewCompiler()
	c.DefaultDraft(oracle.Draft2020)
	c.AssertFormat()
	url := "http://hands.test/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("add the schema of %s: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("the oracle rejects the schema of %s: %w\n%s", name, err, data)
	}
	return sch, nil
}

func mustDiffTargets(tb testing.TB) []*diffTarget {
	tb.Helper()
	targets, err := diffTargets()
	if err != nil {
		tb.Fatal(err)
	}
	return targets
}

func diffTargetNamed(tb testing.TB, name string) *diffTarget {
	tb.Helper()
	for _, d := range mustDiffTargets(tb) {
		if d.name == name {
			return d
		}
	}
	tb.Fatalf("no differential case %q", name)
	return nil
}

// A diffResult is how hands and the oracle judged one document.
type diffResult struct {
	handsValid, oracleValid bool
	problem                 string   // a disagreement: a bug in one of them
	skipped                 string   // the documented difference that explains a disagreement
	extra                   []string // paths hands reports and the oracle does not
}

// deliberateKeywords are the issue keywords of checks the schema cannot say.
var deliberateKeywords = map[string]bool{
	"range": true, "contentEncoding": true, "unmarshal": true, "validate": true, "schema": true, "limit": true,
}

// compare judges data with both validators.
func (d *diffTarget) compare(data []byte) diffResult {
	var res diffResult
	herr := d.v.Validate(data)
	var issues []Issue
	if herr != nil {
		e, ok := errors.AsType[*Error](herr)
		if !ok {
			res.problem = fmt.Sprintf("Validate returned %T (%v), want a *Error", herr, herr)
			return res
		}
		if len(e.Issues) == 0 {
			res.problem = "Validate returned a *Error with no issues"
			return res
		}
		issues = e.Issues
	}
	res.handsValid = herr == nil
	keywords := map[string]bool{}
	for _, is := range issues {
		keywords[is.Keyword] = true
	}

	inst, perr := oracle.UnmarshalJSON(bytes.NewReader(data))
	if perr != nil {
		// Not JSON at all: both reject, hands with one syntax or limit issue.
		switch {
		case res.handsValid:
			res.problem = "hands accepts bytes that are not JSON (" + perr.Error() + ")"
		case len(issues) != 1 || (issues[0].Keyword != "syntax" && issues[0].Keyword != "limit"):
			res.problem = fmt.Sprintf("bytes that are not JSON get issues %v, want one syntax or limit issue", issues)
		}
		return res
	}
	ok, oerr := oracleValidate(d.oracle, inst)
	if !ok {
		res.skipped = "the oracle panics"
		return res
	}
	res.oracleValid = oerr == nil
	var locs []string
	var leaves []oracleLeaf
	if oerr != nil {
		var verr *oracle.ValidationError
		if !errors.As(oerr, &verr) {
			res.problem = fmt.Sprintf("the oracle returned %T (%v)", oerr, oerr)
			return res
		}
		leaves = leafErrors(verr)
		for _, l := range leaves {
			if !slices.Contains(locs, l.loc) {
				locs = append(locs, l.loc)
			}
		}
	}

	if keywords["syntax"] {
		if jsontext.Value(data).IsValid() {
			res.problem = fmt.Sprintf("hands reports a syntax issue on strictly valid JSON: %v", issues)
		} else {
			res.skipped = "strict JSON (duplicate names or invalid UTF-8)"
		}
		return res
	}
	if !jsontext.Value(data).IsValid() {
		if keywords["limit"] {
			res.skipped = "limit" // hands stopped before the bad part
		} else {
			res.problem = "hands accepts JSON with duplicate names or invalid UTF-8"
		}
		return res
	}
	if !res.handsValid && res.oracleValid && allDeliberate(keywords) {
		res.skipped = "keywords the schema cannot express: " + strings.Join(slices.Sorted(maps.Keys(keywords)), ", ")
		return res
	}
	if keywords["limit"] {
		// hands stopped reading or stopped listing; its paths are partial.
		if res.handsValid == res.oracleValid || allDeliberate(keywords) {
			res.skipped = "limit"
		} else {
			res.problem = fmt.Sprintf("hands reports %v, the oracle accepts", issues)
		}
		return res
	}
	if res.handsValid != res.oracleValid {
		switch {
		case hasImpreciseNumber(data):
			res.skipped = "a number with more precision than a float64"
		case !res.handsValid && decodedDuplicatesOnly(issues, inst):
			res.skipped = "uniqueItems compares decoded Go values"
		case res.handsValid:
			res.problem = fmt.Sprintf("hands accepts; the oracle rejects at %q: %v", locs, oerr)
		default:
			res.problem = fmt.Sprintf("hands rejects with %v; the oracle accepts", issues)
		}
		return res
	}
	if res.handsValid {
		return res
	}

	// Both reject: every place the oracle names must be among hands' paths.
	paths := map[string]bool{}
	for _, is := range issues {
		paths[is.Path] = true
	}
	var missing []string
	for _, l := range leaves {
		if !paths[l.loc] && !coveredBy(l, issues) && !slices.Contains(missing, l.loc) {
			missing = append(missing, l.loc)
		}
	}
	if len(missing) > 0 {
		if hasImpreciseNumber(data) {
			res.skipped = "a number with more precision than a float64"
			return res
		}
		res.problem = fmt.Sprintf("the oracle reports %q, which hands does not (hands: %v; oracle: %v)", missing, issues, oerr)
		return res
	}
	for p := range paths {
		if !slices.Contains(locs, p) {
			res.extra = append(res.extra, p)
		}
	}
	slices.Sort(res.extra)
	return res
}

// oracleValidate runs the oracle, which panics on a number whose exponent
// big.Rat refuses (beyond ±1e6, such as 1e-1000001).
func oracleValidate(sch *oracle.Schema, inst any) (ok bool, err error) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return true, sch.Validate(inst)
}

func allDeliberate(keywords map[string]bool) bool {
	for k := range keywords {
		if !deliberateKeywords[k] {
			return false
		}
	}
	return true
}

// coveredBy reports whether hands covers an oracle failure at another path:
// an issue about a whole value that hands hands to the type itself
// ("schema", "unmarshal") covers the places inside it, and issues about an
// array's items cover its uniqueItems, which hands judges once every item
// is valid.
func coveredBy(l oracleLeaf, issues []Issue) bool {
	for _, is := range issues {
		switch {
		case (is.Keyword == "schema" || is.Keyword == "unmarshal") && strings.HasPrefix(l.loc, is.Path+"/"):
			return true
		case l.uniqueItems && strings.HasPrefix(is.Path, l.loc+"/"):
			return true
		}
	}
	return false
}

// An oracleLeaf is one leaf cause of an oracle error.
type oracleLeaf struct {
	loc         string // the instance location, as a JSON Pointer
	uniqueItems bool   // the keyword that failed is uniqueItems
}

// leafErrors returns the leaf causes of err, leaving out the
// {"type": "null"} branch of an anyOf.
func leafErrors(err *oracle.ValidationError) []oracleLeaf {
	var leaves []oracleLeaf
	var walk func(e *oracle.ValidationError)
	walk = func(e *oracle.ValidationError) {
		if len(e.Causes) == 0 {
			_, unique := e.ErrorKind.(*oraclekind.UniqueItems)
			leaves = append(leaves, oracleLeaf{loc: jsonPointer(e.InstanceLocation), uniqueItems: unique})
			return
		}
		_, anyOf := e.ErrorKind.(*oraclekind.AnyOf)
		for _, c := range e.Causes {
			if t, ok := c.ErrorKind.(*oraclekind.Type); anyOf && ok && len(c.Causes) == 0 && slices.Equal(t.Want, []string{"null"}) {
				continue
			}
			walk(c)
		}
	}
	walk(err)
	return leaves
}

func jsonPointer(tokens []string) string {
	var b []byte
	for _, t := range tokens {
		b = appendPointerToken(b, t)
	}
	return string(b)
}

// hasImpreciseNumber reports whether data holds a number literal whose value
// a float64 does not hold exactly as written, such as 1.00000000000000001.
func hasImpreciseNumber(data []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.Kind() == '0' && impreciseNumber(tok.String()) {
			return true
		}
	}
}

func impreciseNumber(lit string) bool {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return false // beyond a float64: a "range" issue, not precision
	}
	exact, ok := new(big.Rat).SetString(lit)
	if !ok {
		return true
	}
	held, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return exact.Cmp(held) != 0
}

// decodedDuplicatesOnly reports whether hands' issues are uniqueItems issues,
// or deliberate ones, each at an array whose items the oracle finds distinct:
// items equal only as decoded Go values.
func decodedDuplicatesOnly(issues []Issue, inst any) bool {
	found := false
	for _, is := range issues {
		if deliberateKeywords[is.Keyword] {
			continue
		}
		if is.Keyword != "uniqueItems" {
			return false
		}
		arr, ok := atPointer(inst, is.Path).([]any)
		if !ok {
			return false
		}
		// The oracle compares JSON values; encoded with sorted keys and
		// exact numbers, equal values encode the same.
		seen := map[string]bool{}
		for _, item := range arr {
			b, _ := json.Marshal(canonicalJSON(item))
			if seen[string(b)] {
				return false
			}
			seen[string(b)] = true
		}
		found = true
	}
	return found
}

// canonicalJSON rewrites numbers as exact rationals, so that 1 and 1.0 match.
func canonicalJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			return string(v)
		}
		return "#" + r.String()
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonicalJSON(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = canonicalJSON(x)
		}
		return out
	}
	return v
}

// atPointer returns the value at a JSON Pointer, or nil.
func atPointer(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// diffStats counts what a run of compare saw.
type diffStats struct {
	docs, handsValid, oracleValid, skipped, extra int
	skipReasons                                   map[string]int
	extraExamples                                 []string
}

// check compares one document and fails t on a disagreement.
func (s *diffStats) check(t testing.TB, d *diffTarget, data []byte) diffResult {
	t.Helper()
	res := d.compare(data)
	s.docs++
	if res.handsValid {
		s.handsValid++
	}
	if res.oracleValid {
		s.oracleValid++
	}
	if res.problem != "" {
		t.Errorf("%s: %s\ndocument: %q", d.name, res.problem, data)
	}
	if res.skipped != "" {
		s.skipped++
		if s.skipReasons == nil {
			s.skipReasons = map[string]int{}
		}
		reason, _, _ := strings.Cut(res.skipped, ":")
		s.skipReasons[reason]++
	}
	if len(res.extra) > 0 {
		s.extra++
		if len(s.extraExamples) < 5 {
			s.extraExamples = append(s.extraExamples, fmt.Sprintf("%s: hands also reports %q for %.200q", d.name, res.extra, data))
		}
	}
	return res
}

func (s *diffStats) log(t testing.TB) {
	t.Helper()
	t.Logf("%d documents: hands accepted %d, the oracle %d; %d differed as documented %v; %d with extra hands paths",
		s.docs, s.handsValid, s.oracleValid, s.skipped, s.skipReasons, s.extra)
	for _, e := range s.extraExamples {
		t.Log(e)
	}
}

// diffGenerated is how many near-miss documents TestDifferential generates
// for each case.
const diffGenerated = 2500

// A document that hands and the oracle judge differently for a documented
// reason is skipped, not compared. Skips are bounded, so that a change that
// widens a documented difference until it hides real ones fails the test:
// at most 1 in diffSkipShare of one case's documents, and 1 in
// diffTotalSkipShare of all of them. (The documents are generated from fixed
// seeds, so the counts are the same on every run: 4.4% of them in all, 9.7% at
// most for one case, when the bounds were set.)
const (
	diffSkipShare      = 8
	diffTotalSkipShare = 16
)

// checkSkips fails t when more than 1 in share of the documents counted were
// skipped.
func (s *diffStats) checkSkips(t testing.TB, share int) {
	t.Helper()
	if s.skipped*share > s.docs {
		t.Errorf("%d of %d documents were skipped as documented differences %v; at most 1 in %d may be",
			s.skipped, s.docs, s.skipReasons, share)
	}
}

func TestDifferential(t *testing.T) {
	start := time.Now()
	var total diffStats
	for i, d := range mustDiffTargets(t) {
		t.Run(d.name, func(t *testing.T) {
			var stats diffStats
			for _, doc := range d.valid {
				if res := stats.check(t, d, []byte(doc)); !res.handsValid || !res.oracleValid {
					t.Errorf("%s: valid document %s: hands valid=%v, oracle valid=%v", d.name, doc, res.handsValid, res.oracleValid)
				}
			}
			for _, doc := range d.invalid {
				if res := stats.check(t, d, []byte(doc)); res.handsValid {
					t.Errorf("%s: invalid document %s: hands accepts it", d.name, doc)
				}
			}
			g := newDocGen(d, rand.New(rand.NewPCG(uint64(i), 0x68616e6473)))
			for range diffGenerated {
				stats.check(t, d, g.next())
			}
			stats.log(t)
			stats.checkSkips(t, diffSkipShare)
			total.add(&stats)
		})
	}
	t.Run("regressions", func(t *testing.T) {
		var stats diffStats
		for _, r := range diffRegressions {
			stats.check(t, diffTargetNamed(t, r.name), []byte(r.doc))
		}
		total.add(&stats)
	})
	t.Logf("total: %d documents in %v; %d skipped", total.docs, time.Since(start).Round(time.Millisecond), total.skipped)
	total.checkSkips(t, diffTotalSkipShare)
}

func (s *diffStats) add(o *diffStats) {
	s.docs += o.docs
	s.handsValid += o.handsValid
	s.oracleValid += o.oracleValid
	s.skipped += o.skipped
	s.extra += o.extra
	for reason, n := range o.skipReasons {
		if s.skipReasons == nil {
			s.skipReasons = map[string]int{}
		}
		s.skipReasons[reason] += n
	}
}

func FuzzDifferential(f *testing.F) {
	targets := mustDiffTargets(f)
	for i, d := range targets {
		for _, doc := range slices.Concat(d.valid, d.invalid) {
			f.Add(uint8(i), []byte(doc))
		}
	}
	for _, r := range diffRegressions {
		i := slices.IndexFunc(targets, func(d *diffTarget) bool { return d.name == r.name })
		f.Add(uint8(i), []byte(r.doc))
	}
	f.Fuzz(func(t *testing.T, i uint8, data []byte) {
		d := targets[int(i)%len(targets)]
		res := d.compare(data)
		if res.problem != "" {
			t.Errorf("%s: %s\ndocument: %q", d.name, res.problem, data)
		}
	})
}

// A docGen makes near-miss documents from a case's valid ones.
type docGen struct {
	r     *rand.Rand
	bases [][]byte
	nums  []string // numbers in the schema: bounds, multiples, enum values
	strs  []string // strings in the schema, format samples, base64 samples
	names []string // property names in the schema
}

func newDocGen(d *diffTarget, r *rand.Rand) *docGen {
	g := &docGen{r: r}
	for _, doc := range d.valid {
		g.bases = append(g.bases, []byte(doc))
	}
	var s any
	dec := json.NewDecoder(bytes.NewReader(d.schema))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		panic(err)
	}
	g.collect(s)
	g.strs = append(g.strs, formatSamples...)
	g.strs = append(g.strs, "aGVsbG8=", "aGVsbG8", "!!!", "aGVs bG8=", "AA==", "A===", "////", "<&>", "a\u2028b", "\\")
	return g
}

// collect gathers numbers, strings and property names from a schema.
func (g *docGen) collect(s any) {
	switch s := s.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(s)) {
			v := s[k]
			switch k {
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
				g.nums = append(g.nums, string(v.(json.Number)))
			case "enum", "const", "default", "examples":
				g.collectValues(v)
			case "properties":
				for _, name := range slices.Sorted(maps.Keys(v.(map[string]any))) {
					g.names = append(g.names, name)
				}
			}
			g.collect(v)
		}
	case []any:
		for _, v := range s {
			g.collect(v)
		}
	}
}

func (g *docGen) collectValues(v any) {
	switch v := v.(type) {
	case json.Number:
		g.nums = append(g.nums, string(v))
	case string:
		g.strs = append(g.strs, v)
	case []any:
		for _, x := range v {
			g.collectValues(x)
		}
	}
}

// formatSamples are valid and near-miss strings for each asserted format.
var formatSamples = []string{
	"2024-05-01T12:00:00Z", "2024-05-01T12:00:00", "2024-02-30T00:00:00Z", "2024-05-01t12:00:00z",
	"1998-12-31T23:59:60Z", "2024-05-01T24:00:00Z", "2024-05-01T12:00:00.5+01:00", "2024-05-01 12:00:00Z",
	"2024-05-01T12:00:00+24:00", "2024-05-01T12:00:00.Z", "10000-01-01T00:00:00Z",
	"2024-05-01", "2024-5-1", "2023-02-29", "2024-02-29", "20240501", "0000-01-01",
	"12:00:00Z", "12:00:00", "23:59:60Z", "12:00:00+01:00", "25:00:00Z", "12:00:00.123-23:59",
	"P3DT4H", "PT", "P1Y2M", "P1W", "P1W2D", "PT1.5S", "P", "P1DT", "PT36H",
	"1m30s", "0", "-0", "+1s", "30", "1.5h", ".5s", "2.s", ".s", "1µs", "1μs", "1d", "1e3s", "1h1h", "1hm", "2562048h", "9223372036854775807ns",
	"a@b.co", "a@@b", "a.@b.co", `"q"@b.co`, "a@[127.0.0.1]", "@b.co", "a@b", "a..b@c.d",
	"example.com", "-bad.com", "a..b", "xn--nxasmq6b.com", strings.Repeat("a", 64) + ".com", "localhost", "a_b.com", "é.com",
	"192.168.0.1", "256.0.0.1", "01.2.3.4", "1.2.3", "0.0.0.0", "1.2.3.4.5",
	"::1", "1::2::3", "::ffff:1.2.3.4", "fe80::1%eth0", "12345::", "1:2:3:4:5:6:7:8", ":",
	"https://example.com/a?b#c", "/relative", "http://[::1]:80/", "mailto:a@b.co", "http://exa mple.com", "ht tp://x", "http://x/%zz",
	"../a", "#frag", `\\x`, "//host/path", "a:b",
	"123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123E4567-E89B-12D3-A456-426614174000",
	"123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}",
}

// next returns one generated document.
func (g *docGen) next() []byte {
	doc := decodeNumbers(g.bases[g.r.IntN(len(g.bases))])
	for range 1 + g.r.IntN(3) {
		doc = g.mutate(doc)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(g.r.IntN(2) == 0)
	if err := enc.Encode(doc); err != nil {
		panic(err)
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if g.r.IntN(30) == 0 {
		data = g.mangle(data)
	}
	return data
}

func decodeNumbers(data []byte) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

// A slot is one value in a document, with the means to replace or remove it.
type slot struct {
	val any
	set func(any)
	del func() // nil for the document itself
}

func collectSlots(v any, set func(any), del func(), out *[]slot) {
	*out = append(*out, slot{val: v, set: set, del: del})
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			collectSlots(v[k], func(x any) { v[k] = x }, func() { delete(v, k) }, out)
		}
	case []any:
		for i := range v {
			collectSlots(v[i], func(x any) { v[i] = x }, func() { set(slices.Delete(slices.Clone(v), i, i+1)) }, out)
		}
	}
}

// mutate changes one value of doc and returns the new document.
func (g *docGen) mutate(doc any) any {
	var slots []slot
	collectSlots(doc, func(x any) { doc = x }, nil, &slots)
	s := slots[g.r.IntN(len(slots))]
	ops := []func(){
		func() { s.set(nil) },
		func() { s.set(g.otherType(s.val)) },
		func() { s.set(g.nest(s.val)) },
	}
	if s.del != nil {
		ops = append(ops, s.del, s.del)
	}
	switch v := s.val.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		ops = append(ops,
			func() { v[g.unknownName(keys)] = g.scalar() },
			func() { v[g.unknownName(keys)] = g.scalar() },
			func() { s.set(map[string]any{}) },
		)
		if len(keys) > 0 {
			ops = append(ops,
				func() { k := keys[g.r.IntN(len(keys))]; delete(v, k) },
				func() { k := keys[g.r.IntN(len(keys))]; delete(v, k) },
				func() { a, b := keys[g.r.IntN(len(keys))], keys[g.r.IntN(len(keys))]; v[a], v[b] = v[b], v[a] },
				func() { k := keys[g.r.IntN(len(keys))]; v[g.typo(k)] = v[k]; delete(v, k) },
			)
		}
		if len(g.names) > 0 {
			ops = append(ops, func() { v[g.names[g.r.IntN(len(g.names))]] = g.scalar() })
		}
	case []any:
		ops = append(ops,
			func() { s.set([]any{}) },
			func() { s.set(append(slices.Clone(v), g.scalar())) },
		)
		if len(v) > 0 {
			ops = append(ops,
				func() { s.set(append(slices.Clone(v), v[g.r.IntN(len(v))])) },
				func() { s.set(append(slices.Clone(v), v[g.r.IntN(len(v))])) },
				func() { s.set(slices.Insert(slices.Clone(v), 0, v[len(v)-1])) },
				func() { c := slices.Clone(v); slices.Reverse(c); s.set(c) },
				func() { s.set(v[:len(v)-1]) },
			)
		}
	case string:
		for range 6 {
			ops = append(ops, func() { s.set(g.str(v)) })
		}
	case json.Number:
		for range 6 {
			ops = append(ops, func() { s.set(g.number(v)) })
		}
		ops = append(ops, func() { s.set(string(v)) })
	case bool:
		ops = append(ops, func() { s.set(!v) }, func() { s.set(strconv.FormatBool(v)) }, func() { s.set(json.Number("1")) })
	case nil:
		ops = append(ops, func() { s.set(g.scalar()) }, func() { s.set(g.scalar()) }, func() { s.set(map[string]any{}) }, func() { s.set([]any{}) })
	}
	ops[g.r.IntN(len(ops))]()
	return doc
}

func (g *docGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// scalar returns a plausible value: a schema number or string, or a literal.
func (g *docGen) scalar() any {
	switch g.r.IntN(6) {
	case 0:
		if len(g.nums) > 0 {
			return json.Number(g.pick(g.nums))
		}
		return json.Number("1")
	case 1:
		return g.pick(g.strs)
	case 2:
		return g.r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		return json.Number(g.pick(numberExtremes))
	}
	return map[string]any{}
}

func (g *docGen) otherType(v any) any {
	choices := []any{nil, true, json.Number("0"), json.Number("1.5"), "", "x", []any{}, map[string]any{}, []any{v}, map[string]any{"k": v}}
	return choices[g.r.IntN(len(choices))]
}

// nest wraps v in arrays and objects, sometimes beyond the depth limit.
func (g *docGen) nest(v any) any {
	depth := []int{1, 2, 5, 40, DefaultMaxDepth + 2}[g.r.IntN(5)]
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"n": v}
		}
	}
	return v
}

// unknownName returns a property name that may or may not be known.
func (g *docGen) unknownName(keys []string) string {
	names := []string{"extra", "Name", "a/b", "~t", "", "ünï", "id ", "__proto__", "$ref"}
	if len(keys) > 0 && g.r.IntN(2) == 0 {
		return g.typo(keys[g.r.IntN(len(keys))])
	}
	return g.pick(names)
}

// typo misspells a name.
func (g *docGen) typo(name string) string {
	if name == "" {
		return "x"
	}
	switch g.r.IntN(4) {
	case 0:
		return strings.ToUpper(name[:1]) + name[1:]
	case 1:
		return name + "s"
	case 2:
		r := []rune(name)
		return string(r[:len(r)-1])
	}
	return "_" + name
}

// str returns a string near s: longer or shorter around a bound, from the
// schema, or a format near-miss.
func (g *docGen) str(s string) string {
	switch g.r.IntN(7) {
	case 0:
		suffix := g.pick([]string{"x", "é", "😀", "A", "0", "-", " ", "\u0000"})
		return s + strings.Repeat(suffix, 1+g.r.IntN(3))
	case 1:
		r := []rune(s)
		return string(r[:max(0, len(r)-1-g.r.IntN(2))])
	case 2, 3:
		return g.pick(g.strs)
	case 4:
		p := g.pick(g.strs)
		switch g.r.IntN(3) {
		case 0:
			return p + "x"
		case 1:
			return strings.ToUpper(p)
		}
		_, size := utf8.DecodeRuneInString(p)
		return p[size:]
	case 5:
		return ""
	}
	return s + s
}

// numberExtremes are numbers at the edges of the Go number types.
var numberExtremes = []string{
	"1e400", "-1e400", "1e20", "-1e20", "1e-400", "9223372036854775807", "9223372036854775808",
	"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"4294967295", "4294967296", "2147483648", "-2147483649", "65535", "65536", "32768", "-32769",
	"255", "256", "127", "128", "-128", "-129", "3.4028235e38", "3.5e38", "1.0", "1e2", "-0", "0.0",
	"1.5", "-1", "0.1", "1e-7", "2.5E1", "100", "1000",
}

var numberDeltas = []string{"0", "0", "1", "-1", "0.5", "-0.5", "0.01", "-0.01", "0.005", "-0.005", "0.001", "1e-9", "-1e-9", "100", "-100"}

// number returns a number near n or near a bound in the schema.
func (g *docGen) number(n json.Number) json.Number {
	switch g.r.IntN(5) {
	case 0, 1:
		base := string(n)
		if len(g.nums) > 0 {
			base = g.pick(g.nums)
		}
		return addDecimal(base, g.pick(numberDeltas))
	case 2:
		return addDecimal(string(n), g.pick(numberDeltas))
	case 3:
		return json.Number(g.pick(numberExtremes))
	}
	// The same value written another way.
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return n
	}
	return json.Number(g.pick([]string{r.Num().String() + ".0", r.Num().String() + "e0", r.Num().String() + ".000e+0"}))
}

// addDecimal adds two decimal numbers exactly.
func addDecimal(a, b string) json.Number {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	if !ok1 || !ok2 || len(a) > 40 {
		return json.Number(a)
	}
	x.Add(x, y)
	if x.IsInt() {
		return json.Number(x.Num().String())
	}
	s := strings.TrimRight(strings.TrimRight(x.FloatString(30), "0"), ".")
	return json.Number(s)
}

// mangle breaks or disguises the JSON text: cut, stray bytes, a duplicate
// name, bad UTF-8, an escaped letter.
func (g *docGen) mangle(data []byte) []byte {
	data = slices.Clone(data)
	switch g.r.IntN(8) {
	case 0:
		return data[:g.r.IntN(len(data)+1)]
	case 1:
		i := g.r.IntN(len(data) + 1)
		return slices.Insert(data, i, []byte(g.pick([]string{"{", "}", "[", "]", ",", ":", `"`, `\`, "x", "\x00", "\xff"}))...)
	case 2:
		return append(data, g.pick([]string{" x", "{}", " ", "\n", ",", " 1"})...)
	case 3:
		if i := bytes.IndexByte(data, ':'); i > 0 && data[0] == '{' {
			// Repeat the first member's name, with a null, in front.
			return slices.Concat([]byte("{"), data[1:i+1], []byte("null,"), data[1:])
		}
		return data
	case 4:
		if i := bytes.LastIndexByte(data, '"'); i > 0 {
			return slices.Insert(data, i, []byte(g.pick([]string{"\xff", "\xc3", `\ud800`, `\udc00x`, "\xed\xa0\x80"}))...)
		}
		return data
	case 5, 6:
		// Escape one letter of a string or a name: "\u006eame" is "name".
		var at []int
		for i := 1; i < len(data); i++ {
			if data[i-1] == '"' && ('a' <= data[i] && data[i] <= 'z' || 'A' <= data[i] && data[i] <= 'Z') {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return data
		}
		i := at[g.r.IntN(len(at))]
		return slices.Concat(data[:i], fmt.Appendf(nil, `\u%04x`, data[i]), data[i+1:])
	}
	return append([]byte(" \t"), data...)
}

// The types of FuzzOwnEncoding have no constraints beyond their Go types,
// and every optional field has omitempty or omitzero or is a pointer: every
// value Decode can return for them is valid, so the schema must accept the
// encoding of every such value (see "A type's own encoding" in doc.go).
// ownValues builds values in Go, which may hold a nil slice or map where
// Decode never leaves one; asDecoded turns them into values Decode can
// return.

type ownScalars struct {
	S        string     `json:"s"`
	B        bool       `json:"b"`
	I        int        `json:"i"`
	I8       int8       `json:"i8"`
	I16      int16      `json:"i16"`
	I32      int32      `json:"i32"`
	I64      int64      `json:"i64"`
	U        uint       `json:"u"`
	U8       uint8      `json:"u8"`
	U16      uint16     `json:"u16"`
	U32      uint32     `json:"u32"`
	U64      uint64     `json:"u64"`
	F32      float32    `json:"f32"`
	F64      float64    `json:"f64"`
	PS       *string    `json:"ps"`
	PI       *int64     `json:"pi"`
	PF       *float32   `json:"pf"`
	Omit     string     `json:"omit,omitempty"`
	Zero     int        `json:"zero,omitzero"`
	Addr     netip.Addr `json:"addr"`
	Untagged string
	Any      any `json:"any"`
}

type ownInner struct {
	Name string  `json:"name"`
	Vals []int16 `json:"vals"`
}

type ownEmbedded struct {
	E string `json:"e"`
}

type OwnEmbeddedPtr struct {
	P float64 `json:"p"`
}

type ownContainers struct {
	ownEmbedded
	*OwnEmbeddedPtr
	Strs   []string             `json:"strs"`
	Ints   []int64              `json:"ints"`
	Floats map[string]float64   `json:"floats"`
	Arr    [3]uint8             `json:"arr"`
	Bytes  []byte               `json:"bytes"`
	Inner  ownInner             `json:"inner"`
	PInner *ownInner            `json:"pinner"`
	Items  []ownInner           `json:"items"`
	ByKey  map[string]*ownInner `json:"byKey"`
	Raw    json.RawMessage      `json:"raw"`
	When   time.Time            `json:"when"`
	PWhen  *time.Time           `json:"pwhen"`
	Tree   *ownTree             `json:"tree"`
	Grid   [2][]bool            `json:"grid"`
}

type ownTree struct {
	Label string     `json:"label"`
	Kids  []*ownTree `json:"kids"`
	Next  *ownTree   `json:"next,omitempty"`
}

// ownValues builds one value of each FuzzOwnEncoding type from primitives;
// the bits of shape choose between nil and non-nil.
func ownValues(s string, i int64, u uint64, x float64, b bool, shape uint8) []any {
	bit := func(n int) bool { return shape&(1<<n) != 0 }
	f32 := float32(x)
	if math.IsInf(float64(f32), 0) {
		f32 = math.MaxFloat32
	}
	sc := ownScalars{
		S: s, B: b, I: int(i), I8: int8(i), I16: int16(i), I32: int32(i), I64: i,
		U: uint(u), U8: uint8(u), U16: uint16(u), U32: uint32(u), U64: u,
		F32: f32, F64: x, Untagged: s, Zero: int(i >> 3),
	}
	if bit(0) {
		sc.PS, sc.PI, sc.PF = &s, &i, &f32
		sc.Omit = s
	}
	switch shape % 3 {
	case 0:
		sc.Addr = netip.AddrFrom4([4]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24)})
	case 1:
		var a [16]byte
		for k := range a {
			a[k] = byte(u >> (k % 8 * 8))
		}
		sc.Addr = netip.AddrFrom16(a)
	}
	switch shape % 4 {
	case 0:
		sc.Any = map[string]any{s: []any{x, b, s, nil, map[string]any{}}}
	case 1:
		sc.Any = x
	case 2:
		sc.Any = []any{s}
	}

	inner := ownInner{Name: s}
	if bit(1) {
		inner.Vals = []int16{int16(i), int16(u), 0}
	}
	lo := time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(9999, 12, 30, 0, 0, 0, 0, time.UTC).Unix()
	when := time.Unix(lo+int64(u%uint64(hi-lo)), int64(u%1e9))
	if bit(2) {
		when = when.In(time.FixedZone("", int(i%1440)*60))
	} else {
		when = when.UTC()
	}
	raw, _ := json.Marshal(s)
	c := ownContainers{
		ownEmbedded: ownEmbedded{E: s},
		Arr:         [3]uint8{uint8(u), uint8(i), 255},
		Inner:       inner,
		When:        when,
		Tree:        &ownTree{Label: s},
	}
	if bit(3) {
		c.OwnEmbeddedPtr = &OwnEmbeddedPtr{P: x}
		c.Strs = []string{s, "", s}
		c.Ints = []int64{i, -i, 0}
		c.Floats = map[string]float64{s: x, "": -x}
		c.Bytes = []byte(s)
		c.PInner = &inner
		c.Items = []ownInner{inner, {}}
		c.ByKey = map[string]*ownInner{s: &inner, "nil": nil}
		c.Raw = raw
		c.PWhen = &when
		c.Tree.Kids = []*ownTree{{Label: "k", Next: &ownTree{}}, nil}
		c.Grid = [2][]bool{{b, !b}, nil}
	} else if bit(4) {
		c.Strs, c.Ints, c.Floats, c.Bytes = []string{}, []int64{}, map[string]float64{}, []byte{}
		c.Items, c.ByKey = []ownInner{}, map[string]*ownInner{}
		c.Tree.Next = &ownTree{Label: s, Kids: []*ownTree{}}
	}
	tree := ownTree{Label: s, Next: c.Tree}
	if bit(5) {
		tree.Kids = []*ownTree{c.Tree, {Label: s}}
	}
	return []any{sc, c, tree}
}

// asDecoded rewrites v, an addressable value of node n, into a value that
// Decode can return: a nil slice, map or []byte where null is refused (a
// required field, an item, a map value) becomes an empty one, which is what
// decoding [] or {} gives. An optional field keeps its nil, which Decode
// leaves when the field is absent. Values reached through pointers are
// rewritten in place.
func asDecoded(n *node, v reflect.Value) {
	switch n.kind {
	case kindPointer:
		if !v.IsNil() {
			asDecoded(n.elem, v.Elem())
		}
	case kindSlice, kindBytes, kindMap:
		if v.IsNil() {
			if !n.nullable {
				if n.kind == kindMap {
					v.Set(reflect.MakeMap(n.typ))
				} else {
					v.Set(reflect.MakeSlice(n.typ, 0, 0))
				}
			}
			return
		}
		switch n.kind {
		case kindSlice:
			for i := range v.Len() {
				asDecoded(n.elem, v.Index(i))
			}
		case kindMap:
			for _, k := range v.MapKeys() {
				elem := reflect.New(n.elem.typ).Elem()
				elem.Set(v.MapIndex(k))
				asDecoded(n.elem, elem)
				v.SetMapIndex(k, elem)
			}
		}
	case kindArray:
		for i := range v.Len() {
			asDecoded(n.elem, v.Index(i))
		}
	case kindStruct:
		for _, f := range n.fields {
			fv, ok := fieldValueNoAlloc(v, f)
			if !ok {
				continue
			}
			if k := f.node.kind; !f.required && (k == kindSlice || k == kindBytes || k == kindMap) && fv.IsNil() {
				continue
			}
			asDecoded(f.node, fv)
		}
	}
}

var ownTargets = sync.OnceValues(func() ([]*diffTarget, error) {
	var out []*diffTarget
	for _, v := range ownValues("", 0, 0, 0, false, 0) {
		t := reflect.TypeOf(v)
		val, err := ForType(t, nil)
		if err != nil {
			return nil, fmt.Errorf("ForType(%s): %w", t, err)
		}
		sch, err := compileOracle(t.Name(), val)
		if err != nil {
			return nil, err
		}
		out = append(out, &diffTarget{diffCase: diffCase{name: t.Name(), typ: t}, v: val, oracle: sch})
	}
	return out, nil
})

func FuzzOwnEncoding(f *testing.F) {
	f.Add("a", int64(1), uint64(2), 1.5, true, uint8(0))
	f.Add("", int64(math.MinInt64), uint64(math.MaxUint64), math.MaxFloat64, false, uint8(0xff))
	f.Add("é😀\xff", int64(-1), uint64(0), math.Copysign(0, -1), true, uint8(0x55))
	f.Add("<&>\u2028\"\\", int64(math.MaxInt64), uint64(1<<53+1), 5e-324, false, uint8(0xaa))
	f.Add("~/x", int64(-1439), uint64(1e18), -1e21, true, uint8(0x0e))
	targets, err := ownTargets()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, i int64, u uint64, x float64, b bool, shape uint8) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		for k, v := range ownValues(s, i, u, x, b, shape) {
			d := targets[k]
			rv := reflect.New(reflect.TypeOf(v)).Elem()
			rv.Set(reflect.ValueOf(v))
			asDecoded(d.v.plan.root, rv)
			v = rv.Interface()
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("json.Marshal(%#v): %v", v, err)
			}
			if err := d.v.Validate(data); err != nil {
				t.Errorf("%s: Validate(%s) = %v; a type's schema must accept the type's own encoding", d.name, data, err)
			}
			inst, err := oracle.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: the oracle cannot read %s: %v", d.name, data, err)
			}
			if err := d.oracle.Validate(inst); err != nil {
				t.Errorf("%s: the oracle rejects %s with hands' schema: %v", d.name, data, err)
			}
		}
	})
}
