package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hands-go/hands/internal/golden"
)

func TestDefinitionErrors(t *testing.T) {
	type inner struct {
		Bad int `json:"bad" tool:"pattern=x"`
	}
	for _, tt := range []struct {
		name  string
		typ   reflect.Type
		field string
		tag   string
		kind  error // the kind of mistake the error matches
	}{
		{"not a struct", reflect.TypeFor[[]string](), "", "", ErrUnsupportedType},
		{"func field", reflect.TypeFor[struct {
			F func() `json:"f"`
		}](), "F", "", ErrUnsupportedType},
		{"interface with methods", reflect.TypeFor[struct {
			E error `json:"e"`
		}](), "E", "", ErrUnsupportedType},
		{"pointer to pointer", reflect.TypeFor[struct {
			P **int `json:"p"`
		}](), "P", "", ErrUnsupportedType},
		{"string option", reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), "N", `json:"n,string"`, ErrInvalidTag},
		{"nested field", reflect.TypeFor[struct {
			In inner `json:"in"`
		}](), "In.Bad", `tool:"pattern=x"`, ErrInapplicable},
		{"bad pattern", reflect.TypeFor[struct {
			S string `json:"s" tool:"pattern=(?<=a)b"`
		}](), "S", `tool:"pattern=(?<=a)b"`, ErrInvalidTag},
		{"unknown format", reflect.TypeFor[struct {
			S string `json:"s" tool:"format=phone"`
		}](), "S", "", ErrInvalidTag},
		{"minimum not a number", reflect.TypeFor[struct {
			N int `json:"n" tool:"minimum=low"`
		}](), "N", "", ErrInvalidTag},
		{"negative count", reflect.TypeFor[struct {
			S string `json:"s" tool:"minLength=-1"`
		}](), "S", "", ErrInvalidTag},
		{"min over max", reflect.TypeFor[struct {
			S string `json:"s" tool:"minLength=5,maxLength=2"`
		}](), "S", "", ErrConflict},
		{"minimum over maximum", reflect.TypeFor[struct {
			N int `json:"n" tool:"minimum=5,maximum=2"`
		}](), "N", "", ErrConflict},
		{"zero multipleOf", reflect.TypeFor[struct {
			N int `json:"n" tool:"multipleOf=0"`
		}](), "N", "", ErrInvalidTag},
		{"enum on a struct", reflect.TypeFor[struct {
			In decLevel `json:"in" tool:"enum=a"`
		}](), "In", "", ErrInapplicable},
		{"enum value of the wrong type", reflect.TypeFor[struct {
			N int `json:"n" tool:"enum=1|two"`
		}](), "N", "", ErrInvalidTag},
		{"enum value out of range", reflect.TypeFor[struct {
			N uint8 `json:"n" tool:"enum=1|300"`
		}](), "N", "", ErrConflict},
		{"duplicate enum value", reflect.TypeFor[struct {
			S string `json:"s" tool:"enum=a|a"`
		}](), "S", "", ErrInvalidTag},
		{"enum with const", reflect.TypeFor[struct {
			S string `json:"s" tool:"enum=a,const=a"`
		}](), "S", "", ErrConflict},
		{"default of the wrong type", reflect.TypeFor[struct {
			N int `json:"n,omitempty" tool:"default=many"`
		}](), "N", "", ErrInvalidTag},
		{"default breaks maxLength", reflect.TypeFor[struct {
			S string `json:"s,omitempty" tool:"maxLength=2,default=long"`
		}](), "S", "", ErrConflict},
		{"example breaks enum", reflect.TypeFor[struct {
			S string `json:"s" tool:"enum=a|b,examples=a|c"`
		}](), "S", "", ErrConflict},
		{"required and optional", reflect.TypeFor[struct {
			S string `json:"s" tool:"required,optional"`
		}](), "S", "", ErrConflict},
		{"required with default", reflect.TypeFor[struct {
			S string `json:"s" tool:"required,default=x"`
		}](), "S", "", ErrConflict},
		{"minItems on a string", reflect.TypeFor[struct {
			S string `json:"s" tool:"minItems=1"`
		}](), "S", "", ErrInapplicable},
		{"minProperties on a slice", reflect.TypeFor[struct {
			S []string `json:"s" tool:"minProperties=1"`
		}](), "S", "", ErrInapplicable},
		{"maxItems on a fixed array", reflect.TypeFor[struct {
			A [3]int `json:"a" tool:"maxItems=2"`
		}](), "A", "", ErrInapplicable},
		{"flag with a bad value", reflect.TypeFor[struct {
			S string `json:"s" tool:"nullable=yes"`
		}](), "S", "", ErrInvalidTag},
		// Tag values that encoding/json calls JSON but the decoder rejects
		// are JSON with a fault, not text to quote.
		{"default with a lone surrogate", reflect.TypeFor[struct {
			S string `json:"s,omitempty" tool:"default=\"\\ud800\""`
		}](), "S", "", ErrConflict},
		{"enum value with a lone surrogate", reflect.TypeFor[struct {
			S string `json:"s" tool:"enum=\"\\udc00x\""`
		}](), "S", "", ErrConflict},
		{"example with a lone surrogate", reflect.TypeFor[struct {
			S string `json:"s" tool:"examples=\"\\ud800\""`
		}](), "S", "", ErrConflict},
		{"default with a duplicate name", reflect.TypeFor[struct {
			M map[string]int `json:"m,omitempty" tool:"default={\"a\":1,\"a\":2}"`
		}](), "M", "", ErrConflict},
		{"invopop description", reflect.TypeFor[struct {
			S string `json:"s" jsonschema:"description=the s"`
		}](), "S", `jsonschema:"description=the s"`, ErrInvalidTag},
		{"invopop flags first", reflect.TypeFor[struct {
			S string `json:"s" jsonschema:"required,description=the s"`
		}](), "S", `jsonschema:"required,description=the s"`, ErrInvalidTag},
		{"invopop flag alone", reflect.TypeFor[struct {
			S string `json:"s" jsonschema:"required"`
		}](), "S", `jsonschema:"required"`, ErrInvalidTag},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ForType(tt.typ, nil)
			derr, ok := errors.AsType[*DefinitionError](err)
			if !ok {
				t.Fatalf("ForType = %v, want a *DefinitionError", err)
			}
			if derr.Field != tt.field || (tt.tag != "" && derr.Tag != tt.tag) || !errors.Is(err, tt.kind) {
				t.Errorf("ForType = %v (field %q, tag %q), want field %q, tag %q and %v", err, derr.Field, derr.Tag, tt.field, tt.tag, tt.kind)
			}
			if derr.Type != tt.typ || !strings.Contains(err.Error(), tt.typ.String()) {
				t.Errorf("error %q does not name the type %s", err, tt.typ)
			}
		})
	}
}

