package jsonrpcwire

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/cost"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// hostileLines are messages of n units of what makes them large, one for
// every way Decode may read a line: token by token, through
// json.Unmarshal, through the SDK's decoder, and refused at the end.
var hostileLines = []struct {
	name string
	line func(n int) string
}{
	{"a long string in the parameters", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"` + strings.Repeat("a", n) + `"}}`
	}},
	{"many members in the parameters", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":{` + members(n) + `}}`
	}},
	{"many unknown members", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"m",` + members(n) + `}`
	}},
	{"many members of the same name", func(n int) string {
		return `{"jsonrpc":"2.0",` + strings.Repeat(`"id":"a",`, n) + `"method":"m"}`
	}},
	{"deep arrays, many of them", func(n int) string {
		deep := strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2)
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(deep+",", n/MaxDepth) + `0]}`
	}},
	{"an error response with long data", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":"` + strings.Repeat("a", n) + `"}}`
	}},
	{"an error response with many members of the same name", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{` + strings.Repeat(`"a":[1],`, n) + `"a":1}}}`
	}},
	{"not JSON at the end", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"m","params":{` + members(n) + `}}}`
	}},
	{"not JSON at the end, after a member twice", func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"id":2,"error":{` + members(n) + `}}}`
	}},
}

// members returns n members, "k0":0 to "k<n-1>":<n-1>.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	return b.String()
}

// TestDecodeHostileSizes checks that what Decode costs, in CPU and in
// memory, grows in proportion to a line, however the line is made large.
func TestDecodeHostileSizes(t *testing.T) {
	const n = 1 << 18
	for _, tt := range hostileLines {
		t.Run(tt.name, func(t *testing.T) {
			lines := map[int][]byte{n / 4: []byte(tt.line(n / 4)), n: []byte(tt.line(n))}
			cost.Linear(t, tt.name, n/4, n, func(size int) { Decode(lines[size]) })
		})
	}
}

// TestEncodeLineHostileSizes checks that what EncodeLine costs grows in
// proportion to a message's value, written directly or by the SDK's
// encoder.
func TestEncodeLineHostileSizes(t *testing.T) {
	const n = 1 << 18
	id, _ := jsonrpc.MakeID(float64(1))
	for _, tt := range []struct {
		name  string
		value func(n int) string
	}{
		{"a long string", func(n int) string { return `{"s":"` + strings.Repeat("a", n) + `"}` }},
		{"many members", func(n int) string { return `{` + members(n) + `}` }},
		{"many members on many lines", func(n int) string { return "{\n" + strings.ReplaceAll(members(n), ",", ",\n") + "\n}" }},
		{"not JSON at the end", func(n int) string { return `{` + members(n) + `}}` }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msgs := map[int]jsonrpc.Message{
				n / 4: &jsonrpc.Response{ID: id, Result: json.RawMessage(tt.value(n / 4))},
				n:     &jsonrpc.Response{ID: id, Result: json.RawMessage(tt.value(n))},
			}
			cost.Linear(t, tt.name, n/4, n, func(size int) { EncodeLine(msgs[size]) })
		})
	}
}
