package jsonrpcwire

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// messageSeeds are JSON-RPC lines of every shape, well formed or not.
var messageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no","data":{"x":[1]}}}`,
	`{"jsonrpc":"2.0","id":null,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","id":{},"method":"m"}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":2,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"Method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"method":"\u00e9\ud800"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":1,"error":null,"result":null}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
	`{"jsonrpc":"2.0","id":-7,"method":"m","extra":{"deep":[[[]]]}}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"m"}`,
	`[]`, `{}`, `null`, `"2.0"`,
	// A member twice, the first of a kind the second does not replace in
	// a Go value: the SDK's decoder keeps only the last.
	`{"jsonrpc":"2.0","id":true,"method":"m","id":1}`,
	`{"jsonrpc":"2.0","id":"a","method":"m","id":1}`,
	`{"jsonrpc":"2.0","id":{},"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":[],"id":"x","method":"m"}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":null,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","message":null}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":{"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":{"message":"m"}} x`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2},"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
}

// FuzzDecode checks that Decode reads every line of valid JSON (what
// its callers hand it) as the SDK's jsonrpc.DecodeMessage does:
// the same message, or an error for both.
func FuzzDecode(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return
		}
		got, err := Decode(line)
		want, wantErr := jsonrpc.DecodeMessage(line)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Decode(%s) error = %v, the SDK's = %v", line, err, wantErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%s) = %#v, the SDK's = %#v", line, got, want)
		}
	})
}

// TestScanReadsCalls checks that the messages of a call are read token
// by token, and that an error response is left to json.Unmarshal.
func TestScanReadsCalls(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"echo","arguments":{"text":"hi"}}}`, true},
		{`{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"hi"}]}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`, true},
		{` {"id":1e2,"jsonrpc":"2.0","method":"m","other":[{"a":null}]} `, true},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, false},
		{`{"jsonrpc":"2.0","id":true,"method":"m"}`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"m"} {}`, false},
	} {
		if _, ok := scan([]byte(tt.line)); ok != tt.ok {
			t.Errorf("scan(%s) read it: %v, want %v", tt.line, ok, tt.ok)
		}
	}
}

// FuzzScan checks that what scan reads is what json.Unmarshal reads.
func FuzzScan(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := scan(line)
		if !ok {
			return
		}
		var w message
		if err := jsonv2.Unmarshal(line, &w, unmarshalOptions); err != nil {
			t.Fatalf("scan read %s, which Unmarshal refuses: %v", line, err)
		}
		want, err := w.decoded()
		if err != nil {
			t.Fatalf("scan read %s, which Unmarshal refuses: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scan(%s) = %#v, Unmarshal read %#v", line, got, want)
		}
	})
}

// TestDecodeCopies checks that a decoded message keeps nothing of the
// bytes it was decoded from, which a stream decoder reuses.
func TestDecodeCopies(t *testing.T) {
	for _, s := range messageSeeds {
		data := []byte(s)
		got, err := Decode(data)
		if err != nil {
			continue
		}
		want, _ := Decode([]byte(s))
		for i := range data {
			data[i] = 'x'
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) changed with its input: %#v", s, got)
		}
	}
}

// TestScanKeepsNoMessage checks that the scanner a message was read with,
// pooled for the next, holds nothing of the message: a line of up to 16
// MiB would otherwise stay in memory until the pool is emptied, two
// collections later, in every pool of every processor.
func TestScanKeepsNoMessage(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":"` + strings.Repeat("a", 1<<20) + `"}`)
	freed := make(chan struct{})
	runtime.AddCleanup(&data[0], func(freed chan struct{}) { close(freed) }, freed)
	if _, ok := scan(data); !ok {
		t.Fatalf("scan did not read %.60s…", data)
	}
	data = nil
	runtime.GC() // the pool keeps its scanners through one collection
	select {
	case <-freed:
	case <-time.After(time.Minute):
		t.Fatal("a message read is still held by the pooled scanner after a collection")
	}
}

// TestDecodeMemberPairs checks Decode against the SDK's
// jsonrpc.DecodeMessage on every message of two members after its version
// (of the names and values FuzzDecodeMembers draws from), and on every
// error object of two members, once or in two error members.
func TestDecodeMemberPairs(t *testing.T) {
	pairs := func(names []string) []string {
		var members []string
		for _, n := range names {
			for _, v := range memberValues {
				members = append(members, `"`+n+`":`+v)
			}
		}
		var pairs []string
		for _, a := range members {
			for _, b := range members {
				pairs = append(pairs, a+","+b, a+"},"+`"error":{`+b)
			}
		}
		return pairs
	}
	var lines []string
	for _, p := range pairs(envelopeNames) {
		if !strings.Contains(p, "}") {
			lines = append(lines, `{"jsonrpc":"2.0",`+p+`}`)
		}
	}
	for _, p := range pairs(errorNames) {
		lines = append(lines, `{"jsonrpc":"2.0","id":1,"error":{`+p+`}}`)
	}
	for _, line := range lines {
		got, err := Decode([]byte(line))
		want, wantErr := jsonrpc.DecodeMessage([]byte(line))
		if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %#v, %v; the SDK's = %#v, %v", line, got, err, want, wantErr)
		}
	}
}

// FuzzDecodeMembers checks Decode against the SDK's jsonrpc.DecodeMessage,
// as FuzzDecode does, on messages built member by member from the fuzzer's
// bytes: the members of a message and of its error, any of them twice or
// more, with values of every kind. Random bytes seldom make such a message,
// and a member twice is where decoders differ most: which one counts, and
// what a null or a value of another kind does to what the first left.
func FuzzDecodeMembers(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 2, 3})
	f.Add([]byte{0, 0, 1, 7, 1, 2, 2, 3})
	f.Add([]byte{0, 0, 1, 2, 5, 8, 0x10, 2, 0x10, 1, 0x21, 6, 1, 2})
	f.Add([]byte{0, 0, 0, 1, 1, 2, 4, 10, 4, 1})
	f.Fuzz(func(t *testing.T, recipe []byte) {
		line := []byte(object(recipe, envelopeNames, true))
		got, err := Decode(line)
		want, wantErr := jsonrpc.DecodeMessage(line)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Decode(%s) error = %v, the SDK's = %v", line, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%s) = %#v, the SDK's = %#v", line, got, want)
		}
	})
}

var (
	envelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error", "x", `\u0069d`}
	errorNames    = []string{"code", "message", "data", "x", "Code"}
	memberValues  = []string{`"2.0"`, `null`, `1`, `-0`, `1.5`, `1e400`, `"a"`, `true`, `{}`, `[]`, `"1.0"`, `12345678901234567890`, `-7`, `""`, `{"a":1}`, `"\ud800"`}
)

// object returns the JSON object recipe makes: each pair of bytes a
// member, the first its name, the second its value. In the envelope, a
// value byte with its high nibble set makes an error object of the
// bytes that follow, one for each of its low nibble.
func object(recipe []byte, names []string, envelope bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(recipe); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + names[int(recipe[i])%len(names)] + `":`)
		v := recipe[i+1]
		if envelope && v >= 0x10 {
			n := min(2*int(v&0x0f), len(recipe)-i-2)
			b.WriteString(object(recipe[i+2:i+2+n], errorNames, false))
			i += n
			continue
		}
		b.WriteString(memberValues[int(v)%len(memberValues)])
	}
	b.WriteByte('}')
	return b.String()
}