type allTypes struct {
	Bool     bool               `json:"bool" jsonschema:"a flag"`
	Int      int                `json:"int"`
	Int8     int8               `json:"int8"`
	Int16    int16              `json:"int16"`
	Int32    int32              `json:"int32"`
	Int64    int64              `json:"int64"`
	Uint     uint               `json:"uint"`
	Uint8    uint8              `json:"uint8"`
	Uint16   uint16             `json:"uint16"`
	Uint32   uint32             `json:"uint32"`
	Uint64   uint64             `json:"uint64"`
	Float32  float32            `json:"float32"`
	Float64  float64            `json:"float64" tool:"minimum=0,exclusiveMaximum=1,multipleOf=0.25"`
	String   string             `json:"string" tool:"title=Name,deprecated,examples=a|b,pattern='^[a-z,]+$'"`
	Bytes    []byte             `json:"bytes"`
	Slice    []int              `json:"slice" tool:"minItems=1,uniqueItems,enum=1|2|3"`
	Array    [2]string          `json:"array"`
	Map      map[string]float64 `json:"map" tool:"maxProperties=3,minimum=0"`
	Ptr      *string            `json:"ptr" tool:"enum=x|y"`
	Nullable string             `json:"nullable" tool:"nullable,const=k"`
	Time     time.Time          `json:"time"`
	Any      any                `json:"any" jsonschema:"anything"`
	Raw      json.RawMessage    `json:"raw"`
	Text     lowerText          `json:"text" tool:"maxLength=9"`
	Custom   point              `json:"custom"`
	Tree     *treeNode          `json:"tree"`
	Omitted  string             `json:"omitted,omitempty" tool:"default=hello"`
	Skipped  string             `json:"-"`
	DecBase
}

// TestSchemaGolden keeps the emitted schema of a type with every supported
// kind in testdata/; go test ./schema -update rewrites it.
func TestSchemaGolden(t *testing.T) {
	v := mustFor[allTypes](t)
	got, err := json.MarshalIndent(v.Schema(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "all_types.json"), append(got, '\n'))
}

