// Command weather is a complete MCP server with one tool, on stdio. It
// exits 0 when the client closes its input or on an interrupt.
package main

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// Args are the weather tool's arguments.
type Args struct {
	City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
	Days int    `json:"days,omitempty" jsonschema:"days ahead" tool:"minimum=1,maximum=7,default=1"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a Args) (string, error) { return "sunny in " + a.City, nil })
	srv, err := mcpserver.NewTools(nil, weather)
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Run(ctx, &mcpserver.StdioTransport{}); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
