package jsonrpcwire

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestHead checks the ID and kind that Head finds at the start of lines
// cut short, as a connection keeps them of a line too long to read.
func TestHead(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tt := range []struct {
		head string
		id   any // nil: no ID
		kind Kind
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kv_put","arguments":{"value":"` + long, int64(7), Request},
		{`{"jsonrpc":"2.0","id":"a-b","method":"tools/call","par`, "a-b", Request},
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + long, int64(7), Response},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"` + long, int64(7), Response},
		{`{"method":"tools/call","params":{"arguments":{"value":"` + long, nil, Request}, // the ID comes after
		{`{"jsonrpc":"2.0","id":7,"ext":{"a":"` + long, int64(7), Unknown},
		{`{"jsonrpc":"2.0","id":123`, nil, Unknown},         // the number may go on
		{`{"jsonrpc":"2.0","id":123,`, int64(123), Unknown}, // it does not
		{`{"jsonrpc":"2.0","id":"12`, nil, Unknown},
		{`{"jsonrpc":"2.0","id":1.0,"method":"m"`, int64(1), Request},
		{`{"jsonrpc":"2.0","id":null,"method":"m","params":{`, nil, Request},
		{`{"jsonrpc":"2.0","id":true,"id":3,"method":"m"`, nil, Request}, // the first ID counts
		{`{"jsonrpc":"2.0","id":3,"id":4,"method":"m"`, int64(3), Request},
		{`{"jsonrpc":"2.0","\u0069d":5,"method":"m"`, int64(5), Request},
		{`{"jsonrpc":"2.0","id":5,"method":"m","result":1`, int64(5), Unknown},
		{`{"jsonrpc":"2.0","id":5 "method":"m"`, int64(5), Unknown}, // the syntax error stops it
		{`{"jsonrpc":"2.0", "id" : 9 ,"method":"m"}`, int64(9), Request},
		{`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, nil, Unknown},
		{`{not json`, nil, Unknown},
		{``, nil, Unknown},
	} {
		id, kind := Head([]byte(tt.head))
		want, err := jsonrpc.MakeID(tt.id)
		if i, ok := tt.id.(int64); ok {
			want, err = jsonrpc.MakeID(float64(i))
		}
		if err != nil {
			t.Fatal(err)
		}
		if id != want || kind != tt.kind {
			t.Errorf("Head(%.80s) = %v, %v; want %v, %v", tt.head, id.Raw(), kind, want.Raw(), tt.kind)
		}
	}
}

// FuzzHead checks Head against Decode: on every start of a message as
// the SDK writes it, Head finds the message's ID or none, and its kind or
// Unknown, and on the whole message its ID and, when a member shows it,
// its kind. On any line, what Head finds at
// a start of it, it finds on the whole line.
func FuzzHead(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":123,"method":"m"}`), uint16(25))
	f.Fuzz(func(t *testing.T, line []byte, cut uint16) {
		n := int(cut) % (len(line) + 1)
		id, kind := Head(line[:n])
		if id.IsValid() {
			if whole, _ := Head(line); whole != id {
				t.Fatalf("Head(%q) = %v, but on the whole line %q, %v", line[:n], id.Raw(), line, whole.Raw())
			}
		}
		if kind != Unknown {
			if _, whole := Head(line); whole != kind && whole != Unknown {
				t.Fatalf("Head(%q) = %v, but on the whole line %q, %v", line[:n], kind, line, whole)
			}
		}
		msg, err := Decode(line)
		if err != nil {
			return
		}
		wire, err := EncodeLine(msg)
		if err != nil {
			t.Fatal(err)
		}
		// The kind shows in a member the SDK writes only when it is not
		// empty: a method, parameters, a result or an error.
		var wantID jsonrpc.ID
		var wantKind Kind
		shown := false
		switch m := msg.(type) {
		case *jsonrpc.Request:
			wantID, wantKind, shown = m.ID, Request, m.Method != "" || len(m.Params) > 0
		case *jsonrpc.Response:
			wantID, wantKind, shown = m.ID, Response, len(m.Result) > 0 || m.Error != nil
		}
		if id, kind := Head(wire); id != wantID || (kind != wantKind && (shown || kind != Unknown)) {
			t.Fatalf("Head(%s) = %v, %v; Decode gives %v, %v", wire, id.Raw(), kind, wantID.Raw(), wantKind)
		}
		n = int(cut) % (len(wire) + 1)
		if id, kind := Head(wire[:n]); (id.IsValid() && id != wantID) || (kind != Unknown && kind != wantKind) {
			t.Fatalf("Head(%q) = %v, %v; the whole message is %v, %v", wire[:n], id.Raw(), kind, wantID.Raw(), wantKind)
		}
	})
}
