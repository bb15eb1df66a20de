package jsonrpcwire

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// EncodeLine encodes msg as jsonrpc.EncodeMessage does, followed by the
// newline that ends it on a stdio connection: the same bytes when the
// parameters or result are compact, as the SDK writes every value; the
// same message, on one line, when they hold spaces between tokens, which
// are kept.
//
// The messages of every call are written directly: the envelope's
// members in the SDK's order, and the parameters or result as they are,
// once checked to be JSON on one line. The SDK's encoder re-encodes them
// through reflection and compacts them, scanning every byte again, which
// the SDK's own encoding of them has already done. A value that holds a
// line break (so is not compact), an error response, and a method or ID
// with characters that need escaping go through jsonrpc.EncodeMessage.
//
// A response without a valid ID (the answer to a line whose ID could not
// be read) is written with "id": null, as JSON-RPC requires, where
// EncodeMessage leaves the member out.
func EncodeLine(msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && !r.ID.IsValid() {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return nil, err
		}
		return append(withNullID(data), '\n'), nil
	}
	if data, ok := appendMessage(nil, msg); ok {
		return append(data, '\n'), nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// versionMember is how jsonrpc.EncodeMessage begins every message.
const versionMember = `{"jsonrpc":"2.0"`

// withNullID returns data, a message without an ID as
// jsonrpc.EncodeMessage writes it, with "id": null after its version.
func withNullID(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte(versionMember)) {
		return data
	}
	out := make([]byte, 0, len(data)+len(`,"id":null`))
	out = append(out, versionMember...)
	out = append(out, `,"id":null`...)
	return append(out, data[len(versionMember):]...)
}

// appendMessage appends msg to dst as EncodeMessage encodes it, and
// reports false, leaving it to EncodeMessage, when msg is not the request
// or result of a call with plain names.
func appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, bool) {
	var id jsonrpc.ID
	var method string
	var value []byte
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id, method, value = m.ID, m.Method, m.Params
	case *jsonrpc.Response:
		if m.Error != nil {
			return nil, false
		}
		id, value = m.ID, m.Result
	default:
		return nil, false
	}
	if !plain(method) || !oneLine(value) {
		return nil, false
	}
	dst = slices.Grow(dst, len(`{"jsonrpc":"2.0","id":,"method":"","params":}`+"\n")+20+len(method)+len(value))
	dst = append(dst, `{"jsonrpc":"2.0"`...)
	switch v := id.Raw().(type) {
	case nil:
	case int64:
		dst = append(dst, `,"id":`...)
		dst = strconv.AppendInt(dst, v, 10)
	case string:
		if !plain(v) {
			return nil, false
		}
		dst = append(dst, `,"id":"`...)
		dst = append(dst, v...)
		dst = append(dst, '"')
	default:
		return nil, false
	}
	if method != "" {
		dst = append(dst, `,"method":"`...)
		dst = append(dst, method...)
		dst = append(dst, '"')
	}
	if len(value) > 0 {
		if _, ok := msg.(*jsonrpc.Request); ok {
			dst = append(dst, `,"params":`...)
		} else {
			dst = append(dst, `,"result":`...)
		}
		dst = append(dst, value...)
	}
	return append(dst, '}'), true
}

// plain reports whether s is written in JSON as it is, between quotes,
// by every encoder: printable ASCII, without a quote or a backslash.
func plain(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// oneLine reports whether v is empty, or one JSON value with no line
// break in it (in JSON text, a line break is only ever whitespace between
// tokens, so one is left only where the value is not compact).
func oneLine(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	return bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 && jsontext.Value(v).IsValid(Options)
}
