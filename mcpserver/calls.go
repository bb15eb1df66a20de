package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A callTransport connects through its transport and keeps account of the
// calls on the connection (see callConn).
type callTransport struct{ mcp.Transport }

func (t callTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &callConn{Connection: conn, pending: map[jsonrpc.ID]bool{}, closed: make(chan struct{})}, nil
}

// A callConn keeps account of the calls a client made on a connection, so
// that a call the client cancelled gets no response (the protocol asks the
// receiver of notifications/cancelled not to answer the request), and so
// that at the end of the input the calls already read are answered before
// the connection reports it: the SDK would otherwise cancel them.
type callConn struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not answered; true once cancelled
	drained chan struct{}       // closed when no call is left unanswered, while Read waits for it

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *callConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.waitAnswered(ctx)
		return nil, err
	}
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.IsCall():
		if req.Method == "tools/call" {
			req.Params = mcptask.LiftParams(req.Params) // see taskCalls
		}
		c.mu.Lock()
		c.pending[req.ID] = false
		c.mu.Unlock()
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
				c.mu.Lock()
				if _, ok := c.pending[id]; ok {
					c.pending[id] = true
				}
				c.mu.Unlock()
			}
		}
	}
	return msg, nil
}

// waitAnswered waits until every call read has been answered or
// cancelled, the connection is closed, or ctx ends.
func (c *callConn) waitAnswered(ctx context.Context) {
	c.mu.Lock()
	if c.unanswered() == 0 {
		c.mu.Unlock()
		return
	}
	drained := make(chan struct{})
	c.drained = drained
	c.mu.Unlock()
	select {
	case <-drained:
	case <-c.closed:
	case <-ctx.Done():
	}
}

// unanswered returns how many calls wait for an answer; c.mu is held.
func (c *callConn) unanswered() int {
	n := 0
	for _, cancelled := range c.pending {
		if !cancelled {
			n++
		}
	}
	return n
}

func (c *callConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cancelled, found := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		if c.drained != nil && c.unanswered() == 0 {
			close(c.drained)
			c.drained = nil
		}
		c.mu.Unlock()
		if found && cancelled {
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *callConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
