package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sample asks the model of the client of the call ctx serves for a message
// (sampling/createMessage), as a handler that wants a model's help without
// holding an API key does:
//
//	res, err := mcpserver.Sample(ctx, &mcp.CreateMessageParams{
//		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise: " + text}}},
//		MaxTokens: 200,
//	})
//
// The client may show the request to a person, change it, or refuse it. An
// error matches ErrUnsupported when the client did not declare sampling or
// the call did not come over MCP; the handler can then do without.
//
// On protocol versions from 2026-07-28 the request goes back to the client
// in the call's result, and the client calls again with the answer: Sample
// returns an error that the handler returns as it is, and the handler runs
// again from the start, when Sample returns the answer. So a handler asks
// before it changes anything, as with tool.Ask (see the package
// documentation). The request's key in the result is hands' own unless
// WithInputKey names it. On earlier versions Sample waits for the answer.
//
// Protocol 2026-07-28 deprecates sampling (SEP-2577): it still works on
// every revision, for clients that declare it, but few clients do, and
// the deprecation's replacement is a server that calls a model provider's
// API itself (package provider, say).
func Sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	key, err := inputKeyFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := peerFrom(ctx, "sampling")
	if err != nil {
		return nil, err
	}
	data, err := p.ask(key, params, func() (any, error) { return p.session.CreateMessage(ctx, params) })
	if err != nil {
		return nil, err
	}
	if !p.roundTrips {
		var res *mcp.CreateMessageResult
		if err := json.Unmarshal(data, &res); err != nil {
			return nil, fmt.Errorf("mcpserver: the client's sampling answer: %w", err)
		}
		return res, nil
	}
	var res mcp.CreateMessageWithToolsResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("mcpserver: the client's sampling answer: %w", err)
	}
	if len(res.Content) != 1 {
		return nil, fmt.Errorf("mcpserver: the client's sampling answer has %d contents, want 1", len(res.Content))
	}
	return &mcp.CreateMessageResult{Meta: res.Meta, Content: res.Content[0], Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
}
