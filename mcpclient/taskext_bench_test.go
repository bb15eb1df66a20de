package mcpclient_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
)

// BenchmarkTaskOptionalCall calls a tool that answers at once, hands'
// client to hands' server over stateless HTTP on 127.0.0.1 at protocol
// version 2026-07-28, where the client declares the tasks extension on
// every call and the server decides; both with their defaults. The tool
// allows a task (optional), or does not (plain), for comparison.
func BenchmarkTaskOptionalCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []tool.Option
	}{
		{"optional", []tool.Option{tool.WithTaskSupport(tool.TaskOptional)}},
		{"plain", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			quick := tool.New("quick", "Answer at once.", func(ctx context.Context, _ struct{}) (string, error) {
				return "quick done", nil
			}, tc.opts...)
			srv, err := mcpserver.NewTools(nil, quick)
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv.HTTPHandler(&mcpserver.HTTPOptions{Stateless: true}))
			defer ts.Close()
			c, err := mcpclient.Connect(b.Context(), mcpclient.HTTP(ts.URL, nil), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if v := c.Session().InitializeResult().ProtocolVersion; v < "2026-07-28" {
				b.Fatalf("the session speaks %s; the benchmark needs 2026-07-28", v)
			}
			h := find(b, c, "quick")
			b.ReportAllocs()
			for b.Loop() {
				if res := call(b.Context(), h, "quick", `{}`); res.IsError || res.Content != "quick done" {
					b.Fatalf("quick = %+v", res)
				}
			}
		})
	}
}
