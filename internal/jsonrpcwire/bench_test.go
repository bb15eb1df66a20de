package jsonrpcwire

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BenchmarkDecode decodes a tools/call line as the SDK's client sends
// it, with Decode and with the SDK's jsonrpc.DecodeMessage.
func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"v0.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo_0000","arguments":{"text":"hi"}}}`)
	for _, d := range []struct {
		name   string
		decode func([]byte) (jsonrpc.Message, error)
	}{{"hands", Decode}, {"sdk", jsonrpc.DecodeMessage}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.decode(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
