package jsonrpcwire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzEncodeLine checks that EncodeLine writes every request and response
// as jsonrpc.EncodeMessage does: the same bytes when the value is compact,
// the same bytes once compacted otherwise, and an error for both or
// neither; but a response without an ID with "id": null.
func FuzzEncodeLine(f *testing.F) {
	f.Add(int64(7), "", "tools/call", []byte(`{"name":"echo","arguments":{"text":"hi"}}`), false, false)
	f.Add(int64(0), "abc", "", []byte(`{"content":[{"type":"text","text":"a \"b\" <c>\u2028"}]}`), true, false)
	f.Add(int64(-1), "a\"b", "é", []byte("{\n  \"a\": 1\n}"), false, false)
	f.Add(int64(1), "", "m", []byte(`{"a": [1, 2]}`), true, false)
	f.Add(int64(1), "", "notifications/cancelled", []byte(`null`), false, true)
	f.Add(int64(1), "", "m", []byte(`{"a":1`), false, false)
	f.Add(int64(1), "", "m", []byte("\"\xff\""), true, false)
	f.Add(int64(1), "x\u2028", "m\n", []byte(``), false, true)
	f.Add(int64(-37), "0", "0", []byte("1E700 "), true, false)
	f.Add(int64(3), `a"b`, `m"`, []byte(`{}`), false, false)
	f.Add(int64(3), `a\b`, `m\`, []byte(`{}`), false, false)
	f.Add(int64(2), "<&>", "a<b>&c", []byte("{\"s\":\"\u2028\u2029</script>\"}"), false, false)
	f.Add(int64(2), "", "m", []byte(" \t[1,\t\"\\u2028\"] "), false, false)
	f.Fuzz(func(t *testing.T, num int64, str, method string, value []byte, response, noID bool) {
		id, _ := jsonrpc.MakeID(float64(num))
		switch {
		case noID:
			id = jsonrpc.ID{}
		case str != "":
			id, _ = jsonrpc.MakeID(str)
		}
		var msg jsonrpc.Message = &jsonrpc.Request{ID: id, Method: method, Params: value}
		if response {
			msg = &jsonrpc.Response{ID: id, Result: value}
		}
		got, err := EncodeLine(msg)
		want, wantErr := jsonrpc.EncodeMessage(msg)
		if response && noID && wantErr == nil {
			// The SDK leaves the member out; JSON-RPC asks for null.
			want = append([]byte(`{"jsonrpc":"2.0","id":null`), bytes.TrimPrefix(want, []byte(`{"jsonrpc":"2.0"`))...)
		}
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("EncodeLine(%#v) error = %v, the SDK's = %v", msg, err, wantErr)
		}
		if err != nil {
			return
		}
		if !bytes.HasSuffix(got, []byte("\n")) || bytes.ContainsAny(got[:len(got)-1], "\r\n") {
			t.Fatalf("EncodeLine(%#v) = %q, not one line", msg, got)
		}
		got = got[:len(got)-1]
		var compact bytes.Buffer
		if json.Compact(&compact, value) == nil && bytes.Equal(compact.Bytes(), value) {
			if !bytes.Equal(got, want) {
				t.Fatalf("EncodeLine(%#v) = %s, the SDK's = %s", msg, got, want)
			}
			return
		}
		compact.Reset()
		if err := json.Compact(&compact, got); err != nil {
			t.Fatalf("EncodeLine(%#v) = %s: %v", msg, got, err)
		}
		if !bytes.Equal(compact.Bytes(), want) {
			t.Fatalf("EncodeLine(%#v) = %s, compacted %s; the SDK's = %s", msg, got, compact.Bytes(), want)
		}
	})
}

// BenchmarkEncodeLine encodes a tools/call request and its result, with
// EncodeLine and with the SDK's jsonrpc.EncodeMessage.
func BenchmarkEncodeLine(b *testing.B) {
	id, _ := jsonrpc.MakeID(float64(7))
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"hands","version":"devel"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"progressToken":"hands-1"},"name":"echo_0000","arguments":{"text":"hi"}}`)},
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`)},
	}
	for _, e := range []struct {
		name   string
		encode func(jsonrpc.Message) ([]byte, error)
	}{{"hands", EncodeLine}, {"sdk", jsonrpc.EncodeMessage}} {
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range msgs {
					if _, err := e.encode(m); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestEncodeLineNullID checks that an error response without an ID is
// written with "id": null, which JSON-RPC requires of an answer to a
// request whose ID could not be read.
func TestEncodeLineNullID(t *testing.T) {
	got, err := EncodeLine(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error"}})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n"
	if string(got) != want {
		t.Errorf("EncodeLine = %s, want %s", got, want)
	}
}
