package mcptask

import (
	"fmt"
	"strings"
	"testing"
)

// toolsPage is a tools/list response of n tools, each with a schema of a
// few properties; with execution, every other tool declares one.
func toolsPage(n int, execution bool) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":3,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"tool%d","description":"Does thing %d to the input.","inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer","minimum":0},"m":{"type":"array","items":{"type":"string"}}},"required":["z"]}`, i, i)
		if execution && i%2 == 0 {
			b.WriteString(`,"execution":{"taskSupport":"optional"}`)
		}
		b.WriteString("}")
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// BenchmarkLiftResponse measures what lifting costs every message a client
// reads: a message without a task is only scanned.
func BenchmarkLiftResponse(b *testing.B) {
	for _, bc := range []struct {
		name string
		msg  []byte
	}{
		{"result", []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 400) + `"}]}}`)},
		{"tools100", toolsPage(100, false)},
		{"tools100-execution", toolsPage(100, true)},
		{"created", []byte(`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000}}}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.msg)))
			for b.Loop() {
				LiftResponse(bc.msg)
			}
		})
	}
}
