// Command echoserver is an MCP server on stdio with one tool, echo_0000,
// added with the SDK's mcp.AddTool: the upstream of BenchmarkGateway.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "echoserver", Version: "v0.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo_0000", Description: "Echo a text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
