package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type hostileArgs struct {
	Name  string  `json:"name,omitempty"`
	Count int64   `json:"count,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
	Any   any     `json:"any,omitempty"`
	Tree  *hostileTree
}

type hostileTree struct {
	Kids []*hostileTree `json:"kids,omitempty"`
}

func TestHostileInputs(t *testing.T) {
	v := mustFor[hostileArgs](t)
	deep := strings.Repeat(`{"kids":[`, 10_000) + strings.Repeat(`]}`, 10_000)
	deepAny := `{"any":` + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + `}`
	for _, tt := range []struct {
		name    string
		doc     []byte
		keyword string
		path    string
	}{
		{"10,000-deep recursive type", []byte(`{"Tree":` + deep + `}`), "limit", "*"},
		{"10,000-deep any", []byte(deepAny), "limit", "*"},
		{"10 MB string", []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`), "limit", ""},
		{"invalid UTF-8", []byte("{\"name\":\"\xff\xfe\"}"), "syntax", "/name"},
		{"lone high surrogate", []byte(`{"name":"\ud800"}`), "syntax", "/name"},
		{"lone low surrogate", []byte(`{"name":"\udc00x"}`), "syntax", "/name"},
		{"duplicate key", []byte(`{"name":"a","name":"b"}`), "syntax", "/name"},
		{"duplicate key, escaped", []byte(`{"name":"a","n\u0061me":"b"}`), "syntax", "/name"},
		{"1e400 into a float", []byte(`{"ratio":1e400}`), "range", "/ratio"},
		{"1e400 into an int", []byte(`{"count":1e400}`), "range", "/count"},
		{"2^63 into an int64", []byte(`{"count":9223372036854775808}`), "range", "/count"},
		{"NaN", []byte(`{"ratio":NaN}`), "syntax", "/ratio"},
		{"Infinity", []byte(`{"ratio":Infinity}`), "syntax", "/ratio"},
		{"BOM", []byte("\xef\xbb\xbf{}"), "syntax", ""},
		{"trailing bytes", []byte(`{} x`), "syntax", ""},
		{"two values", []byte(`{}{}`), "syntax", ""},
		{"top-level array", []byte(`[]`), "type", ""},
		{"top-level string", []byte(`"{}"`), "type", ""},
		{"top-level null", []byte(`null`), "type", ""},
		{"top-level number", []byte(`1`), "type", ""},
		{"empty body", []byte(``), "syntax", ""},
		{"whitespace body", []byte(" \n\t"), "syntax", ""},
		{"truncated", []byte(`{"name":"a`), "syntax", "/name"},
		{"comment", []byte(`{/* hi */}`), "syntax", ""},
		{"single quotes", []byte(`{'name':'a'}`), "syntax", ""},
		{"trailing comma", []byte(`{"name":"a",}`), "syntax", ""},
		{"leading zero", []byte(`{"count":01}`), "syntax", ""},
		{"control character in string", []byte("{\"name\":\"a\x01\"}"), "syntax", "/name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got hostileArgs
			err := v.Decode(tt.doc, &got)
			serr, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Decode = %v, want a *Error", err)
			}
			if len(serr.Issues) != 1 {
				t.Fatalf("Decode = %v, want exactly one issue", err)
			}
			is := serr.Issues[0]
			if is.Keyword != tt.keyword || (tt.path != "*" && is.Path != tt.path) {
				t.Errorf("issue = %.200v, want keyword %q at %q", is, tt.keyword, tt.path)
			}
			if text := is.String(); len(text) > 300 {
				t.Errorf("the issue's text is %d bytes long: %.80q…", len(text), text)
			}
		})
	}

	// -0 is zero, for integers and floats.
	var got hostileArgs
	if err := v.Decode([]byte(`{"count":-0,"ratio":-0}`), &got); err != nil || got.Count != 0 || got.Ratio != 0 {
		t.Errorf("Decode(-0) = %+v, %v", got, err)
	}
}

