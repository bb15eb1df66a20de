package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

type outInner struct {
	N    int     `json:"n"`
	F    float32 `json:"f,omitempty"`
	Note string  `json:"note,omitempty"`
}

type outAll struct {
	S       string             `json:"s"`
	HTML    string             `json:"html"`
	B       bool               `json:"b"`
	I       int                `json:"i"`
	I8      int8               `json:"i8"`
	U       uint64             `json:"u"`
	F       float64            `json:"f"`
	F32     float32            `json:"f32"`
	Bytes   []byte             `json:"bytes"`
	Nil     []string           `json:"nil"`
	Empty   []string           `json:"empty"`
	Arr     [3]int8            `json:"arr"`
	Map     map[string]int     `json:"map"`
	NilMap  map[string]bool    `json:"nilMap"`
	Ptr     *outInner          `json:"ptr"`
	NilPtr  *outInner          `json:"nilPtr"`
	Inner   outInner           `json:"inner"`
	Items   []outInner         `json:"items"`
	Nested  map[string][]*int  `json:"nested"`
	When    time.Time          `json:"when"`
	Whens   []time.Time        `json:"whens"`
	OE      string             `json:"oe,omitempty"`
	OEI     int                `json:"oei,omitempty"`
	OEP     *int               `json:"oep,omitempty"`
	OES     []int              `json:"oes,omitempty"`
	OEM     map[string]int     `json:"oem,omitempty"`
	OEB     bool               `json:"oeb,omitempty"`
	OEF     float64            `json:"oef,omitempty"`
	OEA     [0]int             `json:"oea,omitempty"`
	OES2    outInner           `json:"oes2,omitempty"` // a struct is never empty
	OZ      outInner           `json:"oz,omitzero"`
	OZI     int                `json:"ozi,omitzero"`
	OZS     []int              `json:"ozs,omitzero"` // nil is zero, empty is not
	Dash    int                `json:"-,"`
	Skip    int                `json:"-"`
	Untaged string             //
	Bad     string             `json:"a\"b"` // not a valid name: the Go name is used
	Odd     string             `json:"<&>"`
	MapKeys map[string]string  `json:"mapKeys"`
	Named   map[outKey]outName `json:"named"`
	hidden  int
}

type (
	outKey  string
	outName string
)

// outCustom has its own MarshalJSON, which encoding/json compacts.
type outCustom struct{ V int }

func (c outCustom) MarshalJSON() ([]byte, error) {
	return []byte(`{ "v" : ` + strings.Repeat("1", c.V) + ` , "x":"<b>" }`), nil
}

type outWithCustom struct {
	C  outCustom  `json:"c"`
	CP *outCustom `json:"cp"`
}

type outText struct{ T outTextValue }

type outTextValue int

func (v outTextValue) MarshalText() ([]byte, error) { return []byte("t"), nil }

type outEmbedded struct {
	outInner
	X int `json:"x"`
}

type outRecursive struct {
	Kids []*outRecursive `json:"kids,omitempty"`
}

type outAny struct {
	V any `json:"v"`
}

func sampleAll() outAll {
	seven := 7
	return outAll{
		S:       "plain",
		HTML:    "<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\b\f\n\r\t\\ \x7f é \xff\xfe 😀",
		B:       true,
		I:       -42,
		I8:      -128,
		U:       math.MaxUint64,
		F:       1e21,
		F32:     1e-7,
		Bytes:   []byte("hello\x00world"),
		Empty:   []string{},
		Arr:     [3]int8{1, -2, 3},
		Map:     map[string]int{"b": 2, "a": 1, "é": 3, "<": 4, "": 0},
		Ptr:     &outInner{N: 1, F: 0.1},
		Inner:   outInner{Note: "x"},
		Items:   []outInner{{N: 1}, {N: 2, F: float32(math.Pi)}},
		Nested:  map[string][]*int{"x": {&seven, nil}, "y": nil},
		When:    time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.FixedZone("", 5*3600+30*60)),
		Whens:   []time.Time{{}, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)},
		OZS:     []int{},
		Dash:    3,
		Skip:    4,
		Untaged: "u",
		Bad:     "bad",
		Odd:     "odd",
		MapKeys: map[string]string{"z\u2028": "1", "a\"b": "2", "a\\b": "3"},
		Named:   map[outKey]outName{"k": "v"},
		hidden:  5,
	}
}

