package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamMessagesReadAsHands calls an upstream tool with arguments its
// schema refuses: hands refuses them before they are sent, with the issues
// a typed tool of the same schema would give, word for word.
func TestUpstreamMessagesReadAsHands(t *testing.T) {
	type greet struct {
		Name string `json:"name" tool:"minLength=2"`
		Age  int    `json:"age" tool:"minimum=0"`
	}
	typed := tool.New("greet", "Greet someone.", func(context.Context, greet) (string, error) { return "hi", nil })
	doc, err := json.Marshal(typed.Spec().InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	up := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	called := false
	up.AddTool(&mcp.Tool{Name: "greet", InputSchema: json.RawMessage(doc)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			called = true
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := up.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpclient.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	args := json.RawMessage(`{"name":"","age":-1,"nmae":"x"}`)
	want := tool.Run(t.Context(), typed, tool.Call{Name: "greet", Args: args})
	got := tool.Run(t.Context(), c.Tools()[0], tool.Call{Name: "greet", Args: args})
	wantErr, ok1 := errors.AsType[*tool.ValidationError](want.Err)
	gotErr, ok2 := errors.AsType[*tool.ValidationError](got.Err)
	if !ok1 || !ok2 {
		t.Fatalf("errors: typed %v, upstream %v; want two *tool.ValidationErrors", want.Err, got.Err)
	}
	if called {
		t.Error("the upstream was called with arguments its schema refuses")
	}
	// The same issues; the order may differ (dynamic lists them by path).
	text := func(issues []schema.Issue) []string {
		var list []string
		for _, is := range issues {
			list = append(list, is.Path+" "+is.Keyword+": "+is.Message)
		}
		slices.Sort(list)
		return list
	}
	if g, w := text(gotErr.Issues), text(wantErr.Issues); !slices.Equal(g, w) {
		t.Errorf("upstream issues:\n%q\nwant the typed tool's:\n%q", g, w)
	}
}
