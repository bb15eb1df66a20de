package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A handler that asks its user which account pays: over MCP the client
// shows a form, and in a plain call (as inside agent.Run) the question
// becomes a tool.Ask interrupt, answered on resuming.
func ExampleElicit() {
	type Payer struct {
		Account string `json:"account" jsonschema:"the account that pays" tool:"enum=main|savings"`
	}
	pay := tool.New("pay", "Pay the bill.", func(ctx context.Context, _ struct{}) (string, error) {
		p, err := mcpserver.Elicit[Payer](ctx, "Which account should pay?")
		if errors.Is(err, mcpserver.ErrDeclined) {
			return "not paid", nil
		}
		if err != nil {
			return "", err // ErrUnsupported, or the interrupt that waits for the answer
		}
		return "paid from " + p.Account, nil
	})
	srv, err := mcpserver.NewTools(nil, pay)
	if err != nil {
		log.Fatal(err)
	}

	// Over MCP, with a client that fills in forms.
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	go srv.Run(ctx, serverSide)
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("the user is asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"account": "savings"}}, nil
		},
	})
	session, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	// In a plain call, the question pauses the call; the answer resumes it.
	call := tool.Call{ID: "call-1", Name: "pay", Args: []byte(`{}`)}
	r := tool.Run(ctx, pay, call)
	if ierr, ok := errors.AsType[*tool.InterruptError](r.Err); ok {
		fmt.Println("the run pauses:", ierr.Question)
	}
	r = tool.Run(tool.WithAnswers(ctx, "call-1", []string{"main"}), pay, call)
	fmt.Println(r.Content)
	// Output:
	// the user is asked: Which account should pay?
	// paid from savings
	// the run pauses: Which account should pay?
	// paid from main
}

// A tool that returns a chart: the MCP client receives text and an image,
// and a model that reads text only gets a note of the image.
func Example_parts() {
	png := []byte("\x89PNG...")
	chart := tool.New("chart", "Draw the chart.", func(ctx context.Context, _ struct{}) ([]tool.Part, error) {
		return []tool.Part{tool.Text("Sales rose in May."), tool.Image("image/png", png)}, nil
	})
	res := tool.Run(context.Background(), chart, tool.Call{Name: "chart", Args: []byte(`{}`)})
	fmt.Println(res.Content)
	fmt.Println(len(res.Parts), "parts, the second", res.Parts[1].Kind)
	// Output:
	// Sales rose in May.
	// [image image/png, 7 bytes]
	// 2 parts, the second image
}
