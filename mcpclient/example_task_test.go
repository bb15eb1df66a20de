package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool that runs as an MCP task only, served by mcpserver and called
// through mcpclient: the call creates the task, polls it and returns its
// result, as a plain call would.
func Example_tasks() {
	ctx := context.Background()

	type args struct {
		Scene string `json:"scene"`
	}
	render := tool.New("render", "Render a scene; it takes a while.", func(ctx context.Context, a args) (string, error) {
		time.Sleep(50 * time.Millisecond) // long work
		return "rendered " + a.Scene, nil
	}, tool.WithTaskSupport(tool.TaskRequired))
	srv, err := mcpserver.NewTools(&mcpserver.Options{Tasks: mcpserver.TaskOptions{PollInterval: 100 * time.Millisecond}}, render)
	if err != nil {
		log.Fatal(err)
	}
	clientEnd, serverEnd := mcp.NewInMemoryTransports()
	go srv.Run(ctx, serverEnd)

	studio, err := mcpclient.Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer studio.Close()
	res := tool.Run(ctx, studio.Tools()[0], tool.Call{Name: "render", Args: json.RawMessage(`{"scene":"opening"}`)})
	fmt.Println(res.Content)
	// Output: rendered opening
}