// TestHostileMemoryIsBounded checks that rejecting a document past the size
// limit costs no memory in proportion to it, and that a deep one costs no
// more than its depth limit allows.
func TestHostileMemoryIsBounded(t *testing.T) {
	v := mustFor[hostileArgs](t)
	big := []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`)
	deep := []byte(`{"Tree":` + strings.Repeat(`{"kids":[`, 10_000) + strings.Repeat(`]}`, 10_000) + `}`)
	for _, tt := range []struct {
		name  string
		doc   []byte
		limit uint64
	}{
		{"10 MB string", big, 64 << 10},
		{"10,000 levels", deep, 1 << 20},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 10 {
			if v.Validate(tt.doc) == nil {
				t.Fatalf("%s: accepted", tt.name)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > tt.limit {
			t.Errorf("%s: rejecting it allocated %d bytes a time, want at most %d", tt.name, per, tt.limit)
		}
	}
}

func TestSizeLimitIsConfigurable(t *testing.T) {
	doc := []byte(`{"name":"` + strings.Repeat("a", 10<<20) + `"}`)
	v, err := For[hostileArgs](&Options{Limits: Limits{MaxBytes: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var got hostileArgs
	if err := v.Decode(doc, &got); err != nil || len(got.Name) != 10<<20 {
		t.Errorf("with no size limit, Decode = %v (name %d bytes)", err, len(got.Name))
	}
	small, _ := For[hostileArgs](&Options{Limits: Limits{MaxBytes: 16, MaxDepth: 2}})
	if err := small.Validate(bytes.Repeat([]byte(" "), 17)); err == nil {
		t.Error("MaxBytes 16 accepted 17 bytes")
	}
	if err := small.Validate([]byte(`{"any":[[1]]}`)); err == nil {
		t.Error("MaxDepth 2 accepted 3 levels")
	}
	if err := small.Validate([]byte(`{"any":[1]}`)); err != nil {
		t.Errorf("MaxDepth 2 rejected 2 levels: %v", err)
	}
}

// hostileKeys has a place for each way an object with many members is read:
// as a struct (whose unknown members are skipped), as maps, and whole, as an
// any or a json.RawMessage.
type hostileKeys struct {
	Name  string            `json:"name,omitempty"`
	Count int64             `json:"count,omitempty"`
	Ratio float64           `json:"ratio,omitempty" tool:"multipleOf=0.01"`
	Map   map[string]int    `json:"map,omitempty"`
	Strs  map[string]string `json:"strs,omitempty"`
	Any   any               `json:"any,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
	Items []hostileItem     `json:"items,omitempty" tool:"uniqueItems"`
}

type hostileItem struct {
	Tags []string `json:"tags"`
}

// members returns n object members "k0":0, "k1":0, … separated by commas,
// and then extra, if any, after a comma.
func members(n int, extra string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`":0`)
	}
	if extra != "" {
		b.WriteByte(',')
		b.WriteString(extra)
	}
	return b.String()
}

// hostileDeadline is how long reading any document of TestHostileSizes may
// take: a guard against a cost that grows faster than the document, which
// at these sizes takes minutes. BenchmarkUnknownKeys shows the cost per
// member. It is five times longer under the race detector (race_test.go).
var hostileDeadline = 2 * time.Second

