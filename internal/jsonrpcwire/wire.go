// Package jsonrpcwire decodes JSON-RPC messages as the MCP SDK's
// jsonrpc.DecodeMessage does, without the 32 KiB buffer the SDK's decoder
// allocates for every message (two, with the method's) — the larger part of
// what a small call costs a stdio connection. Its Inbox and EncodeLine are
// the rest that the stdio connections of mcpserver and mcpclient share.
package jsonrpcwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/hands-go/hands/internal/jsondepth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxDepth is how deeply a message may nest, as in the SDK's decoder.
const MaxDepth = 1000

// A message is any JSON-RPC message as it is sent: a request, a
// notification or a response.
type message struct {
	Version string         `json:"jsonrpc"`
	ID      any            `json:"id"`
	Method  jsontext.Value `json:"method"` // nil when the key is absent: a response
	Params  jsontext.Value `json:"params"`
	Result  jsontext.Value `json:"result"`
	Error   *struct {
		Code    int64          `json:"code"`
		Message string         `json:"message"`
		Data    jsontext.Value `json:"data"`
	} `json:"error"`
}

// Options read a message as the SDK's decoder does: member names match
// exactly, the last of two of a name counts, and invalid UTF-8 in a string
// is taken as the replacement character. A connection's stream decoder
// takes them too, so that it passes on what Decode would read.
var Options = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

var errDepth = fmt.Errorf("json: exceeded maximum nesting depth of %d", MaxDepth)

// Decode decodes data, one JSON value, into a *jsonrpc.Request or a
// *jsonrpc.Response, or returns why it is not a JSON-RPC message. It reads
// every message as jsonrpc.DecodeMessage does (FuzzDecode checks it), and
// refuses data that is not one JSON value, which DecodeMessage does not
// always do: it reads the first value and ignores what follows.
//
// The messages of every call — a request with a method, an ID and
// parameters, a response with a result — are read token by token
// (scan); any other shape, an error response among them, goes through
// json.Unmarshal, which says what is wrong with it. On a message a
// connection reads after waiting, when little of the decoder is in the
// processor's caches, the tokens take half the time of the Unmarshal.
func Decode(data []byte) (jsonrpc.Message, error) {
	if jsondepth.Deepest(data, MaxDepth) > MaxDepth {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", errDepth)
	}
	m, ok := scan(data)
	if !ok {
		return unmarshal(data)
	}
	return m.build()
}

// unmarshalOptions are Options with encoding/json's way of reading a
// member a second time into what the first left, the SDK decoder's: a null
// leaves a string or a number as it was, a value of another kind replaces
// the one an ID holds, and an object fills in the error object the first
// began. json.Unmarshal's own way differs on all but the last (a null sets
// a string to "", a number cannot go into the bool an ID holds).
var unmarshalOptions = jsonv2.JoinOptions(Options, jsonv1.MergeWithLegacySemantics(true))

// unmarshal decodes with json.Unmarshal a message that scan does not read.
func unmarshal(data []byte) (jsonrpc.Message, error) {
	var w message
	if err := jsonv2.Unmarshal(data, &w, unmarshalOptions); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	m, err := w.decoded()
	if err != nil {
		return nil, err
	}
	return m.build()
}

// A decoded is a message's members, read and checked.
type decoded struct {
	version   string
	id        any
	method    string
	hasMethod bool
	params    json.RawMessage
	result    json.RawMessage
	err       *jsonrpc.Error
}

// decoded returns the members of w.
func (w *message) decoded() (decoded, error) {
	m := decoded{version: w.Version, id: w.ID, params: raw(w.Params), result: raw(w.Result)}
	if w.Method != nil {
		if err := jsonv2.Unmarshal(w.Method, &m.method, Options); err != nil {
			return decoded{}, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		m.hasMethod = true
	}
	if e := w.Error; e != nil {
		m.err = &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: raw(e.Data)}
	}
	return m, nil
}

// build returns the request or response that m is.
func (m *decoded) build() (jsonrpc.Message, error) {
	if m.version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", m.version, "2.0")
	}
	id, err := jsonrpc.MakeID(m.id)
	if err != nil {
		return nil, err
	}
	if m.hasMethod {
		return &jsonrpc.Request{ID: id, Method: m.method, Params: m.params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("JSON RPC invalid request: a response without an ID")
	}
	resp := &jsonrpc.Response{ID: id, Result: m.result}
	if m.err != nil {
		resp.Error = m.err // not a nil *jsonrpc.Error in the interface
	}
	return resp, nil
}

// A scanner is a token decoder over a message's bytes, kept between
// messages.
type scanner struct {
	dec jsontext.Decoder
	in  bytes.Buffer
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

// scan reads data token by token when it is an object whose members are
// those of a call's request or response, of the kinds those take, and
// reports false for anything else, well formed or not.
func scan(data []byte) (m decoded, ok bool) {
	s := scanners.Get().(*scanner)
	defer func() {
		// A pooled scanner holds no message: its input is emptied (Reset
		// would keep data) and its decoder left reading that.
		s.in = bytes.Buffer{}
		s.dec.Reset(&s.in)
		scanners.Put(s)
	}()
	s.in = *bytes.NewBuffer(data)
	s.dec.Reset(&s.in, Options)
	d := &s.dec
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return decoded{}, false
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return decoded{}, false
		}
		member := name.String() // name is valid until the next read
		switch member {
		case "jsonrpc":
			t, err := d.ReadToken()
			if err != nil || t.Kind() != '"' {
				return decoded{}, false
			}
			m.version = t.String()
		case "id":
			t, err := d.ReadToken()
			if err != nil {
				return decoded{}, false
			}
			switch t.Kind() {
			case '"':
				m.id = t.String()
			case '0':
				f, err := t.Float()
				if err != nil {
					return decoded{}, false
				}
				m.id = f
			case 'n':
				m.id = nil
			default:
				return decoded{}, false
			}
		case "method":
			t, err := d.ReadToken()
			if err != nil || t.Kind() != '"' {
				return decoded{}, false
			}
			m.method, m.hasMethod = t.String(), true
		case "params", "result":
			v, err := d.ReadValue()
			if err != nil {
				return decoded{}, false
			}
			if member == "params" {
				m.params = bytes.Clone(v)
			} else {
				m.result = bytes.Clone(v)
			}
		case "error":
			return decoded{}, false // rare: Unmarshal reads it
		default:
			if d.SkipValue() != nil {
				return decoded{}, false
			}
		}
	}
	if t, err := d.ReadToken(); err != nil || t.Kind() != '}' {
		return decoded{}, false
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return decoded{}, false
	}
	return m, true
}

// raw returns v as a json.RawMessage, nil when v is nil.
func raw(v jsontext.Value) json.RawMessage {
	if v == nil {
		return nil
	}
	return json.RawMessage(v)
}
