package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/jsonschema-go/jsonschema"
)

type decAddress struct {
	Street string `json:"street" tool:"minLength=1"`
	City   string `json:"city,omitempty" tool:"default=Oslo"`
}

type decBase struct {
	ID string `json:"id" tool:"format=uuid"`
}

type decLevel struct {
	Depth int `json:"depth,omitempty" tool:"default=7"`
}

type decNested struct {
	Level decLevel `json:"level"`
}

type decAll struct {
	decBase
	Name     string            `json:"name" tool:"minLength=2,maxLength=5,pattern=^[a-z]+$"`
	Kind     string            `json:"kind,omitempty" tool:"enum=a|b|c"`
	Fixed    string            `json:"fixed,omitempty" tool:"const=x"`
	Count    int8              `json:"count,omitempty"`
	Size     uint16            `json:"size,omitempty" tool:"maximum=1000"`
	Ratio    float64           `json:"ratio,omitempty" tool:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Price    float64           `json:"price,omitempty" tool:"multipleOf=0.01"`
	Step     int               `json:"step,omitempty" tool:"multipleOf=5,minimum=-10"`
	Tags     []string          `json:"tags,omitempty" tool:"minItems=1,maxItems=3,uniqueItems,minLength=1"`
	Pair     [2]int            `json:"pair,omitzero"`
	Labels   map[string]int    `json:"labels,omitempty" tool:"maxProperties=2,minimum=0"`
	Address  *decAddress       `json:"address,omitempty"`
	Nested   decNested         `json:"nested,omitzero"`
	When     time.Time         `json:"when,omitzero"`
	Blob     []byte            `json:"blob,omitempty"`
	Any      any               `json:"any,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Note     string            `json:"note,omitempty" tool:"nullable"`
	Flag     bool              `json:"flag,omitempty"`
	Mail     string            `json:"mail,omitempty" tool:"format=email"`
	Levels   []decLevel        `json:"levels,omitempty"`
	Optional string            `json:"optional" tool:"optional"`
	Extra    map[string]string `json:"extra,omitempty" tool:"minProperties=1"`
}

const okID = `"id":"123e4567-e89b-12d3-a456-426614174000"`