// TestHostileSizes checks that documents with very many members, items or
// digits are read in time in proportion to their size, with every issue
// reported as for a small one.
func TestHostileSizes(t *testing.T) {
	const n = 50_000
	v, err := For[hostileKeys](&Options{Limits: Limits{MaxBytes: -1}})
	if err != nil {
		t.Fatal(err)
	}
	items := func(extra string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"tags":["%d"]},`, i)
		}
		return `{"items":[` + b.String() + extra + `]}`
	}
	zeros := strings.Repeat("0", 1<<20)
	threes := strings.Repeat("3", 1<<20)
	for _, tt := range []struct {
		name string
		doc  string
		want []string // "path keyword" of the issues, or of the first ones
		more int      // how many issues past the listed ones
	}{
		{name: "distinct unknown keys", doc: `{` + members(n, "") + `}`, want: []string{" additionalProperties", " additionalProperties"}, more: n - DefaultMaxIssues},
		{name: "unknown keys, then a duplicate", doc: `{` + members(n, `"k0":1`) + `}`, want: []string{"/k0 syntax"}},
		{name: "unknown keys, then an escaped duplicate", doc: `{` + members(n, `"k\u0030":1`) + `}`, want: []string{"/k0 syntax"}},
		{name: "one unknown key many times", doc: `{` + strings.Repeat(`"k":0,`, n) + `"k":0}`, want: []string{"/k syntax"}},
		{name: "many keys in a map", doc: `{"map":{` + members(n, "") + `}}`},
		{name: "many keys in a map, then a duplicate", doc: `{"map":{` + members(n, `"k0":1`) + `}}`, want: []string{"/map/k0 syntax"}},
		{name: "many keys in a map of strings, then a duplicate", doc: `{"strs":{` + strings.ReplaceAll(members(n, `"k0":1`), ":0", `:"0"`) + `}}`, want: []string{"/strs/k0 syntax"}},
		{name: "many keys in an any", doc: `{"any":{` + members(n, "") + `}}`},
		{name: "many keys in an any, then a duplicate", doc: `{"any":{` + members(n, `"k0":1`) + `}}`, want: []string{"/any/k0 syntax"}},
		{name: "many keys in a raw value, then a duplicate", doc: `{"raw":{` + members(n, `"k\u0030":1`) + `}}`, want: []string{"/raw/k0 syntax"}},
		{name: "many keys in a skipped value, then a duplicate", doc: `{"x":{` + members(n, `"k0":1`) + `}}`, want: []string{"/x/k0 syntax"}},
		{name: "distinct unique items", doc: items(`{"tags":[]}`)},
		{name: "unique items, then a duplicate", doc: items(`{"tags":["7"]}`), want: []string{"/items uniqueItems"}},
		{name: "an integer with a million zeros", doc: `{"count":1.` + zeros + `e5}`},
		{name: "an integer with a million digits", doc: `{"count":1.` + threes + `e5}`, want: []string{"/count type"}},
		{name: "a multiple with a million zeros", doc: `{"ratio":0.25` + zeros + `}`},
		{name: "not a multiple, with a million digits", doc: `{"ratio":0.25` + zeros + `1}`, want: []string{"/ratio multipleOf"}},
		{name: "a string of a million escapes", doc: `{"name":"` + strings.Repeat(`\n`, 1<<20) + `"}`},
		{name: "an unknown key of a million escapes", doc: `{"` + strings.Repeat(`\n`, 1<<20) + `":0}`, want: []string{" additionalProperties"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got hostileKeys
			start := time.Now()
			err := v.Decode([]byte(tt.doc), &got)
			if took := time.Since(start); took > hostileDeadline {
				t.Errorf("decoding %d bytes took %v", len(tt.doc), took)
			}
			var issues []string
			more := 0
			if serr, ok := errors.AsType[*Error](err); ok {
				for _, is := range serr.Issues {
					if is.Path == "" && is.Keyword == "limit" {
						fmt.Sscanf(is.Message, "%d more issues", &more)
						continue
					}
					issues = append(issues, is.Path+" "+is.Keyword)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tt.more > 0 && len(issues) > len(tt.want) {
				issues = issues[:len(tt.want)]
			}
			if !slices.Equal(issues, tt.want) || more != tt.more {
				t.Errorf("issues %q and %d more, want %q and %d more", issues, more, tt.want, tt.more)
			}
		})
	}
}

// TestHostileUnknownKeysAllListed checks that with no issue limit, every one
// of many unknown keys is reported, in order, still in time in proportion
// to their number.
func TestHostileUnknownKeysAllListed(t *testing.T) {
	const n = 50_000
	v, err := For[hostileKeys](&Options{Limits: Limits{MaxIssues: -1}})
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"nme":"x",` + members(n, "") + `}`)
	start := time.Now()
	err = v.Validate(doc)
	if took := time.Since(start); took > hostileDeadline {
		t.Errorf("validating %d bytes took %v", len(doc), took)
	}
	serr, ok := errors.AsType[*Error](err)
	if !ok || len(serr.Issues) != n+1 {
		t.Fatalf("Validate = %.200v, want %d issues", err, n+1)
	}
	if is := serr.Issues[0]; is.Keyword != "additionalProperties" || !strings.Contains(is.Message, `did you mean "name"?`) {
		t.Errorf("first issue %v, want a suggestion of \"name\"", is)
	}
	for i, is := range serr.Issues[1:] {
		if is.Path != "" || is.Keyword != "additionalProperties" || !strings.Contains(is.Message, `"k`+strconv.Itoa(i)+`"`) {
			t.Fatalf("issue %d is %v, want k%d's", i+1, is, i)
		}
	}
}