// TestOutputEncoding checks that Run writes every output exactly as
// encoding/json's Marshal does, whether its own encoder or encoding/json
// does the work, and that its own encoder covers the plain types.
func TestOutputEncoding(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 5e-324}
	for _, tt := range []struct {
		name string
		out  any
		fast bool // the encoder covers the type
	}{
		{"all kinds", sampleAll(), true},
		{"zero", outAll{}, true},
		{"pointer", &outInner{N: 3}, true},
		{"nil pointer", (*outInner)(nil), true},
		{"slice", []outInner{{N: 1}}, true},
		{"nil slice", []int(nil), true},
		{"map", map[string]float64{"a": 1e-7, "b": 2}, true},
		{"nil map", map[string]int(nil), true},
		{"number", 1.5, true},
		{"uintptr", uintptr(12), true},
		{"time", time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), true},
		{"time, local", time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("X", -(9*3600+59*60))), true},
		{"custom MarshalJSON", outWithCustom{C: outCustom{V: 2}, CP: &outCustom{V: 3}}, false},
		{"custom MarshalJSON, nil pointer", outWithCustom{}, false},
		{"MarshalText", outText{T: 1}, false},
		{"embedded", outEmbedded{outInner: outInner{N: 1}, X: 2}, false},
		{"recursive", outRecursive{Kids: []*outRecursive{{}}}, false},
		{"any", outAny{V: map[string]any{"b": 1, "a": []any{"x", nil}}}, false},
		{"json.Number", json.Number("12.50"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, tt.out)
			if fast := newEncoder(reflect.TypeOf(tt.out)) != nil; fast != tt.fast {
				t.Errorf("newEncoder(%T) != nil is %t, want %t", tt.out, fast, tt.fast)
			}
		})
	}
	for _, f := range floats {
		for _, v := range []any{f, -f, float32(f), float32(-f)} {
			checkOutput(t, v)
		}
	}
}

// TestOutputEncodingTyped checks the encoder where Run uses it, in a tool
// whose Out is a type it covers.
func TestOutputEncodingTyped(t *testing.T) {
	all := sampleAll()
	checkTyped(t, all)
	checkTyped(t, &all)
	checkTyped(t, (*outAll)(nil))
	checkTyped(t, []outInner(nil))
	checkTyped(t, map[string]*outInner{"b": nil, "a": {N: 1}})
	checkTyped(t, outWithCustom{C: outCustom{V: 1}})
}

func checkTyped[Out any](t *testing.T, out Out) {
	t.Helper()
	tl := New("out", "Return a value.", func(context.Context, struct{}) (Out, error) { return out, nil })
	want, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(context.Background(), tl, Call{Name: "out", Args: json.RawMessage(`{}`)})
	if res.IsError || res.Content != string(want) {
		t.Errorf("Run returning %T: content %s (IsError %t), want %s", out, res.Content, res.IsError, want)
	}
	if !reflect.DeepEqual(res.Output, any(out)) {
		t.Errorf("Run returning %T: Output = %#v, want %#v", out, res.Output, out)
	}
}

// checkOutput runs a tool that returns out and compares its content with
// json.Marshal(out), the error included.
func checkOutput(t *testing.T, out any) {
	t.Helper()
	tl := New("out", "Return a value.", func(context.Context, struct{}) (any, error) { return out, nil })
	want, werr := json.Marshal(out)
	// A tool whose Out is the value's own type uses its encoder.
	got, gerr := encodeThroughType(out)
	if (gerr != nil) != (werr != nil) || gerr == nil && got != string(want) {
		t.Errorf("output %#v:\ngot  %s (%v)\nwant %s (%v)", out, got, gerr, want, werr)
	}
	res := Run(context.Background(), tl, Call{Name: "out", Args: json.RawMessage(`{}`)})
	if res.IsError != (werr != nil) || !res.IsError && res.Content != string(want) {
		t.Errorf("Run returning %#v: content %s, IsError %t; want %s (%v)", out, res.Content, res.IsError, want, werr)
	}
}