func mustFor[T any](t testing.TB) *Validator {
	t.Helper()
	v, err := For[T](nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecodeIssues(t *testing.T) {
	v := mustFor[decAll](t)
	for _, tt := range []struct {
		name string
		doc  string
		want []string // "path keyword" of every issue, in order; nil when valid
	}{
		{name: "minimal", doc: `{` + okID + `,"name":"ab"}`},
		{name: "minLength counts code points", doc: `{` + okID + `,"name":"é"}`, want: []string{"/name minLength", "/name pattern"}},
		{name: "maxLength", doc: `{` + okID + `,"name":"abcdef"}`, want: []string{"/name maxLength"}},
		{name: "pattern", doc: `{` + okID + `,"name":"AB"}`, want: []string{"/name pattern"}},
		{name: "format on embedded field", doc: `{"id":"nope","name":"ab"}`, want: []string{"/id format"}},
		{name: "enum", doc: `{` + okID + `,"name":"ab","kind":"d"}`, want: []string{"/kind enum"}},
		{name: "const", doc: `{` + okID + `,"name":"ab","fixed":"y"}`, want: []string{"/fixed const"}},
		{name: "int8 range", doc: `{` + okID + `,"name":"ab","count":128}`, want: []string{"/count maximum"}},
		{name: "int8 negative range", doc: `{` + okID + `,"name":"ab","count":-129}`, want: []string{"/count minimum"}},
		{name: "integer as 1.0 and 1e1", doc: `{` + okID + `,"name":"ab","count":1.0,"step":1e1}`},
		{name: "integer with fraction", doc: `{` + okID + `,"name":"ab","count":1.5}`, want: []string{"/count type"}},
		{name: "uint negative", doc: `{` + okID + `,"name":"ab","size":-1}`, want: []string{"/size minimum"}},
		{name: "uint negative zero", doc: `{` + okID + `,"name":"ab","size":-0}`},
		{name: "tag maximum", doc: `{` + okID + `,"name":"ab","size":1001}`, want: []string{"/size maximum"}},
		{name: "exclusive bounds", doc: `{` + okID + `,"name":"ab","ratio":0}`, want: []string{"/ratio exclusiveMinimum"}},
		{name: "exclusive maximum", doc: `{` + okID + `,"name":"ab","ratio":1}`, want: []string{"/ratio exclusiveMaximum"}},
		{name: "multipleOf fraction", doc: `{` + okID + `,"name":"ab","price":0.3}`},
		{name: "not multipleOf fraction", doc: `{` + okID + `,"name":"ab","price":0.305}`, want: []string{"/price multipleOf"}},
		{name: "multipleOf integer and minimum", doc: `{` + okID + `,"name":"ab","step":-12}`, want: []string{"/step minimum", "/step multipleOf"}},
		{name: "minItems", doc: `{` + okID + `,"name":"ab","tags":[]}`, want: []string{"/tags minItems"}},
		{name: "maxItems", doc: `{` + okID + `,"name":"ab","tags":["a","b","c","d"]}`, want: []string{"/tags maxItems"}},
		{name: "uniqueItems", doc: `{` + okID + `,"name":"ab","tags":["a","b","a"]}`, want: []string{"/tags uniqueItems"}},
		{name: "item keyword", doc: `{` + okID + `,"name":"ab","tags":["a",""]}`, want: []string{"/tags/1 minLength"}},
		{name: "fixed array too short", doc: `{` + okID + `,"name":"ab","pair":[1]}`, want: []string{"/pair minItems"}},
		{name: "fixed array too long", doc: `{` + okID + `,"name":"ab","pair":[1,2,3]}`, want: []string{"/pair maxItems"}},
		{name: "map value keyword", doc: `{` + okID + `,"name":"ab","labels":{"x":-1}}`, want: []string{"/labels/x minimum"}},
		{name: "maxProperties", doc: `{` + okID + `,"name":"ab","labels":{"a":1,"b":2,"c":3}}`, want: []string{"/labels maxProperties"}},
		{name: "minProperties", doc: `{` + okID + `,"name":"ab","extra":{}}`, want: []string{"/extra minProperties"}},
		{name: "escaped key in path", doc: `{` + okID + `,"name":"ab","labels":{"a/b~c":-1}}`, want: []string{"/labels/a~1b~0c minimum"}},
		{name: "nested required and unknown", doc: `{` + okID + `,"name":"ab","address":{"zip":"1"}}`, want: []string{"/address additionalProperties", "/address required"}},
		{name: "pointer null", doc: `{` + okID + `,"name":"ab","address":null}`},
		{name: "nullable string", doc: `{` + okID + `,"name":"ab","note":null}`},
		{name: "null for non-nullable", doc: `{` + okID + `,"name":null}`, want: []string{"/name type"}},
		{name: "wrong types", doc: `{` + okID + `,"name":1,"flag":"yes","tags":"a","labels":[],"count":"1"}`, want: []string{"/name type", "/flag type", "/tags type", "/labels type", "/count type"}},
		{name: "time", doc: `{` + okID + `,"name":"ab","when":"2024-05-01T12:00:00Z"}`},
		{name: "bad time", doc: `{` + okID + `,"name":"ab","when":"yesterday"}`, want: []string{"/when format"}},
		{name: "base64", doc: `{` + okID + `,"name":"ab","blob":"aGk="}`},
		{name: "bad base64", doc: `{` + okID + `,"name":"ab","blob":"***"}`, want: []string{"/blob contentEncoding"}},
		{name: "any and raw", doc: `{` + okID + `,"name":"ab","any":{"x":[1,null]},"raw":[true]}`},
		{name: "email", doc: `{` + okID + `,"name":"ab","mail":"not an email"}`, want: []string{"/mail format"}},
		{name: "items of structs", doc: `{` + okID + `,"name":"ab","levels":[{},{"depth":"x"}]}`, want: []string{"/levels/1/depth type"}},
		{name: "missing required", doc: `{}`, want: []string{" required", " required"}},
		{name: "unknown at root", doc: `{` + okID + `,"name":"ab","nmae":"x"}`, want: []string{" additionalProperties"}},
		{name: "every issue, in order", doc: `{"id":"x","name":"A","kind":"z","tags":["a","a"],"ratio":2}`, want: []string{"/id format", "/name minLength", "/name pattern", "/kind enum", "/tags uniqueItems", "/ratio exclusiveMaximum"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got decAll
			err := v.Decode([]byte(tt.doc), &got)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode(%s) = %v, want nil", tt.doc, err)
				}
				return
			}
			serr, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Decode(%s) = %v, want a *Error", tt.doc, err)
			}
			var paths []string
			for _, is := range serr.Issues {
				paths = append(paths, is.Path+" "+is.Keyword)
				if is.Message == "" {
					t.Errorf("issue %+v has no message", is)
				}
			}
			if !reflect.DeepEqual(paths, tt.want) {
				t.Errorf("Decode(%s) issues = %q, want %q\n%v", tt.doc, paths, tt.want, err)
			}
		})
	}
}

