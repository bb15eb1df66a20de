package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/tool"
)

// benchWords make the descriptions of the benchmark's tools.
var benchWords = []string{"calendar", "event", "invoice", "customer", "ticket", "repository", "branch", "forecast",
	"email", "message", "channel", "payment", "refund", "order", "shipment", "report", "dashboard", "metric",
	"alert", "incident", "document", "folder", "spreadsheet", "contact", "meeting", "task", "project", "budget"}

// searchRegistry returns a registry of one loaded tool and n deferred
// ones, each described by three of benchWords.
func searchRegistry(b *testing.B, n int) *tool.Registry {
	b.Helper()
	handler := func(context.Context, cityArgs) (string, error) { return "", nil }
	tools := make([]tool.Interface, n)
	for i := range n {
		w := func(k int) string { return benchWords[(i/k)%len(benchWords)] }
		tools[i] = tool.New(fmt.Sprintf("tool_%d", i), fmt.Sprintf("Manage the %s %s of a %s.", w(1), w(7), w(13)), handler)
	}
	reg, err := tool.NewRegistry(
		&tool.Scope{Name: "loaded", Tools: []tool.Interface{tool.New("take_note", "Write a note.", handler)}},
		&tool.Scope{Name: "deferred", DeferLoading: true, Tools: tools},
	)
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkPortableSearch measures one search_tools call, through the
// handler Run runs calls with, over registries of 100, 1000 and 10000
// deferred tools.
func BenchmarkPortableSearch(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			reg := searchRegistry(b, n)
			h := agent.CallHandler(agenttest.NewScript(), reg)
			call := tool.Call{ID: "s1", Name: agent.SearchToolName, Args: []byte(`{"query":"refund the customer payment","limit":5}`)}
			ctx := context.Background()
			if res := tool.Drain(ctx, h, call, nil); res.IsError {
				b.Fatal(res.Content)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if res := tool.Drain(ctx, h, call, nil); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}
