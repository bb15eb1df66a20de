package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chainSchema returns an object schema that nests depth object schemas,
// each the additionalProperties of the one above (one JSON level a
// schema), each with width string properties of its own and examples
// examples; tag is in the root's description, to tell one version of the
// schema from another.
func chainSchema(depth, width, examples int, tag string) json.RawMessage {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, `{"type":"object","description":"Level %d%s.","properties":{`, i, tag)
		for j := range width {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"string","description":"Property %d."}`, j, j)
		}
		b.WriteString(`},"required":["p0"],"examples":[`)
		for j := range examples {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"p0":"%d"}`, j)
		}
		b.WriteString(`],"additionalProperties":`)
		tag = ""
	}
	b.WriteString(`{"type":"string"}`)
	b.WriteString(strings.Repeat("}", depth))
	return json.RawMessage(b.String())
}

// schemaTool returns a tool "t" with the input and output schemas given;
// a nil output schema is none.
func schemaTool(input, output json.RawMessage) *mcp.Tool {
	t := &mcp.Tool{Name: "t", Description: "A tool.", InputSchema: input}
	if output != nil {
		t.OutputSchema = output
	}
	return t
}

// TestListedSchemaCostLinear checks that what a client allocates to take
// in a changed tool of its upstream grows in proportion to the tool's
// schemas, in their depth and in their width, for the input schema and
// for the output schema: each is decoded once, and no level is read again
// for each level above it. The server changes the tool, and the client
// lists it again on the server's notification; allocations, not time,
// are counted (cost.LinearAllocs), so the load of the machine does not
// change the outcome.
func TestListedSchemaCostLinear(t *testing.T) {
	for _, tt := range []struct {
		name         string
		small, large int
		schema       func(n int, tag string) json.RawMessage
	}{
		{"depth", 4, 60, func(n int, tag string) json.RawMessage { return chainSchema(n, 2, 100, tag) }},
		{"width", 60, 600, func(n int, tag string) json.RawMessage { return chainSchema(1, n, 0, tag) }},
	} {
		for _, which := range []string{"input", "output"} {
			t.Run(tt.name+"/"+which, func(t *testing.T) {
				tools := func(n int, tag string) *mcp.Tool {
					if which == "input" {
						return schemaTool(tt.schema(n, tag), nil)
					}
					return schemaTool(json.RawMessage(`{"type":"object"}`), tt.schema(n, tag))
				}
				changes := make(chan mcpclient.Change, 1)
				s := hostileServer(tools(1, ""))
				opts := &mcpclient.Options{MaxToolBytes: 1 << 20, OnChange: func(_ context.Context, ch mcpclient.Change) { changes <- ch }}
				if _, err := connectTo(t, s, opts); err != nil {
					t.Fatal(err)
				}
				versions := map[int][2]*mcp.Tool{}
				for _, n := range []int{tt.small, tt.large} {
					versions[n] = [2]*mcp.Tool{tools(n, " A"), tools(n, " B")}
				}
				flip := 0
				cost.LinearAllocs(t, fmt.Sprintf("taking in a changed tool of %s schema %s %d", which, tt.name, tt.large), tt.small, tt.large, func(n int) {
					flip ^= 1
					s.AddTool(versions[n][flip], nil)
					if ch := <-changes; len(ch.Updated) != 1 {
						t.Fatalf("the change is %+v, want t updated", ch)
					}
				})
			})
		}
	}
}

// BenchmarkListedSchema connects a client to a server of one tool whose
// input and output schemas each nest depth object schemas, each with
// width properties of its own: the cost of taking in an upstream's tool,
// from its listing to the tool served. At depth 128 the schemas nest past
// dynamic.MaxSchemaDepth and the tool is refused.
func BenchmarkListedSchema(b *testing.B) {
	for _, shape := range []struct{ depth, width int }{
		{8, 10}, {32, 10}, {62, 10}, {128, 10},
		{1, 10}, {1, 100}, {1, 1000},
	} {
		schema := chainSchema(shape.depth, shape.width, 0, "")
		s := hostileServer(schemaTool(schema, schema))
		opts := &mcpclient.Options{MaxToolBytes: 1 << 20}
		b.Run(fmt.Sprintf("depth=%d/width=%d", shape.depth, shape.width), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(2 * len(schema)))
			for b.Loop() {
				c, err := connectTo(b, s, opts)
				if err != nil {
					b.Fatal(err)
				}
				if want := shape.depth < 128; (len(c.Tools()) == 1) != want {
					b.Fatalf("Tools() = %v, Refused() = %v", c.Tools(), c.Refused())
				}
				c.Close()
			}
		})
	}
}
