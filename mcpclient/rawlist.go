package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tool's schemas into maps, which forget the order in
// which the server listed the properties; a model reads that order. So the
// client reads the results of tools/list as the server wrote them too, and
// keeps each tool's schemas as sent.

// sentSchemas are a tool's schemas as the server wrote them.
type sentSchemas struct {
	input, output json.RawMessage
}

// listingTransport connects over next and keeps the schemas of the
// results of tools/list in c.sent.
type listingTransport struct {
	next mcp.Transport
	c    *Client
}

// keepingSchemas returns transport wrapped so that c sees the schemas as
// sent. The SDK's streamable HTTP connection cannot be wrapped: the SDK
// tells it of the session's state through an unexported method that a
// wrapper would hide. So c watches its HTTP exchanges instead
// (watchingTransport).
func (c *Client) keepingSchemas(transport mcp.Transport) mcp.Transport {
	if t, ok := transport.(*mcp.StreamableClientTransport); ok {
		return c.watchingTransport(t)
	}
	return listingTransport{next: transport, c: c}
}

func (t listingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.next.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &listingConn{Connection: conn, c: t.c, pending: map[jsonrpc.ID]bool{}}, nil
}

// listingConn notes the IDs of the tools/list requests written, and reads
// the results answering them. It also marks the server's requests to
// relay with the calls under way when they arrive (markArrival).
type listingConn struct {
	mcp.Connection
	c       *Client
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // tools/list requests without a response yet
}

func (l *listingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		l.mu.Lock()
		l.pending[req.ID] = true
		l.mu.Unlock()
	}
	return l.Connection.Write(ctx, msg)
}

func (l *listingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := l.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.ID.IsValid() &&
		((req.Method == "elicitation/create" && l.c.opts.Elicit != nil) || (req.Method == "sampling/createMessage" && l.c.opts.Sample != nil)) {
		// A request to relay: the calls under way now are those it may
		// belong to (callOf).
		req.Params = l.c.markArrival(req.Params)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		l.mu.Lock()
		listing := l.pending[resp.ID]
		delete(l.pending, resp.ID)
		l.mu.Unlock()
		if listing && resp.Error == nil {
			l.c.keepSent(resp.Result)
		}
	}
	return msg, err
}

// keepSent notes the schemas of a page of tools/list as sent. A result
// the SDK cannot read either is left to the SDK to refuse.
func (c *Client) keepSent(result json.RawMessage) {
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	c.sentMu.Lock()
	defer c.sentMu.Unlock()
	if c.sent == nil {
		c.sent = map[string]sentSchemas{}
	}
	for _, t := range page.Tools {
		c.sent[t.Name] = sentSchemas{input: t.InputSchema, output: t.OutputSchema}
	}
}

// sentSchema returns doc as the server sent it, when the bytes kept say
// the same as decoded, which the SDK decoded into decoded; else doc as
// marshalled from decoded. A late answer to an abandoned listing cannot
// make the client serve a schema other than the one it validates with.
func sentSchema(sent json.RawMessage, decoded any) (json.RawMessage, error) {
	if len(sent) > 0 {
		var v any
		if json.Unmarshal(sent, &v) == nil && reflect.DeepEqual(v, decoded) {
			return sent, nil
		}
	}
	return json.Marshal(decoded)
}

// kindKeywords are the keywords of a root schema by which something other
// than its "type" can say what kind of value it describes: another schema
// ($ref and its dynamic kinds, the combinators, if) or the values it
// allows (enum, const). A root with none of them and no "type" constrains
// only an object's members, if anything.
var kindKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if", "enum", "const"}

// typedObject returns the input schema doc with "type":"object" added at
// the front of its root when the root is a JSON object with no "type" and
// none of kindKeywords, such as {"$schema": "..."} alone; else doc as it
// is. MCP requires "type": "object" at the root of an input schema, and
// its clients check it, refusing a whole listing for one tool without;
// the arguments of a call are always an object, so the addition narrows
// nothing a call can do. The bytes are otherwise doc's, for the schema
// to be listed as sent (sentSchema).
func typedObject(doc json.RawMessage) json.RawMessage {
	var root map[string]json.RawMessage
	if json.Unmarshal(doc, &root) != nil || root == nil {
		return doc
	}
	if _, ok := root["type"]; ok {
		return doc
	}
	for _, k := range kindKeywords {
		if _, ok := root[k]; ok {
			return doc
		}
	}
	// doc decoded as an object: its first byte but white space is its
	// opening brace.
	open := bytes.IndexByte(doc, '{') + 1
	typed := make(json.RawMessage, 0, len(doc)+len(`"type":"object",`))
	typed = append(typed, doc[:open]...)
	typed = append(typed, `"type":"object"`...)
	if bytes.TrimLeft(doc[open:], " \t\r\n")[0] != '}' {
		typed = append(typed, ',')
	}
	return append(typed, doc[open:]...)
}
