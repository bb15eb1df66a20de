package mcpclient_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// booking is the input of a hands tool whose Validate method refuses what
// its schema cannot express, so that only the server can tell.
type booking struct {
	From int `json:"from" tool:"minimum=0"`
	To   int `json:"to" tool:"minimum=0"`
}

func (b *booking) Validate() error {
	if b.To < b.From {
		return errors.New("to is before from")
	}
	return nil
}

// TestServerIssues: when a hands server refuses the arguments, the call's
// error is a *ToolError with the server's issues that matches
// tool.ErrInvalidArguments, and the model reads them as it would a local
// tool's; any other error result matches no sentinel.
func TestServerIssues(t *testing.T) {
	ran := 0
	book := tool.New("book", "Book a room.", func(_ context.Context, b booking) (string, error) {
		ran++
		return fmt.Sprintf("booked %d to %d", b.From, b.To), nil
	})
	fail := tool.New("fail", "Fail.", func(context.Context, booking) (string, error) {
		return "", errors.New("the disk is full")
	})
	server, err := mcpserver.NewTools(nil, book, fail)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, err := mcpclient.Connect(t.Context(), ct, &mcpclient.Options{Prefix: "hotel_"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })

	res := call(t.Context(), find(t, c, "hotel_book"), "hotel_book", `{"from":3,"to":1}`)
	terr, ok := errors.AsType[*mcpclient.ToolError](res.Err)
	if !res.IsError || !ok {
		t.Fatalf("book = %+v, want a *ToolError", res)
	}
	if !errors.Is(res.Err, tool.ErrInvalidArguments) {
		t.Errorf("the refusal %v does not match tool.ErrInvalidArguments", res.Err)
	}
	if v1, v2 := terr.Unwrap(), terr.Unwrap(); v1 == nil || v1 != v2 {
		t.Errorf("Unwrap = %p, then %p: want the one *tool.ValidationError the error holds", v1, v2)
	}
	if want := []tool.Issue{{Keyword: schema.KeywordValidate, Message: "to is before from"}}; !reflect.DeepEqual(terr.Issues, want) {
		t.Errorf("issues = %+v, want %+v", terr.Issues, want)
	}
	if want := "The arguments for hotel_book are invalid:\n- (root): to is before from\nFix these and call hotel_book again."; res.Content != want {
		t.Errorf("the model reads %q, want the server's issue under the name it calls the tool by: %q", res.Content, want)
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times with refused arguments", ran)
	}

	res = call(t.Context(), find(t, c, "hotel_fail"), "hotel_fail", `{"from":1,"to":3}`)
	if terr, ok := errors.AsType[*mcpclient.ToolError](res.Err); !ok || terr.Issues != nil || errors.Is(res.Err, tool.ErrInvalidArguments) || !errors.Is(res.Err, mcpclient.ErrToolFailed) {
		t.Errorf("fail = %+v, want a *ToolError without issues that matches ErrToolFailed and no tool sentinel", res)
	}
}

// TestServerIssuesMalformed: issues in _meta that are not issues, and more
// than a client keeps, cannot make a failure read as invalid arguments or
// hold an unbounded list.
func TestServerIssuesMalformed(t *testing.T) {
	many := make([]map[string]any, schema.DefaultMaxIssues+50)
	for i := range many {
		many[i] = map[string]any{"path": fmt.Sprintf("/%d", i), "keyword": "type", "message": "not a string"}
	}
	for _, tt := range []struct {
		name   string
		meta   any
		issues int // how many the error keeps; 0 for none
	}{
		{name: "not an array", meta: "bad"},
		{name: "path not a pointer", meta: []any{map[string]any{"path": "name", "keyword": "type", "message": "m"}}},
		{name: "no keyword", meta: []any{map[string]any{"path": "/name", "message": "m"}}},
		{name: "no message", meta: []any{map[string]any{"path": "/name", "keyword": "type"}}},
		{name: "empty", meta: []any{}},
		{name: "too many", meta: many, issues: schema.DefaultMaxIssues},
		{name: "too long", meta: []any{map[string]any{"path": "/" + strings.Repeat("p", 10000), "keyword": "type", "message": strings.Repeat("m", 10000)}}, issues: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "odd", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "refuse", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{
						IsError: true,
						Content: []mcp.Content{&mcp.TextContent{Text: "refused"}},
						Meta:    mcp.Meta{mcpserver.IssuesMeta: tt.meta},
					}, nil
				})
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			c, err := mcpclient.Connect(t.Context(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			res := call(t.Context(), find(t, c, "refuse"), "refuse", `{}`)
			terr, ok := errors.AsType[*mcpclient.ToolError](res.Err)
			if !ok || (tt.issues == 0 && res.Content != "refused") {
				t.Fatalf("refuse = %+v, want a *ToolError with the server's text", res)
			}
			if len(terr.Issues) != tt.issues || errors.Is(res.Err, tool.ErrInvalidArguments) != (tt.issues > 0) {
				t.Errorf("%d issues, matches ErrInvalidArguments %v; want %d", len(terr.Issues), errors.Is(res.Err, tool.ErrInvalidArguments), tt.issues)
			}
			for _, is := range terr.Issues {
				if len(is.Path) > 300 || len(is.Message) > 300 {
					t.Errorf("an issue of %d and %d bytes, want at most 300 each", len(is.Path), len(is.Message))
				}
			}
			if n := len(res.Content); n > 64<<10 {
				t.Errorf("the model reads %d bytes", n)
			}
		})
	}
}
