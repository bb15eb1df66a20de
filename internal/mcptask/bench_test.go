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

// BenchmarkLiftRequest measures what lifting costs every request a server
// reads over HTTP: a 2026-07-28 call, one whose arguments hold the bytes
// "task, a tasks/get, and a SEP-1686 call, whose task parameter is moved.
func BenchmarkLiftRequest(b *testing.B) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	for _, bc := range []struct {
		name string
		msg  []byte
	}{
		{"call-2026", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from caller 7"},` + meta + `}}`)},
		{"call-2026-task-text", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"task 17 of caller 7"},` + meta + `}}`)},
		{"get-2026", []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"ht1.ZXhhbXBsZSBzZWFsZWQgdGFzayBoYW5kbGUgb2YgNjAgYnl0ZXMgb3Igc28","_meta":{}}}`)},
		{"call-sep1686", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"task 17 of caller 7"},"task":{"ttl":60000}}}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.msg)))
			for b.Loop() {
				LiftRequest(bc.msg)
			}
		})
	}
}
