package mcpserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeLineChecked is decodeLine as it was before it decoded first: the
// line checked for JSON and for a batch, then decoded.
func decodeLineChecked(line []byte) (jsonrpc.Message, *jsonrpc.Response) {
	switch {
	case !json.Valid(line):
		return refuse(line, jsonrpc.CodeParseError, "")
	case line[0] == '[':
		return refuse(line, jsonrpc.CodeInvalidRequest, "")
	}
	msg, err := jsonrpcwire.Decode(line)
	if err != nil {
		return refuse(line, jsonrpc.CodeInvalidRequest, "")
	}
	return msg, nil
}

// withoutText returns m, or a copy of it without its error's message.
func withoutText(m jsonrpc.Message) jsonrpc.Message {
	r, ok := m.(*jsonrpc.Response)
	if !ok || r == nil || r.Error == nil {
		return m
	}
	e := *r.Error.(*jsonrpc.Error)
	e.Message = ""
	return &jsonrpc.Response{ID: r.ID, Result: r.Result, Error: &e}
}

// FuzzDecodeLine checks that decodeLine, which decodes a line before it
// looks at what is wrong with it, answers every line as checking it
// first does: the same message, or an error with the same code and ID.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`{not json`, `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, `[]`, `[1`, `{}`, `null`, `"x"`,
		`{"jsonrpc":"2.0","id":1,"method":"m"} {}`, `{"jsonrpc":"1.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","id":2} {}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":{}}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":"a","method":"m","params":{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) == 0 {
			return // readLines hands it no empty line
		}
		msg, resp := decodeLine(line, false, DefaultMaxLineLength)
		wantMsg, wantResp := decodeLineChecked(line)
		if (resp == nil) != (wantResp == nil) || (msg == nil) != (wantMsg == nil) {
			t.Fatalf("decodeLine(%q) = %v, %v; checking first gives %v, %v", line, msg, resp, wantMsg, wantResp)
		}
		if resp != nil && !reflect.DeepEqual(withoutText(resp), withoutText(wantResp)) {
			t.Fatalf("decodeLine(%q) answers with %#v, checking first with %#v", line, resp, wantResp)
		}
		if msg != nil && !reflect.DeepEqual(withoutText(msg), withoutText(wantMsg)) {
			t.Fatalf("decodeLine(%q) = %#v, checking first gives %#v", line, msg, wantMsg)
		}
	})
}

// TestDecodeLineHostileSizes checks that what answering a line costs, in
// CPU and in memory, grows in proportion to the line on every way a line
// is answered: a message, a parse error found at its end, an invalid
// request, a batch.
func TestDecodeLineHostileSizes(t *testing.T) {
	const n = 1 << 20
	params := func(n int) string { return `{"a":[` + strings.Repeat(`{"b":"c"},`, n/10) + `1]}` }
	for _, tt := range []struct {
		name string
		line func(n int) string
	}{
		{"a message", func(n int) string { return `{"jsonrpc":"2.0","id":1,"method":"m","params":` + params(n) + `}` }},
		{"not JSON at the end", func(n int) string { return `{"jsonrpc":"2.0","id":1,"method":"m","params":` + params(n) + `}}` }},
		{"not a message", func(n int) string { return `{"jsonrpc":"1.0","id":1,"method":"m","params":` + params(n) + `}` }},
		{"a batch", func(n int) string { return `[{"jsonrpc":"2.0","id":1,"method":"m","params":` + params(n) + `}]` }},
		{"deep arrays, many of them", func(n int) string {
			deep := strings.Repeat("[", 998) + strings.Repeat("]", 998)
			return `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(deep+",", n/len(deep)) + `0]}`
		}},
		{"too deep, at the end", func(n int) string {
			return `{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(`"[[[[",`, n/7) + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `]}`
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lines := map[int][]byte{n / 4: []byte(tt.line(n / 4)), n: []byte(tt.line(n))}
			cost.Linear(t, tt.name, n/4, n, func(size int) { decodeLine(lines[size], false, DefaultMaxLineLength) })
		})
	}
}
