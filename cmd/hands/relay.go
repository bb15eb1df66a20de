package main

import (
	"context"

	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relayElicit passes an upstream's elicitation request, form or URL mode,
// to the client whose call caused it, and that client's answer back. It
// refuses (mcpserver.ErrUnsupported) when that client did not declare the
// capability, or when the request cannot be tied to one call (see
// mcpclient.Options.Elicit).
func relayElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return mcpserver.ElicitRequest(ctx, req.Params)
}

// relaySample passes an upstream's sampling request on as relayElicit
// does.
func relaySample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return mcpserver.Sample(ctx, req.Params)
}
