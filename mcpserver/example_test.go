package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server with one tool, and the official SDK's client calling it over an
// in-memory transport (a real server uses &mcp.StdioTransport{} or
// HTTPHandler).
func Example() {
	type Args struct {
		City string `json:"city" jsonschema:"the city to report on" tool:"minLength=1"`
	}
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a Args) (string, error) { return "sunny in " + a.City, nil })
	srv, err := mcpserver.NewTools(nil, weather)
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	go srv.Run(ctx, serverSide)
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	session, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	for _, args := range []map[string]any{{"city": "Oslo"}, {"city": ""}} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError=%v %s\n", res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError=false sunny in Oslo
	// isError=true The arguments for weather are invalid:
	// - /city: must be at least 1 character, got 0
	// Fix these and call weather again.
}

// The playground beside the endpoint, on one mux: the page at /, which
// calls the tools through /mcp, guarded by the endpoint's options.
func ExampleServer_Playground() {
	weather := tool.New("weather", "Report the weather for a city.",
		func(ctx context.Context, a struct {
			City string `json:"city" jsonschema:"the city to report on"`
		}) (string, error) {
			return "sunny in " + a.City, nil
		})
	srv, err := mcpserver.NewTools(nil, weather)
	if err != nil {
		log.Fatal(err)
	}
	httpOpts := &mcpserver.HTTPOptions{}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(httpOpts))
	mux.Handle("/", srv.Playground(&mcpserver.PlaygroundOptions{Endpoint: "/mcp", HTTP: httpOpts}))
	ts := httptest.NewServer(mux) // a program: http.ListenAndServe("127.0.0.1:8080", mux)
	defer ts.Close()

	// What the page reads beside it: every tool, in every dialect.
	resp, err := http.Get(ts.URL + "/tools.json")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Tools []struct {
			Name    string
			Schemas map[string]json.RawMessage
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		log.Fatal(err)
	}
	fmt.Println(list.Tools[0].Name, len(list.Tools[0].Schemas), "dialects")
	// Output: weather 6 dialects
}
