package mcpclient_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkConnectDeep connects to a server with one tool whose schema
// nests 490 schemas (981 JSON levels) deep: the cost of a hostile schema before any call.
func BenchmarkConnectDeep(b *testing.B) {
	s := hostileServer(&mcp.Tool{Name: "deep", Description: "Deep.", InputSchema: deepSchema(490)})
	b.ReportAllocs()
	for b.Loop() {
		c, err := connectTo(b, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkConnectMany connects to a server with 100 tools of schemas 100
// levels deep and 36 KB each: 3.6 MB of definitions.
func BenchmarkConnectMany(b *testing.B) {
	var tools []*mcp.Tool
	for i := range 100 {
		tools = append(tools, &mcp.Tool{Name: "t" + strconv.Itoa(i), Description: strings.Repeat("d", 30000), InputSchema: deepSchema(100)})
	}
	s := hostileServer(tools...)
	b.ReportAllocs()
	for b.Loop() {
		c, err := connectTo(b, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkBigResultHTTP calls a tool whose result is 96 MiB of text,
// answered as one JSON body over streamable HTTP.
func BenchmarkBigResultHTTP(b *testing.B) {
	ts, _ := bigResultServer(b, 96<<20)
	b.ReportAllocs()
	for b.Loop() {
		c, err := mcpclient.Connect(b.Context(), mcpclient.HTTP(ts.URL, nil), nil)
		if err != nil {
			b.Fatal(err)
		}
		call(b.Context(), find(b, c, "big"), "big", `{}`)
		c.Close()
	}
}