func TestDecodeValues(t *testing.T) {
	v := mustFor[decAll](t)
	var got decAll
	doc := `{` + okID + `,"name":"ab","address":{"street":"Main"},"nested":{"level":{}},"levels":[{},{"depth":2}],"when":"2024-05-01T12:00:00+02:00","blob":"aGk=","any":{"n":1},"raw":[1, 2],"tags":["x"],"labels":{"a":1},"note":null}`
	if err := v.Decode([]byte(doc), &got); err != nil {
		t.Fatal(err)
	}
	want := decAll{
		decBase: decBase{ID: "123e4567-e89b-12d3-a456-426614174000"},
		Name:    "ab",
		Address: &decAddress{Street: "Main", City: "Oslo"},
		Nested:  decNested{Level: decLevel{Depth: 7}},
		Levels:  []decLevel{{Depth: 7}, {Depth: 2}},
		When:    time.Date(2024, 5, 1, 12, 0, 0, 0, time.FixedZone("", 2*3600)),
		Blob:    []byte("hi"),
		Any:     map[string]any{"n": 1.0},
		Raw:     json.RawMessage(`[1, 2]`),
		Tags:    []string{"x"},
		Labels:  map[string]int{"a": 1},
	}
	if !got.When.Equal(want.When) {
		t.Errorf("When = %v, want %v", got.When, want.When)
	}
	got.When = want.When
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode =\n%+v\nwant\n%+v", got, want)
	}

	// A decoded value agrees with encoding/json on the same valid input.
	var std decAll
	if err := json.Unmarshal([]byte(doc), &std); err != nil {
		t.Fatal(err)
	}
	std.Address.City, std.Nested.Level.Depth, std.Levels[0].Depth = "Oslo", 7, 7
	std.When = want.When
	if !reflect.DeepEqual(got, std) {
		t.Errorf("Decode differs from encoding/json plus defaults:\n%+v\n%+v", got, std)
	}
}

func TestDefaultsAreNotShared(t *testing.T) {
	type roles struct {
		Roles []string `json:"roles,omitempty" tool:"default=[\"user\"]"`
	}
	v := mustFor[roles](t)
	var a, b roles
	if err := v.Decode([]byte(`{}`), &a); err != nil {
		t.Fatal(err)
	}
	a.Roles[0] = "changed"
	if err := v.Decode([]byte(`{}`), &b); err != nil {
		t.Fatal(err)
	}
	if b.Roles[0] != "user" {
		t.Errorf("a second decode got default %q; defaults must not be shared between values", b.Roles[0])
	}
}

type refinedRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func (r *refinedRange) Validate() error {
	if r.To < r.From {
		return &Error{Issues: []Issue{{Path: "/to", Keyword: "validate", Message: "must not be before from"}}}
	}
	return nil
}

type refinedOuter struct {
	Ranges []refinedRange `json:"ranges"`
	Name   string         `json:"name"`
}

func (o *refinedOuter) Validate() error {
	if o.Name == "bad" {
		return errors.New("bad is a reserved name")
	}
	return nil
}

func TestRefinements(t *testing.T) {
	v := mustFor[refinedOuter](t)
	err := v.Validate([]byte(`{"ranges":[{"from":1,"to":2},{"from":5,"to":3}],"name":"bad"}`))
	serr, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("Validate = %v, want a *Error", err)
	}
	want := []Issue{
		{Path: "/ranges/1/to", Keyword: "validate", Message: "must not be before from"},
		{Path: "", Keyword: "validate", Message: "bad is a reserved name"},
	}
	if !reflect.DeepEqual(serr.Issues, want) {
		t.Errorf("issues = %+v, want %+v", serr.Issues, want)
	}
	// Refinements run only once the schema checks pass.
	err = v.Validate([]byte(`{"ranges":[{"from":5,"to":3}],"name":7}`))
	if serr, ok := errors.AsType[*Error](err); !ok || len(serr.Issues) != 1 || serr.Issues[0].Keyword != "type" {
		t.Errorf("Validate = %v, want only the type issue", err)
	}
	// Check runs them on Go values.
	err = v.Check(refinedOuter{Ranges: []refinedRange{{From: 2, To: 1}}, Name: "ok"})
	if serr, ok := errors.AsType[*Error](err); !ok || serr.Issues[0].Path != "/ranges/0/to" {
		t.Errorf("Check = %v, want the refinement's issue", err)
	}
}

// lowerText is a transform: UnmarshalText lower-cases its input.
type lowerText string

func (l *lowerText) UnmarshalText(b []byte) error {
	if len(b) > 0 && b[0] == '!' {
		return errors.New("must not start with !")
	}
	*l = lowerText(strings.ToLower(string(b)))
	return nil
}

// point reads itself and says its own schema.
type point struct{ X, Y int }

func (p *point) UnmarshalJSON(b []byte) error {
	var xy [2]int
	if err := json.Unmarshal(b, &xy); err != nil {
		return err
	}
	p.X, p.Y = xy[0], xy[1]
	return nil
}

func (point) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "integer"}, MinItems: jsonschema.Ptr(2), MaxItems: jsonschema.Ptr(2)}
}

type customTypes struct {
	Name  lowerText `json:"name" tool:"maxLength=5"`
	Point point     `json:"point"`
}

