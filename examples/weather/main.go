// Command weather is a complete MCP server with one tool, on stdio.
package main

import (
	"context"
	"log"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Args are the weather tool's arguments.
type Args struct {
	City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
	Days int    `json:"days,omitempty" jsonschema:"days ahead" tool:"minimum=1,maximum=7,default=1"`
}

func main() {
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a Args) (string, error) { return "sunny in " + a.City, nil })
	srv, err := mcpserver.NewTools(nil, weather)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(srv.Run(context.Background(), &mcp.StdioTransport{}))
}
