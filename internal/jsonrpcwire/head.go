package jsonrpcwire

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HeadBytes is how much of a line a connection keeps, when it drops a
// line too long to read, for Head to find its ID in: enough for the
// members the SDK writes before the parameters or the result (version,
// ID and method) with a long ID or method.
const HeadBytes = 4 << 10

// A Kind is what the members of a message seen so far show it to be.
type Kind int

const (
	// Unknown: no member that only a request or only a response has, or
	// members of both.
	Unknown Kind = iota
	// Request: a "method" or "params" member, and neither of the others.
	Request
	// Response: a "result" or "error" member, and neither of the others.
	Response
)

// Head reads the start of a message, as much of one as head holds (a
// line cut short, or a line that is not a valid message), and returns the
// ID of the first "id" member found before the cut or the first syntax
// error, read as Decode reads it, and the kind of message the members
// before that point show. The ID is not valid when no "id" member holding a
// string or a number was found. Head reads head token by token and holds
// none of it, so its cost is linear in len(head).
func Head(head []byte) (id jsonrpc.ID, kind Kind) {
	d := jsontext.NewDecoder(bytes.NewReader(head), Options)
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return jsonrpc.ID{}, Unknown
	}
	var request, response, haveID bool
	kindOf := func() Kind {
		switch {
		case request && !response:
			return Request
		case response && !request:
			return Response
		}
		return Unknown
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			break
		}
		switch name.String() {
		case "id":
			t, err := d.ReadToken()
			if err != nil {
				return id, kindOf()
			}
			if haveID {
				continue
			}
			haveID = true
			switch t.Kind() {
			case '"':
				id, _ = jsonrpc.MakeID(t.String())
			case '0':
				// A number that ends where head does may be cut short:
				// only a byte after it shows that it is whole.
				if f, err := t.Float(); err == nil && d.InputOffset() < int64(len(head)) {
					id, _ = jsonrpc.MakeID(f)
				}
			}
			continue
		case "method", "params":
			request = true
		case "result", "error":
			response = true
		}
		if d.SkipValue() != nil {
			break
		}
	}
	return id, kindOf()
}