func TestCustomTypes(t *testing.T) {
	v := mustFor[customTypes](t)
	var got customTypes
	if err := v.Decode([]byte(`{"name":"ABC","point":[1,2]}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "abc" || got.Point != (point{1, 2}) {
		t.Errorf("Decode = %+v", got)
	}
	err := v.Decode([]byte(`{"name":"!x","point":[1]}`), &got)
	serr, ok := errors.AsType[*Error](err)
	if !ok || len(serr.Issues) != 2 || serr.Issues[0].Keyword != "unmarshal" || serr.Issues[1].Keyword != "schema" {
		t.Errorf("Decode = %v, want an unmarshal issue and a schema issue", err)
	}
	if s := v.Schema().Properties["point"]; s.Type != "array" || *s.MinItems != 2 {
		t.Errorf("point schema = %v, want the type's own", s)
	}
}

type treeNode struct {
	Value    int         `json:"value"`
	Children []*treeNode `json:"children,omitempty"`
	Parent   *listNode   `json:"parent,omitempty"`
}

type listNode struct {
	Next *listNode `json:"next,omitempty"`
	Tag  string    `json:"tag" tool:"minLength=1"`
}

func TestRecursiveTypes(t *testing.T) {
	v := mustFor[treeNode](t)
	s := v.Schema()
	if got := s.Properties["children"].Items.AnyOf[1].Ref; got != "#" {
		t.Errorf("children items ref = %q, want #", got)
	}
	if got := s.Properties["parent"].AnyOf[1].Ref; got != "#/$defs/listNode" {
		t.Errorf("parent ref = %q, want #/$defs/listNode", got)
	}
	if _, ok := s.Defs["listNode"]; !ok {
		t.Errorf("$defs = %v, want listNode", s.Defs)
	}
	var got treeNode
	err := v.Decode([]byte(`{"value":1,"children":[{"value":2,"children":[{"value":3}]}],"parent":{"tag":"a","next":{"tag":""}}}`), &got)
	serr, ok := errors.AsType[*Error](err)
	if !ok || len(serr.Issues) != 1 || serr.Issues[0].Path != "/parent/next/tag" {
		t.Fatalf("Decode = %v, want one issue at /parent/next/tag", err)
	}
	if got.Children[0].Children[0].Value != 3 {
		t.Errorf("Decode = %+v", got)
	}
}

// DecBase is exported so that a pointer to it can be embedded and allocated.
type DecBase struct {
	ID string `json:"id" tool:"format=uuid"`
}

type embeddedPtr struct {
	*DecBase
	Name string `json:"name"`
}

type embeddedUnexportedPtr struct {
	*decBase
	Name string `json:"name"`
}

func TestEmbeddedPointer(t *testing.T) {
	v := mustFor[embeddedPtr](t)
	var got embeddedPtr
	if err := v.Decode([]byte(`{`+okID+`,"name":"x"}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.DecBase == nil || got.ID == "" {
		t.Errorf("Decode = %+v, want the embedded pointer allocated", got)
	}
	// encoding/json leaves out the fields of a nil embedded pointer, so they
	// are optional, and the pointer stays nil when they are absent.
	if err := v.Decode([]byte(`{"name":"x"}`), &got); err != nil || got.DecBase != nil {
		t.Errorf("Decode without the promoted fields = %v, %+v", err, got)
	}
	_, err := For[embeddedUnexportedPtr](nil)
	if derr, ok := errors.AsType[*DefinitionError](err); !ok || derr.Field != "decBase.ID" {
		t.Errorf("For(embedded *unexported) = %v, want a *DefinitionError at decBase.ID", err)
	}
}

func TestCheck(t *testing.T) {
	v := mustFor[decAll](t)
	ok := decAll{decBase: decBase{ID: "123e4567-e89b-12d3-a456-426614174000"}, Name: "ab"}
	if err := v.Check(ok); err != nil {
		t.Errorf("Check(valid) = %v", err)
	}
	if err := v.Check(&ok); err != nil {
		t.Errorf("Check(&valid) = %v", err)
	}
	bad := ok
	bad.Name, bad.Tags = "A", []string{"x", "x"}
	err := v.Check(bad)
	if serr, isErr := errors.AsType[*Error](err); !isErr || len(serr.Issues) != 3 {
		t.Errorf("Check(bad) = %v, want 3 issues", err)
	}
	if err := v.Check(42); err == nil {
		t.Error("Check(42) succeeded")
	}
	if err := v.Decode([]byte(`{}`), decAll{}); err == nil {
		t.Error("Decode into a non-pointer succeeded")
	}
}

func TestIssueLimit(t *testing.T) {
	type many struct {
		N []int `json:"n" tool:"maximum=0"`
	}
	v, err := For[many](&Options{Limits: Limits{MaxIssues: 5}})
	if err != nil {
		t.Fatal(err)
	}
	err = v.Validate([]byte(`{"n":[1,2,3,4,5,6,7,8,9,10]}`))
	serr, _ := errors.AsType[*Error](err)
	if serr == nil || len(serr.Issues) != 6 || serr.Issues[5].Keyword != "limit" || !strings.Contains(serr.Issues[5].Message, "5 more") {
		t.Errorf("Validate = %v, want 5 issues and a note of 5 more", err)
	}
}

// TestIssueJSON checks that an Issue is written as an object by both JSON
// packages: a method that made it a text marshaler (or appender) would turn
// it into one string and lose its keyword.
func TestIssueJSON(t *testing.T) {
	is := Issue{Path: "/a", Keyword: "required", Message: "missing"}
	want := `{"path":"/a","keyword":"required","message":"missing"}`
	if got, err := json.Marshal(is); err != nil || string(got) != want {
		t.Errorf("encoding/json: %s, %v; want %s", got, err, want)
	}
	if got, err := jsonv2.Marshal(is); err != nil || string(got) != want {
		t.Errorf("json v2: %s, %v; want %s", got, err, want)
	}
	if got := string(is.Append([]byte("- "))); got != "- /a: missing" {
		t.Errorf("Append = %q", got)
	}
	for _, tt := range []struct {
		is   Issue
		want string
	}{
		{Issue{Keyword: "limit", Message: "2 more issues not listed; fix these first"}, "2 more issues not listed; fix these first"},
		{Issue{Keyword: "required", Message: "missing"}, "(root): missing"},
		{Issue{Path: "/n", Keyword: "limit", Message: "too deep"}, "/n: too deep"},
	} {
		if got := tt.is.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.is, got, tt.want)
		}
	}
}