// TestSchemaIsANewTree checks what Validator.Schema promises: each call
// returns a tree of its own (changing one leaves the next call's alone), the
// tree is a tree (jsonschema-go resolves it, and it refuses a schema that
// appears twice), and concurrent calls agree, with the race detector
// watching.
func TestSchemaIsANewTree(t *testing.T) {
	for _, v := range []*Validator{mustFor[allTypes](t), mustFor[diffForest](t), mustFor[diffNested](t), mustFor[sharedCustom](t)} {
		want, err := json.Marshal(v.Schema())
		if err != nil {
			t.Fatal(err)
		}
		s := v.Schema()
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: the schema does not resolve: %v", v.Type(), err)
		}
		s.Description = "changed"
		for _, p := range s.Properties {
			p.Description = "changed"
			p.Type, p.Types = "null", nil
			for _, bound := range []*float64{p.Minimum, p.Maximum, p.ExclusiveMinimum, p.ExclusiveMaximum} {
				if bound != nil {
					*bound = 42
				}
			}
			for i := range p.Default {
				p.Default[i] = '!'
			}
			if p.Enum != nil {
				p.Enum[0] = "changed"
			}
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					if got, _ := json.Marshal(v.Schema()); !bytes.Equal(got, want) {
						t.Errorf("%s: Schema() changed after a caller changed its copy, or under concurrency:\n%s\nwant\n%s", v.Type(), got, want)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// spareColor's schema has room to grow in its slices: a schema written from
// it must not append into them (several Schema calls may run at once).
type spareColor string

func (spareColor) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Enum: append(make([]any, 0, 8), "red", "green"),
		Examples: append(make([]any, 0, 8), "red")}
}

type sharedCustom struct {
	Color  *spareColor  `json:"color" tool:"examples=\"green\""`
	Colors []spareColor `json:"colors"`
}

// bigRecursive has more fields than a struct searches one by one, and a
// default of its own type, which is checked while the struct is compiled.
type bigRecursive struct {
	A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17 string `json:",omitempty"`

	Next *bigRecursive `json:"next" tool:"default={\"A17\":\"x\",\"next\":null}"`
}

// endlessDefault's default leaves its own recursive field absent, so the
// default would take itself again, without end.
type endlessDefault struct {
	Name string          `json:"name"`
	Next *endlessDefault `json:"next" tool:"default={\"name\":\"x\"}"`
}

type endlessOuter struct {
	In endlessDefault `json:"in"`
}

// TestPlainTagValues checks, through the whole compiler, values that look
// like the start of JSON but belong to keys that do not take JSON.
// TestDescriptionsNotInvopop checks descriptions that mention key=value or
// a flag word and are still descriptions.
func TestDescriptionsNotInvopop(t *testing.T) {
	for _, desc := range []string{
		"the output format, default=json",
		"required for new accounts",
		"minimum wage, in cents",
		"a=b",
	} {
		if err := checkDescriptionTag(desc); err != nil {
			t.Errorf("checkDescriptionTag(%q) = %v, want nil", desc, err)
		}
	}
}

func TestPlainTagValues(t *testing.T) {
	type plain struct {
		Code  string `json:"code" tool:"pattern=[a-z]+"`
		Title string `json:"title" tool:"title=[Beta] name"`
		Brace string `json:"brace,omitempty" tool:"default={x"`
	}
	v := mustFor[plain](t)
	s := v.Schema()
	if p := s.Properties["code"].Pattern; p != "[a-z]+" {
		t.Errorf("pattern = %q", p)
	}
	if ti := s.Properties["title"].Title; ti != "[Beta] name" {
		t.Errorf("title = %q", ti)
	}
	var got plain
	if err := v.Decode([]byte(`{"code":"ab","title":"t"}`), &got); err != nil || got.Brace != "{x" {
		t.Errorf("Decode = %v, brace %q; want the default {x", err, got.Brace)
	}
	if err := v.Decode([]byte(`{"code":"AB","title":"t"}`), &got); err == nil {
		t.Error("the pattern [a-z]+ accepted AB")
	}
}

func TestRecursiveDefaults(t *testing.T) {
	v := mustFor[bigRecursive](t)
	var got bigRecursive
	if err := v.Decode([]byte(`{"A1":"a"}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Next == nil || got.Next.A17 != "x" || got.Next.Next != nil {
		t.Errorf("Next = %+v, want the default {A17: x, next: null}", got.Next)
	}
	for typ, field := range map[reflect.Type]string{
		reflect.TypeFor[endlessDefault](): "Next",
		reflect.TypeFor[endlessOuter]():   "schema.endlessDefault.Next",
	} {
		_, err := ForType(typ, nil)
		derr, ok := errors.AsType[*DefinitionError](err)
		if !ok || derr.Field != field || !errors.Is(err, ErrConflict) {
			t.Errorf("ForType(%s) = %v, want a *DefinitionError at %s matching ErrConflict: a default without end", typ, err, field)
		}
	}
}

// TestFieldsMatchEncodingJSON checks the field rules, the flat path and the
// embedding path alike, against what encoding/json writes.
func TestFieldsMatchEncodingJSON(t *testing.T) {
	// Two fields tagged alike cancel out; built with StructOf, because vet
	// rightly flags such a struct in source.
	clash := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		{Name: "B", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		{Name: "C", Type: reflect.TypeFor[int]()},
	})).Elem().Interface()
	type tagWins struct {
		X int
		Y int `json:"X"`
	}
	type Inner struct {
		X int `json:"x"`
		Z int
	}
	type embeds struct {
		Inner
		X int `json:"x"`
		W int `json:"-"`
		V int `json:"-,"`
	}
	for _, v := range []any{clash, tagWins{1, 2}, embeds{Inner{1, 2}, 3, 4, 5}} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			want = append(want, k)
		}
		var got []string
		for _, f := range jsonFields(nil, reflect.TypeOf(v)) {
			got = append(got, f.name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("jsonFields(%T) = %v, encoding/json writes %v", v, got, want)
		}
	}
}
