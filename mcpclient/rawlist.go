package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/hands-go/hands/dynamic"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tool's schemas into maps, which forget the order in
// which the server listed the properties; a model reads that order. So the
// client reads the results of tools/list as the server wrote them too, and
// keeps each tool's schemas as sent; a tool that changed has them decoded
// once, from those bytes (sentSchema).

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

// sentSchema returns the schema the SDK decoded into decoded, parsed
// from the bytes the server sent (sent) when they are of it, and else
// from decoded encoded again: a late answer to an abandoned listing
// cannot make the client serve, or validate with, a schema other than
// the SDK's. The bytes are read once, into the form the client validates
// with, serves and lists (dynamic.Document), and compared with decoded
// there. Bytes beyond dynamic's bounds are refused as they are.
func sentSchema(sent json.RawMessage, decoded any) (*dynamic.Document, error) {
	if len(sent) > 0 {
		d, err := dynamic.Parse(sent)
		if _, ok := errors.AsType[*dynamic.BoundsError](err); ok {
			return nil, err
		}
		if err == nil && d.Equal(decoded) {
			return d, nil
		}
	}
	data, err := json.Marshal(decoded)
	if err != nil {
		return nil, err
	}
	return dynamic.Parse(data)
}
