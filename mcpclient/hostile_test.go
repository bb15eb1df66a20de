package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/dynamic"
	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deepSchema returns an object schema whose property "a" nests depth
// levels of object schemas.
func deepSchema(depth int) json.RawMessage {
	var b strings.Builder
	for range depth {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString(`}}`)
	}
	return json.RawMessage(b.String())
}

// hostileServer returns an SDK server with the given tools, each answering
// "ok".
func hostileServer(tools ...*mcp.Tool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	for _, t := range tools {
		s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	return s
}

// connectTo connects a client to s over an in-memory transport.
func connectTo(t testing.TB, s *mcp.Server, opts *mcpclient.Options) (*mcpclient.Client, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, err := mcpclient.Connect(context.Background(), ct, opts)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// TestDeepSchemaRefused checks that a tool whose input schema nests deeper
// than the bound is refused before it is compiled, and that a shallow one
// beside it is offered.
func TestDeepSchemaRefused(t *testing.T) {
	s := hostileServer(
		&mcp.Tool{Name: "deep", Description: "Deep.", InputSchema: deepSchema(490)},
		&mcp.Tool{Name: "shallow", Description: "Shallow.", InputSchema: deepSchema(3)},
	)
	c, err := connectTo(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c.Tools()); len(got) != 1 || got[0] != "shallow" {
		t.Errorf("Tools() = %v, want [shallow]", got)
	}
	refused := c.Refused()
	if len(refused) != 1 || !errors.Is(refused[0], dynamic.ErrSchemaTooDeep) {
		t.Errorf("Refused() = %v, want one matching dynamic.ErrSchemaTooDeep", refused)
	}
}

// TestLargeToolRefused checks that a tool whose definition is larger than
// MaxToolBytes, by its description or its schema, is refused.
func TestLargeToolRefused(t *testing.T) {
	big := strings.Repeat("word ", 20000)
	var props strings.Builder
	props.WriteString(`{"type":"object","properties":{`)
	for i := range 5000 {
		if i > 0 {
			props.WriteByte(',')
		}
		props.WriteString(`"property_` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	props.WriteString(`}}`)
	s := hostileServer(
		&mcp.Tool{Name: "wordy", Description: big, InputSchema: json.RawMessage(`{"type":"object"}`)},
		&mcp.Tool{Name: "wide", Description: "Wide.", InputSchema: json.RawMessage(props.String())},
		&mcp.Tool{Name: "fine", Description: "Fine.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	)
	c, err := connectTo(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c.Tools()); len(got) != 1 || got[0] != "fine" {
		t.Errorf("Tools() = %v, want [fine]", got)
	}
	for _, err := range c.Refused() {
		if !errors.Is(err, mcpclient.ErrToolTooLarge) {
			t.Errorf("Refused() has %v, want ErrTooLarge", err)
		}
	}
}
