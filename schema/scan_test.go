package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// scanCases are documents for the scanner, valid and not; FuzzScanner
// starts from them.
var scanCases = []string{
	// Valid.
	`{}`, `[]`, `0`, `-0`, `1`, `-1.5e+10`, `1E-3`, `0.0`, `123456789012345678901234567890`,
	`true`, `false`, `null`, `""`, ` {"a" : [1, {"b":null}] } `, "\t\r\n[\n]\n",
	`"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u20ac\ud83d\ude00"`, `"\uD83D\uDE00"`, `"é€😀"`, "\"\x7f\"",
	`{"a":1,"b":2,"A":3,"a\u0000":4}`, `{"":1}`, `[[[[]]]]`, `{"a":{"a":{"a":1}}}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}`,
	"\"\u2028\u2029\"", `"\u0000"`,
	// Not valid.
	``, ` `, `{`, `}`, `[`, `[1,]`, `[,1]`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:2}`, `{'a':1}`,
	`01`, `-`, `-01`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `-Infinity`, `1 2`, `{}{}`, `{} x`,
	`tru`, `truex`, `nul`, `nulL`, `True`, `"abc`, `"\"`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\ud800"`, `"\udc00"`,
	`"\ud800\u0041"`, `"\ud800\ud800"`, `"\ud800x"`, `"\ud800\`, `"\ud800\u"`, `"\ud800\udc0"`, "\"\x01\"", "\"\t\"",
	"\"\xff\"", "\"\xc3\"", "\"\xc3", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xc0\xaf\"", "\xef\xbb\xbf{}",
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":2}}`, `[{"x":1},{"x":1,"x":1}]`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":17}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k\u0031":17}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k\u0035":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"a\"b":17,"k5":18}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"a\"b":17,"a\u0022b":18}`,
	"[" + strings.Repeat(`{"a":[`, 30) + strings.Repeat(`]}`, 30) + "]",
	strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting),
	strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1),
}

// scanDocument reads data as one whole document with the scanner, as the
// decoder reads a value it keeps or skips whole, and reports whether it is
// JSON, with the issue when it is not.
func scanDocument(data []byte) (ok bool, issue Issue) {
	d := getDecoder(data, maxNesting, DefaultMaxIssues)
	defer putDecoder(d)
	if _, ok := d.skip(); ok {
		if d.peek(); d.pos < len(d.data) {
			d.badChar(d.pos, "after top-level value")
		}
	}
	return !d.fatal, d.fatalIssue
}

// scanValue reads a document that scanDocument accepted, with the scanner's
// parts (scanString and appendUnquoted, scanNumber, scanLiteral and the
// delimiters), into the value encoding/json's Unmarshal gives with
// UseNumber.
func scanValue(data []byte) any {
	d := getDecoder(data, maxNesting, DefaultMaxIssues)
	defer putDecoder(d)
	return d.anyValue()
}

func (d *decoder) anyValue() any {
	switch c := d.peek(); c {
	case '{':
		d.pos++
		m := map[string]any{}
		for first := true; ; first = false {
			c := d.peek()
			if first && c == '}' {
				d.pos++
				return m
			}
			name, _ := d.memberName(c, first)
			d.colon()
			m[d.unquote(name)] = d.anyValue()
			if end, _ := d.objectNext(); end {
				return m
			}
		}
	case '[':
		d.pos++
		s := []any{}
		if d.peek() == ']' {
			d.pos++
			return s
		}
		for {
			s = append(s, d.anyValue())
			if end, _ := d.arrayNext(); end {
				return s
			}
		}
	case '"':
		s, _ := d.scanString()
		return d.unquote(s)
	case 't', 'f', 'n':
		start := d.pos
		d.scanScalar(c)
		switch string(d.data[start:d.pos]) {
		case "true":
			return true
		case "false":
			return false
		}
		return nil
	}
	start := d.pos
	d.scanNumber()
	return json.Number(d.data[start:d.pos])
}

// checkScan compares the scanner's verdict on data with jsontext's, and the
// value it reads with encoding/json's.
func checkScan(t *testing.T, data []byte) {
	t.Helper()
	ok, issue := scanDocument(data)
	if want := jsontext.Value(data).IsValid(); ok != want {
		t.Fatalf("scanner says valid = %t (%v), jsontext %t, for %.200q", ok, issue, want, data)
	}
	if !ok {
		if issue.Keyword != "syntax" && issue.Keyword != "limit" || issue.Message == "" {
			t.Errorf("scanner rejects %.200q with %+v, want a syntax or limit issue", data, issue)
		}
		return
	}
	var want any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json rejects %.200q, which jsontext and the scanner accept: %v", data, err)
	}
	if got := scanValue(data); !reflect.DeepEqual(got, want) {
		t.Errorf("scanner reads %.200q as\n%#v\nencoding/json as\n%#v", data, got, want)
	}
}

func TestScanner(t *testing.T) {
	for _, doc := range scanCases {
		checkScan(t, []byte(doc))
	}
	// Every prefix of a valid document is cut short.
	doc := []byte(`{"a":[1,-2.5e3,"x\u00e9\ud83d\ude00y",true,false,null,{"b":{}}],"c":"é"}`)
	for i := range len(doc) {
		checkScan(t, doc[:i])
	}
}

// TestScannerIssues checks where syntax errors are reported: at the byte
// where the document stops being JSON, and at the value being read there.
func TestScannerIssues(t *testing.T) {
	for _, tt := range []struct {
		doc, path, at string
	}{
		{`{"a":[1,2,]}`, "/a/2", "byte 10:"},
		{`{"a":[1 2]}`, "/a", "byte 8:"},
		{`{"a":{"b":1,"b":2}}`, "/a/b", "byte 12:"},
		{`{"a/b":{"~":tru}}`, "/a~1b/~0", "byte 15:"},
		{`{"a":"\ud800"}`, "/a", "byte 6:"},
		{"{\"a\":\"\xff\"}", "/a", "byte 6:"},
		{`{"a":1,}`, "", "byte 7:"},
		{`{"a":01}`, "", "byte 6:"},
		{`[{"a\u0062":1,"ab":2}]`, "/0/ab", "byte 14:"},
		{`{"a":[`, "/a/0", "byte 6:"},
		{strings.Repeat("[", maxNesting+1), "/0/0", "limit"},
	} {
		_, issue := scanDocument([]byte(tt.doc))
		if tt.at == "limit" {
			if issue.Keyword != "limit" || !strings.HasPrefix(issue.Path, tt.path) {
				t.Errorf("scanning %.40q: %+v, want a limit issue", tt.doc, issue)
			}
			continue
		}
		if issue.Keyword != "syntax" || issue.Path != tt.path || !strings.Contains(issue.Message, tt.at) {
			t.Errorf("scanning %q: issue %+v, want a syntax issue at %q, %s", tt.doc, issue, tt.path, tt.at)
		}
	}
}

// FuzzScanner compares the scanner with jsontext (is it JSON?) and with
// encoding/json (what does it hold?) on arbitrary bytes.
func FuzzScanner(f *testing.F) {
	for _, doc := range scanCases {
		if len(doc) < 1000 {
			f.Add([]byte(doc))
		}
	}
	for _, c := range diffCases {
		for _, doc := range slices.Concat(c.valid, c.invalid) {
			f.Add([]byte(doc))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScan(t, data)
	})
}

// TestSpecialBytes checks specialBytes against plainStringByte: with one
// byte of every value at every position of a word of plain bytes, and with
// two, that the first byte it marks is the first that is not plain.
func TestSpecialBytes(t *testing.T) {
	firstSpecial := func(word []byte) int {
		for i, b := range word {
			if !plainStringByte[b] {
				return i
			}
		}
		return 8
	}
	check := func(word []byte) {
		got := 8
		if mask := specialBytes(binary.LittleEndian.Uint64(word)); mask != 0 {
			got = bits.TrailingZeros64(mask) / 8
		}
		if want := firstSpecial(word); got != want {
			t.Errorf("specialBytes(%q) marks byte %d first, want %d", word, got, want)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			word := []byte("abcdefgh")
			word[pos] = byte(c)
			check(word)
			for pos2 := pos + 1; pos2 < 8; pos2++ {
				for _, c2 := range []byte{0, 0x1f, '"', '\\', 0x80, 0xff, ' ', 'a'} {
					word2 := bytes.Clone(word)
					word2[pos2] = c2
					check(word2)
				}
			}
		}
	}
}