// joinedCheck's Validate fails with two errors joined, one of them long.
type joinedCheck struct {
	A string `json:"a"`
}

func (j *joinedCheck) Validate() error {
	return errors.Join(errors.New("first problem"), errors.New("second: "+strings.Repeat("x", 1000)))
}

// TestForeignMessages checks that a message taken from an error of the
// user's code is one line and short, whatever the error says.
func TestForeignMessages(t *testing.T) {
	v := mustFor[joinedCheck](t)
	var got joinedCheck
	err := v.Decode([]byte(`{"a":"`+strings.Repeat("y", 10000)+`"}`), &got)
	serr, ok := errors.AsType[*Error](err)
	if !ok || len(serr.Issues) != 1 {
		t.Fatalf("Decode = %v, want one issue", err)
	}
	msg := serr.Issues[0].Message
	if strings.ContainsAny(msg, "\r\n") || len(msg) > maxMessage || !strings.HasPrefix(msg, "first problem; second: xxx") || !strings.HasSuffix(msg, "…") {
		t.Errorf("message = %q (%d bytes), want one line of at most %d bytes, joined with \"; \" and cut with …", msg, len(msg), maxMessage)
	}
}

// TestOneLine checks the shaping of foreign messages at its edges.
func TestOneLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a\nb\r\nc", "a; b; c"},
		{"a\u2028b\u0085c\vd\fe", "a; b; c; d; e"},
		{strings.Repeat("a", 300), strings.Repeat("a", 300)},
		{strings.Repeat("a", 296) + "€€", strings.Repeat("a", 296) + "…"},
		{"bad bytes: " + strings.Repeat("\x80", 400), "bad bytes: " + strings.Repeat("\x80", 283) + "…"},
	} {
		got := oneLine(tt.in)
		if got != tt.want || len(got) > maxMessage {
			t.Errorf("oneLine(%.20q…) = %.40q… (%d bytes), want %.40q… (%d bytes)", tt.in, got, len(got), tt.want, len(tt.want))
		}
	}
}

// nullArgs has a field of every kind that null concerns.
type nullArgs struct {
	IDs      []string          `json:"ids" tool:"minItems=1"`
	Labels   map[string]string `json:"labels"`
	Blob     []byte            `json:"blob"`
	Ptr      *[]string         `json:"ptr"`
	Nullable []int             `json:"nullable" tool:"nullable"`
	Optional []string          `json:"optional,omitempty"`
	Dflt     []string          `json:"dflt,omitempty" tool:"default=[\"x\"]"`
	Empty    []string          `json:"empty,omitempty" tool:"default=[]"`
	NoInts   []int             `json:"noInts,omitempty" tool:"default=[]"`
	Grid     [][]int           `json:"grid,omitempty"`
	Groups   map[string][]int  `json:"groups,omitempty"`
	Ptrs     []*int            `json:"ptrs,omitempty"`
	Anys     []any             `json:"anys,omitempty"`
	Raws     []json.RawMessage `json:"raws,omitempty"`
	Any      any               `json:"any,omitempty"`
}

const nullBase = `"ids":["a"],"labels":{},"blob":"","ptr":null,"nullable":null`

