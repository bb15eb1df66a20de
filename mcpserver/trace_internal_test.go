package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServed measures what the trace context costs each request the
// server receives (served): reading the _meta of a call without a trace,
// and of one whose client sent traceparent.
func BenchmarkServed(b *testing.B) {
	for _, tt := range []struct {
		name string
		meta mcp.Meta
	}{
		{"untraced", mcp.Meta{"progressToken": "hands-1"}},
		{"traced", mcp.Meta{"progressToken": "hands-1", "traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "echo", Meta: tt.meta}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				served(ctx, "tools/call", req, Caller{})
			}
		})
	}
}
