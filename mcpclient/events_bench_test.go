package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkEventStream reads the event stream of a call, and of a page of
// tools/list, through the round tripper Connect gives a streamable HTTP
// transport (the client's stages), with no network and no SDK: what
// the client's own reading of a stream costs. The call's stream has 500
// progress notifications, an elicitation and a result of 256 KiB of text;
// the page has 100 tools of 20 properties, 50 of them with an execution
// to lift.
func BenchmarkEventStream(b *testing.B) {
	var call strings.Builder
	for i := range 500 {
		fmt.Fprintf(&call, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"hands-1\",\"progress\":%d,\"total\":500}}\n\n", i)
	}
	call.WriteString("id: 501\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\"}}}\n\n")
	fmt.Fprintf(&call, "id: 502\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", strings.Repeat("x", 256<<10))

	var props, tools []string
	for i := range 20 {
		props = append(props, fmt.Sprintf(`"p%02d":{"type":"string","description":"property %d"}`, 19-i, i))
	}
	for i := range 100 {
		execution := ""
		if i%2 == 0 {
			execution = `,"execution":{"taskSupport":"optional"}`
		}
		tools = append(tools, fmt.Sprintf(`{"name":"t%03d","description":"A tool.","inputSchema":{"type":"object","properties":{%s}}%s}`, i, strings.Join(props, ","), execution))
	}
	list := `data: {"jsonrpc":"2.0","id":4,"result":{"tools":[` + strings.Join(tools, ",") + "]}}\n\n"

	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	for _, bb := range []struct {
		name, stream, request string
		relaying              bool
	}{
		{"call, relaying", call.String(), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","_meta":{"progressToken":"hands-1"}}}`, true},
		{"call, not relaying", call.String(), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","_meta":{"progressToken":"hands-1"}}}`, false},
		{"tools/list", list, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`, false},
	} {
		b.Run(bb.name, func(b *testing.B) {
			c := &Client{secret: "s3cret"}
			if bb.relaying {
				c.opts.Elicit = elicit
			}
			upstream := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1/mcp", HTTPClient: &http.Client{Transport: streamOf(bb.stream)}, MaxEventSize: DefaultMaxMessageBytes}
			rt := c.wire().Transport(upstream).(*mcp.StreamableClientTransport).HTTPClient.Transport
			b.SetBytes(int64(len(bb.stream)))
			b.ReportAllocs()
			for b.Loop() {
				req, err := http.NewRequest(http.MethodPost, upstream.Endpoint, strings.NewReader(bb.request))
				if err != nil {
					b.Fatal(err)
				}
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
			if bb.name == "tools/list" && !json.Valid(c.sent["t000"].input) {
				b.Fatal("the schemas listed were not kept")
			}
		})
	}
}