// TestNull checks where null is accepted: by pointers, any and raw JSON, and
// fields that say tool:"nullable"; and nowhere else, not even by a slice or
// a map, unless Options.NullAsAbsent makes it an absent optional field.
func TestNull(t *testing.T) {
	strict := mustFor[nullArgs](t)
	repair, err := For[nullArgs](&Options{NullAsAbsent: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		doc    string
		want   []string // "path keyword" of every issue without NullAsAbsent; nil when valid
		nulls  []string // the nulls counted as absent with NullAsAbsent, which finds no issue
		repair []string // the issues with NullAsAbsent, when it does not repair them all
	}{
		{name: "pointer and nullable", doc: `{` + nullBase + `}`},
		{name: "required slice", doc: `{"ids":null,"labels":{},"blob":"","ptr":null,"nullable":null}`, want: []string{"/ids type"}, repair: []string{"/ids type"}},
		{name: "required map and bytes", doc: `{"ids":["a"],"labels":null,"blob":null,"ptr":null,"nullable":null}`, want: []string{"/labels type", "/blob type"}, repair: []string{"/labels type", "/blob type"}},
		{name: "optional slice", doc: `{` + nullBase + `,"optional":null}`, want: []string{"/optional type"}, nulls: []string{"/optional"}},
		{name: "optional with a default", doc: `{` + nullBase + `,"dflt":null}`, want: []string{"/dflt type"}, nulls: []string{"/dflt"}},
		{name: "items and map values of slice type", doc: `{` + nullBase + `,"grid":[null,[1]],"groups":{"a":null}}`, want: []string{"/grid/0 type", "/groups/a type"}, repair: []string{"/grid/0 type", "/groups/a type"}},
		{name: "items that take null", doc: `{` + nullBase + `,"ptrs":[null,1],"anys":[null],"raws":[null],"any":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got nullArgs
			checkIssues(t, "Decode", tt.doc, strict.Decode([]byte(tt.doc), &got), tt.want)
			nulls, err := repair.DecodeRepaired([]byte(tt.doc), &got)
			checkIssues(t, "DecodeRepaired", tt.doc, err, tt.repair)
			if err == nil && !reflect.DeepEqual(nulls, tt.nulls) {
				t.Errorf("DecodeRepaired(%s) nulls = %q, want %q", tt.doc, nulls, tt.nulls)
			}
		})
	}

	t.Run("message", func(t *testing.T) {
		err := strict.Validate([]byte(`{"ids":null,"labels":{},"blob":"","ptr":null,"nullable":null}`))
		serr, _ := errors.AsType[*Error](err)
		if serr == nil || serr.Issues[0].Message != "must be an array, got null" {
			t.Errorf("Validate = %v, want the message %q", err, "must be an array, got null")
		}
	})

	t.Run("values", func(t *testing.T) {
		var got nullArgs
		if _, err := repair.DecodeRepaired([]byte(`{`+nullBase+`,"dflt":null,"ptrs":[null,1]}`), &got); err != nil {
			t.Fatal(err)
		}
		if got.Ptr != nil || got.Nullable != nil || got.Ptrs[0] != nil || !reflect.DeepEqual(got.Dflt, []string{"x"}) {
			t.Errorf("DecodeRepaired = %+v, want nil pointer, nullable and item, and the default", got)
		}
		// A default of [] is an empty slice, as decoding [] gives, not nil.
		if got.Empty == nil || got.NoInts == nil || got.Optional != nil {
			t.Errorf("DecodeRepaired: empty = %#v, noInts = %#v, optional = %#v; want [], [] and nil", got.Empty, got.NoInts, got.Optional)
		}
	})

	t.Run("schema", func(t *testing.T) {
		s := strict.Schema()
		for name, want := range map[string][]string{
			"ids": {"array"}, "labels": {"object"}, "blob": {"string"}, "optional": {"array"}, "dflt": {"array"},
			"ptr": {"array", "null"}, "nullable": {"array", "null"},
		} {
			p := s.Properties[name]
			got := slices.DeleteFunc(append([]string{p.Type}, p.Types...), func(s string) bool { return s == "" })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("schema of %s has types %q, want %q", name, got, want)
			}
		}
		if items := s.Properties["grid"].Items; items.Type != "array" || items.Types != nil {
			t.Errorf("schema of grid's items = %+v, want an array, without null", items)
		}
		if values := s.Properties["groups"].AdditionalProperties; values.Type != "array" || values.Types != nil {
			t.Errorf("schema of groups' values = %+v, want an array, without null", values)
		}
	})

	t.Run("output", func(t *testing.T) {
		// encoding/json writes a nil slice or map as null, so an output's
		// schema says so.
		out, err := For[nullArgs](&Options{Output: true})
		if err != nil {
			t.Fatal(err)
		}
		s := out.Schema()
		for _, name := range []string{"ids", "labels", "blob", "optional"} {
			if p := s.Properties[name]; !slices.Contains(p.Types, "null") {
				t.Errorf("output schema of %s = %v %v, want null among its types", name, p.Type, p.Types)
			}
		}
	})

	t.Run("Check", func(t *testing.T) {
		// A Go value says "empty" with a nil slice or map; Check judges it so.
		err := strict.Check(nullArgs{Labels: nil, Grid: [][]int{nil}})
		checkIssues(t, "Check", "nullArgs{}", err, []string{"/ids minItems"})
		if err := strict.Check(nullArgs{IDs: []string{"a"}}); err != nil {
			t.Errorf("Check(nil map and bytes) = %v, want nil", err)
		}
	})
}

// checkIssues compares the issues of err, as "path keyword", with want; a
// nil want expects no error.
func checkIssues(t *testing.T, call, doc string, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s(%s) = %v, want nil", call, doc, err)
		}
		return
	}
	serr, ok := errors.AsType[*Error](err)
	if !ok {
		t.Errorf("%s(%s) = %v, want a *Error", call, doc, err)
		return
	}
	var got []string
	for _, is := range serr.Issues {
		got = append(got, is.Path+" "+is.Keyword)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s(%s) issues = %q, want %q", call, doc, got, want)
	}
}

// trimLower reads itself, trimmed and lower-cased, and has no schema of its
// own: it is described as the string it is.
type trimLower string

func (s *trimLower) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	if strings.TrimSpace(text) == "nobody" {
		return errors.New("nobody is not a name")
	}
	*s = trimLower(strings.ToLower(strings.TrimSpace(text)))
	return nil
}

// orderedPair reads itself by its fields and puts them in order.
type orderedPair struct {
	Lo int `json:"lo" tool:"minimum=0"`
	Hi int `json:"hi"`
}

func (p *orderedPair) UnmarshalJSON(b []byte) error {
	type plain orderedPair
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	if p.Hi < p.Lo {
		p.Lo, p.Hi = p.Hi, p.Lo
	}
	return nil
}

// sortedWords reads itself as an array of strings, sorted.
type sortedWords []string

func (w *sortedWords) UnmarshalJSON(b []byte) error {
	var words []string
	if err := json.Unmarshal(b, &words); err != nil {
		return err
	}
	slices.Sort(words)
	*w = words
	return nil
}

// anyNote reads and writes itself: it could be any JSON value.
type anyNote struct{ raw []byte }

func (n *anyNote) UnmarshalJSON(b []byte) error { n.raw = b; return nil }
func (n anyNote) MarshalJSON() ([]byte, error)  { return n.raw, nil }

type selfReaders struct {
	Name  trimLower   `json:"name" tool:"minLength=2,maxLength=6"`
	Pair  orderedPair `json:"pair,omitzero"`
	Words sortedWords `json:"words,omitempty" tool:"maxItems=2,minLength=1"`
	Note  anyNote     `json:"note,omitzero"`
	Alias *trimLower  `json:"alias,omitempty" tool:"default=\" X \""`
}

// TestUnmarshalJSONWithoutSchema checks a type that reads itself with
// UnmarshalJSON and has no JSONSchema method: its JSON is checked as that of
// its kind, with the field's constraints, before UnmarshalJSON reads it; a
// type that writes itself too takes any JSON value, and Lint warns of it.
func TestUnmarshalJSONWithoutSchema(t *testing.T) {
	v := mustFor[selfReaders](t)
	for _, tt := range []struct {
		name string
		doc  string
		want []string
	}{
		{name: "valid", doc: `{"name":" Ada ","pair":{"lo":5,"hi":2},"words":["b","a"],"note":{"any":[1]}}`},
		{name: "null", doc: `{"name":null,"pair":null,"words":null}`, want: []string{"/name type", "/pair type", "/words type"}},
		{name: "wrong types", doc: `{"name":5,"pair":[1,2],"words":"a"}`, want: []string{"/name type", "/pair type", "/words type"}},
		{name: "constraints", doc: `{"name":"A","pair":{"lo":-1,"hi":2,"mid":1},"words":["a","b",""]}`, want: []string{"/name minLength", "/pair/lo minimum", "/pair additionalProperties", "/words/2 minLength", "/words maxItems"}},
		{name: "missing property", doc: `{"name":"abcdefg","pair":{"lo":1}}`, want: []string{"/name maxLength", "/pair required"}},
		{name: "UnmarshalJSON refuses", doc: `{"name":"nobody"}`, want: []string{"/name unmarshal"}},
		{name: "any note", doc: `{"name":"ab","note":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got selfReaders
			checkIssues(t, "Decode", tt.doc, v.Decode([]byte(tt.doc), &got), tt.want)
		})
	}

	var got selfReaders
	if err := v.Decode([]byte(`{"name":" Ada ","pair":{"lo":5,"hi":2},"words":["b","a"],"note":{"any":[1]}}`), &got); err != nil {
		t.Fatal(err)
	}
	want := selfReaders{Name: "ada", Pair: orderedPair{2, 5}, Words: sortedWords{"a", "b"}, Note: anyNote{[]byte(`{"any":[1]}`)}, Alias: ptr(trimLower("x"))}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode = %+v, want %+v", got, want)
	}

	s := v.Schema()
	if p := s.Properties["name"]; p.Type != "string" || *p.MinLength != 2 || *p.MaxLength != 6 {
		t.Errorf("schema of name = %+v, want a string of 2 to 6 characters", p)
	}
	if p := s.Properties["pair"]; p.Type != "object" || !slices.Equal(p.Required, []string{"lo", "hi"}) {
		t.Errorf("schema of pair = %+v, want an object by its fields", p)
	}
	if p := s.Properties["words"]; p.Type != "array" || p.Items.Type != "string" {
		t.Errorf("schema of words = %+v, want an array of strings", p)
	}
	if p := s.Properties["note"]; p.Type != "" || p.Types != nil || !strings.Contains(p.Comment, "anyNote") {
		t.Errorf("schema of note = %+v, want any value, with a $comment naming anyNote", p)
	}

	if _, err := For[orderedPair](nil); err == nil {
		t.Error("For[orderedPair] succeeded; a top-level type that reads itself cannot be described")
	}
}