// TestDuplicateMatchesDeepEqual compares uniqueItems, which groups items by
// a hash of their values, with comparing every pair with reflect.DeepEqual,
// on arrays drawn from a few values, so that most hold duplicates.
func TestDuplicateMatchesDeepEqual(t *testing.T) {
	type item struct {
		Tags []string        `json:"tags"`
		M    map[string]any  `json:"m,omitempty"`
		P    *float64        `json:"p,omitempty"`
		When *time.Time      `json:"when,omitempty"`
		Raw  json.RawMessage `json:"raw,omitempty"`
	}
	anyValues := []string{`0`, `-0`, `1`, `1.0`, `"1"`, `[1]`, `[1.0]`, `{"a":1,"b":[2]}`, `{"b":[2],"a":1}`, `{"a":1}`, `null`, `true`, `{}`, `[]`}
	for _, tt := range []struct {
		typ    reflect.Type
		values []string
	}{
		{reflect.TypeFor[[]item](), []string{
			`{"tags":[]}`, `{"tags":[],"p":null}`, `{"tags":["a"]}`, `{"tags":["a"],"m":{"x":1,"y":[0]}}`, `{"tags":["a"],"m":{"y":[-0],"x":1.0}}`,
			`{"tags":["a"],"p":0}`, `{"tags":["a"],"p":-0}`, `{"tags":["a"],"p":1}`, `{"tags":[],"when":"2024-05-01T12:00:00Z"}`,
			`{"tags":[],"when":"2024-05-01T14:00:00+02:00"}`, `{"tags":[],"raw":[1]}`, `{"tags":[],"raw":[1.0]}`,
		}},
		{reflect.TypeFor[[]any](), anyValues},
		{reflect.TypeFor[[]json.RawMessage](), anyValues},
		{reflect.TypeFor[[][]any](), []string{`[]`, `[1]`, `[-0]`, `[0]`, `[{"a":null}]`, `[{"a":null,"b":1}]`}},
		{reflect.TypeFor[[]map[string][]int](), []string{`{}`, `{"a":[]}`, `{"a":[1]}`, `{"b":[1]}`, `{"a":[1],"b":[1]}`}},
		{reflect.TypeFor[[]time.Time](), []string{`"2024-05-01T12:00:00Z"`, `"2024-05-01T12:00:00.000z"`, `"2024-05-01T14:00:00+02:00"`, `"2024-05-02T12:00:00Z"`}},
		{reflect.TypeFor[[]*[]string](), []string{`null`, `[]`, `["a"]`, `["a","b"]`}},
	} {
		typ := reflect.StructOf([]reflect.StructField{{Name: "A", Type: tt.typ, Tag: `json:"a" tool:"uniqueItems"`}})
		v, err := ForType(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, uint64(len(tt.values))))
		for range 300 {
			n := r.IntN(8)
			picked := make([]string, n)
			for i := range picked {
				picked[i] = tt.values[r.IntN(len(tt.values))]
			}
			doc := []byte(`{"a":[` + strings.Join(picked, ",") + `]}`)
			dst := reflect.New(typ)
			err := v.Decode(doc, dst.Interface())
			want := ""
			if j, i, ok := allPairsDuplicate(dst.Elem().Field(0)); ok {
				want = fmt.Sprintf("/a: items %d and %d are equal; every item must be unique", j, i)
			}
			got := ""
			if serr, ok := errors.AsType[*Error](err); ok && len(serr.Issues) == 1 {
				got = serr.Issues[0].String()
			} else if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			if got != want {
				t.Errorf("%s into %v: got %q, want %q", doc, tt.typ, got, want)
			}
		}
	}
}

// allPairsDuplicate finds the first item of v equal to one before it, and
// that one, by comparing every pair with reflect.DeepEqual (a
// json.RawMessage by the value it holds).
func allPairsDuplicate(v reflect.Value) (int, int, bool) {
	item := func(i int) any {
		if raw, ok := v.Index(i).Interface().(json.RawMessage); ok {
			var x any
			if json.Unmarshal(raw, &x) != nil {
				panic(string(raw))
			}
			return x
		}
		return v.Index(i).Interface()
	}
	for i := range v.Len() {
		for j := range i {
			if reflect.DeepEqual(item(j), item(i)) {
				return j, i, true
			}
		}
	}
	return 0, 0, false
}

