// Package jsonrpcwire decodes JSON-RPC messages as the MCP SDK's
// jsonrpc.DecodeMessage does, without the 32 KiB buffer the SDK's decoder
// allocates for every message (two, with the method's) — the larger part of
// what a small call costs a stdio connection. Its Inbox and EncodeLine are
// the rest that the stdio connections of mcpserver and mcpclient share.
package jsonrpcwire

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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

// options read a message as the SDK's decoder does: member names match
// exactly, the last of two of a name counts, and invalid UTF-8 in a string
// is taken as the replacement character.
var options = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

var errDepth = fmt.Errorf("json: exceeded maximum nesting depth of %d", MaxDepth)

// Decode decodes data, one JSON value, into a *jsonrpc.Request or a
// *jsonrpc.Response, or returns why it is not a JSON-RPC message. It reads
// every message as jsonrpc.DecodeMessage does (FuzzDecode checks it); the
// caller checks first that data is one JSON value with nothing after it.
func Decode(data []byte) (jsonrpc.Message, error) {
	if jsondepth.Deepest(data, MaxDepth) > MaxDepth {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", errDepth)
	}
	var m message
	if err := jsonv2.Unmarshal(data, &m, options); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if m.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", m.Version, "2.0")
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return nil, err
	}
	if m.Method != nil {
		var method string
		if err := jsonv2.Unmarshal(m.Method, &method, options); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: raw(m.Params)}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("JSON RPC invalid request: a response without an ID")
	}
	resp := &jsonrpc.Response{ID: id, Result: raw(m.Result)}
	if e := m.Error; e != nil {
		resp.Error = &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: raw(e.Data)}
	}
	return resp, nil
}

// raw returns v as a json.RawMessage, nil when v is nil.
func raw(v jsontext.Value) json.RawMessage {
	if v == nil {
		return nil
	}
	return json.RawMessage(v)
}