// intKeyed reads itself, but its kind has no JSON Schema form.
type intKeyed map[int]string

func (m *intKeyed) UnmarshalJSON([]byte) error { return nil }

func TestUnmarshalJSONWithoutForm(t *testing.T) {
	_, err := For[struct {
		M intKeyed `json:"m"`
	}](nil)
	derr, ok := errors.AsType[*DefinitionError](err)
	if !ok || derr.Field != "M" || !strings.Contains(err.Error(), "JSONSchema method") {
		t.Errorf("For = %v, want a *DefinitionError at M that suggests a JSONSchema method", err)
	}
}

// TestNullableCustom checks that the schema of a type with a JSONSchema
// method says null when the field takes it.
func TestNullableCustom(t *testing.T) {
	v := mustFor[struct {
		Point point `json:"point" tool:"nullable"`
	}](t)
	if err := v.Validate([]byte(`{"point":null}`)); err != nil {
		t.Errorf("Validate(null) = %v", err)
	}
	if p := v.Schema().Properties["point"]; !slices.Equal(p.Types, []string{"array", "null"}) {
		t.Errorf("schema of point = %v %v, want types array and null", p.Type, p.Types)
	}
}

// TestAbsentFieldsPast64 checks that the absent fields of a struct are
// reported and given their defaults in field order, with the required and
// defaulted fields found from a mask in structs of up to 64 fields and by
// a look at each field in larger ones.
func TestAbsentFieldsPast64(t *testing.T) {
	for _, count := range []int{3, 64, 65, 70} {
		var sfs []reflect.StructField
		var wantPaths []string
		defaults := map[int]string{}
		for i := range count {
			tag := fmt.Sprintf(`json:"f%d,omitempty"`, i) // optional
			switch {
			case i == 1 || i == count-1 || i == 63:
				tag = fmt.Sprintf(`json:"f%d"`, i) // required
				wantPaths = append(wantPaths, fmt.Sprintf("f%d", i))
			case i == 0 || i == count-2 || i == 62:
				tag += fmt.Sprintf(` tool:"default=d%d"`, i)
				defaults[i] = fmt.Sprintf("d%d", i)
			}
			sfs = append(sfs, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tag)})
		}
		typ := reflect.StructOf(sfs)
		v, err := ForType(typ, nil)
		if err != nil {
			t.Fatalf("%d fields: %v", count, err)
		}
		for _, doc := range []string{`{}`, `{"f2":"x"}`} {
			out := reflect.New(typ)
			err := v.Decode([]byte(doc), out.Interface())
			serr, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("%d fields, %s: err = %v, want a *schema.Error", count, doc, err)
			}
			var got []string
			for _, is := range serr.Issues {
				if is.Keyword != KeywordRequired {
					t.Errorf("%d fields, %s: unexpected issue %v", count, doc, is)
				}
				_, name, _ := strings.Cut(is.Message, `"`)
				name, _, _ = strings.Cut(name, `"`)
				got = append(got, name)
			}
			want := slices.DeleteFunc(slices.Clone(wantPaths), func(p string) bool { return strings.Contains(doc, `"`+p+`"`) })
			if !slices.Equal(got, want) {
				t.Errorf("%d fields, %s: missing %v, want %v", count, doc, got, want)
			}
		}
		out := reflect.New(typ)
		doc := "{"
		for i, p := range wantPaths {
			if i > 0 {
				doc += ","
			}
			doc += `"` + p + `":"x"`
		}
		doc += "}"
		if err := v.Decode([]byte(doc), out.Interface()); err != nil {
			t.Fatalf("%d fields, %s: %v", count, doc, err)
		}
		for i := range count {
			want := defaults[i]
			if slices.Contains(wantPaths, fmt.Sprintf("f%d", i)) {
				want = "x"
			}
			if got := out.Elem().Field(i).String(); got != want {
				t.Errorf("%d fields: F%d = %q, want %q", count, i, got, want)
			}
		}
	}
}
