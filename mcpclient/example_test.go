package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Example() {
	ctx := context.Background()

	// A server written with the SDK, reached over an in-memory transport;
	// mcpclient.Command or mcpclient.HTTP reach real ones.
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{
		Name:        "greet",
		Description: "Greet someone.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}}}, nil
	})
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}

	greeter, err := mcpclient.Connect(ctx, clientEnd, &mcpclient.Options{Prefix: "greeter_"})
	if err != nil {
		log.Fatal(err)
	}
	defer greeter.Close()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "greeter", Tools: greeter.Tools()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reg.EnabledNames(ctx))

	ok := tool.Run(ctx, reg, tool.Call{Name: "greeter_greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	fmt.Println(ok.Content)
	// Checked here, never sent to the server:
	bad := tool.Run(ctx, reg, tool.Call{Name: "greeter_greet", Args: json.RawMessage(`{"name":""}`)})
	fmt.Println(bad.IsError)
	// Output:
	// [greeter_greet]
	// Hello, Ada!
	// true
}