// FuzzNumberDigits compares multipleOf and integral, which read a number's
// digits once, with big.Rat, which is exact but slow on long numbers, and
// shortInt, the decoder's path for short integers, with strconv.
func FuzzNumberDigits(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "0.0", "-0.0e5", "1", "12.50", "1.0000000000000000001", "100e-2", "0.015e1", "1e-400",
		"1e20", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
		"9.223372036854775807e18", "999999999999999999", "-999999999999999999", "1000000000000000000", "36", "0.25", "2.5e-1", "7e0", "3.3333", "1E+2", "-1.5e-7", "12345678901234567890e-5",
	} {
		f.Add(s)
	}
	var multiples []*big.Rat
	for _, m := range []string{"0.01", "5", "0.25", "2.5", "1e-3", "7", "0.3", "1", "1e-300", "3.14159"} {
		r, _ := new(big.Rat).SetString(m)
		multiples = append(multiples, r)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d := getDecoder([]byte(raw), maxNesting, DefaultMaxIssues)
		defer putDecoder(d)
		if len(raw) == 0 || len(raw) > 400 || !isNumberStart(raw[0]) || !d.scanNumber() || d.pos != len(raw) {
			return
		}
		if i := strings.IndexAny(raw, "eE"); i >= 0 {
			if e, err := strconv.Atoi(raw[i+1:]); err != nil || e > 1000 || e < -1000 {
				return // big.Rat would take long
			}
		}
		if i, ok := shortInt([]byte(raw)); ok {
			if want, err := strconv.ParseInt(raw, 10, 64); err != nil || i != want {
				t.Errorf("shortInt(%s) = %d, strconv says %d (%v)", raw, i, want, err)
			}
		} else if digits := strings.TrimPrefix(raw, "-"); len(digits) <= 18 && !strings.ContainsAny(digits, ".eE") {
			t.Errorf("shortInt(%s) refused an integer of %d digits", raw, len(digits))
		}
		r, ok := new(big.Rat).SetString(raw)
		if !ok {
			t.Fatalf("big.Rat refused %q", raw)
		}
		for _, m := range multiples {
			if got, want := multipleOf([]byte(raw), m), new(big.Rat).Quo(r, m).IsInt(); got != want {
				t.Errorf("multipleOf(%s, %s) = %v, want %v", raw, m.RatString(), got, want)
			}
		}
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return // integral reports the range instead
		}
		_, exact, isInt := d.integral([]byte(raw))
		switch {
		case isInt != r.IsInt():
			t.Errorf("integral(%s) says integer %v, want %v", raw, isInt, r.IsInt())
		case !isInt:
		case exact == nil && (r.Num().IsInt64() || r.Num().IsUint64()):
			t.Errorf("integral(%s) = nil, want %v", raw, r.Num())
		case exact != nil && exact.Cmp(r.Num()) != 0:
			t.Errorf("integral(%s) = %v, want %v", raw, exact, r.Num())
		}
	})
}

// TestIssuePathsAreBounded checks that the paths of the issues listed for a
// document cost memory linear in its size: many issues under one long
// member name are counted, not listed, once their paths pass a budget, with
// the default issue limit and with every issue listed.
func TestIssuePathsAreBounded(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type doc struct {
		M map[string][]inner `json:"m"`
	}
	key := strings.Repeat("k", 1<<20)
	items := strings.Repeat(`{"n":"x"},`, 300)
	data := []byte(`{"m":{"` + key + `":[` + items[:len(items)-1] + `]}}`)
	for _, limits := range []Limits{{}, {MaxIssues: -1}} {
		v, err := For[doc](&Options{Limits: limits})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err = v.Validate(data)
		runtime.ReadMemStats(&after)
		serr, ok := errors.AsType[*Error](err)
		if !ok {
			t.Fatalf("Validate = %v, want a *Error", err)
		}
		last := serr.Issues[len(serr.Issues)-1]
		if last.Keyword != KeywordLimit || !strings.Contains(last.Message, "more issues not listed") {
			t.Errorf("MaxIssues %d: the last issue is %q, want a note of the issues not listed", limits.MaxIssues, last.Message)
		}
		if first := serr.Issues[0]; first.Path != "/m/"+key+"/0/n" || first.Keyword != KeywordType {
			t.Errorf("MaxIssues %d: the first issue is at a path of %d bytes with %q", limits.MaxIssues, len(first.Path), first.Keyword)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(data)) {
			t.Errorf("MaxIssues %d: a %d-byte document allocated %d bytes; want at most 8 times its size", limits.MaxIssues, len(data), alloc)
		}
	}
}
