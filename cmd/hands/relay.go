package main

import (
	"context"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayElicit passes an upstream's elicitation request, form or URL mode,
// to the client whose call caused it, and that client's answer back. It
// refuses with mcpclient.ErrUnattributed when the request names no call
// of a client of serve (see mcpclient.Options.Elicit): with several
// clients calling, any guess could show one user's question to another.
// It refuses with mcpserver.ErrUnsupported when that client did not
// declare the capability.
func relayElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if _, ok := mcpserver.RequestFrom(ctx); !ok {
		return nil, mcpclient.ErrUnattributed
	}
	return mcpserver.ElicitRequest(ctx, req.Params)
}

// relaySample passes an upstream's sampling request on as relayElicit
// does.
func relaySample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if _, ok := mcpserver.RequestFrom(ctx); !ok {
		return nil, mcpclient.ErrUnattributed
	}
	return mcpserver.Sample(ctx, req.Params)
}