// encodeThroughType encodes v as a Tool whose Out is v's type does.
func encodeThroughType(v any) (string, error) {
	if enc := newEncoder(reflect.TypeOf(v)); enc != nil {
		text, ok := encodeOutput(enc, v)
		// encodeStructured writes the same bytes, whatever capacity the
		// previous output's size gives them.
		for _, prev := range []int64{0, 1, int64(len(text)), 4 * int64(len(text))} {
			var size atomic.Int64
			size.Store(prev)
			data, sok := encodeStructured(enc, v, &size)
			if sok != ok || ok && string(data) != text {
				return "", fmt.Errorf("encodeStructured(%#v) after an output of %d bytes = %q, %t; encodeOutput = %q, %t", v, prev, data, sok, text, ok)
			}
		}
		if ok {
			return text, nil
		}
	}
	return content("out", v)
}

// TestOutputEncodingFailures checks that values Marshal refuses fail the
// call as Marshal does.
func TestOutputEncodingFailures(t *testing.T) {
	type withFloat struct {
		F float64 `json:"f"`
	}
	for _, out := range []any{
		math.NaN(), math.Inf(1), float32(math.Inf(-1)),
		withFloat{F: math.NaN()},
		[]float64{1, math.Inf(1)},
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
	} {
		checkOutput(t, out)
		tl := New("out", "Return a value.", func(context.Context, struct{}) (any, error) { return out, nil })
		res := Run(context.Background(), tl, Call{Name: "out", Args: json.RawMessage(`{}`)})
		if _, err := json.Marshal(out); !res.IsError || res.Err == nil || !strings.Contains(res.Err.Error(), err.Error()) {
			t.Errorf("Run returning %v: Err = %v, want it to hold %v", out, res.Err, err)
		}
	}
	var merr *json.UnsupportedValueError
	if _, err := encodeThroughType(math.NaN()); !errors.As(err, &merr) {
		t.Errorf("encoding NaN: %v, want a *json.UnsupportedValueError", err)
	}
}

// FuzzAppendString checks outputSpecial, which appendString uses to pass
// over eight plain bytes at a time, against plainOutputByte on every eight
// bytes of the input, and appendString against encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "user/ada_lovelace", "abcdefgh", "abcdefg<", "<bcdefgh", "abc&efghijklmnop",
		"abcdefg\x1f", "abcdefg\x7f", "abcdefg\x80", "\u2028abcdefgh", "abcdefgh\xff", "\"\\\"\\\"\\\"\\", "0123456789abcdef>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i+8 <= len(s); i++ {
			want := false
			for j := i; j < i+8; j++ {
				want = want || s[j] >= utf8.RuneSelf || !plainOutputByte[s[j]]
			}
			if got := outputSpecial(s[i : i+8]); got != want {
				t.Errorf("outputSpecial(%q) = %t, want %t", s[i:i+8], got, want)
			}
		}
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// FuzzOutputEncoding compares the encoder with encoding/json on values built
// from the fuzzer's input.
func FuzzOutputEncoding(f *testing.F) {
	f.Add("a<b>&c", int64(-1), uint64(1), 1.5, float32(0.1), true, []byte("x"), int64(0))
	f.Add("\u2028\xff\x00", int64(math.MinInt64), uint64(math.MaxUint64), 1e21, float32(1e-7), false, []byte(nil), int64(1<<40))
	f.Fuzz(func(t *testing.T, s string, i int64, u uint64, x float64, y float32, b bool, raw []byte, sec int64) {
		v := outAll{
			S: s, HTML: s, B: b, I: int(i), I8: int8(i), U: u, F: x, F32: y, Bytes: raw,
			Map:     map[string]int{s: int(i), s + "x": 1},
			Ptr:     &outInner{N: int(i), F: y, Note: s},
			Items:   []outInner{{Note: s}},
			When:    time.Unix(sec, i%1e9).In(time.FixedZone("", int(i%(48*3600)))),
			OE:      s,
			OEI:     int(u % 3),
			OEF:     x,
			MapKeys: map[string]string{s: s},
		}
		want, werr := json.Marshal(v)
		got, gerr := encodeThroughType(v)
		if (gerr != nil) != (werr != nil) || gerr == nil && got != string(want) {
			t.Errorf("got  %s (%v)\nwant %s (%v)", got, gerr, want, werr)
		}
	})
}
