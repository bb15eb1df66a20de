package service_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/service"
)

// BenchmarkCall compares one call of an operation through call_service —
// arguments validated, the request built under the base URL, sent through
// the guarded transport, the response read within its limits and checked
// against its schema — with the same request sent with net/http directly,
// to one local server.
func BenchmarkCall(b *testing.B) {
	f := newFakeAPI(b, itemsDoc)
	b.Run("net/http", func(b *testing.B) {
		client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		url := f.URL + "/v1/items/42?tags=a&tags=b"
		b.ReportAllocs()
		for b.Loop() {
			req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, url, nil)
			req.Header.Set("Accept", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var v map[string]any
			if err := json.Unmarshal(data, &v); err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err, resp.Status)
			}
		}
	})
	b.Run("call_service", func(b *testing.B) {
		svcs, err := service.New([]service.Config{f.config()}, nil)
		if err != nil {
			b.Fatal(err)
		}
		call := svcs.Tools()[0]
		args := json.RawMessage(`{"service":"api","operation":"getItem","arguments":"{\"path\":{\"id\":\"42\"},\"query\":{\"tags\":[\"a\",\"b\"]}}"}`)
		res := tool.Run(b.Context(), call, tool.Call{Name: "call_service", Args: args})
		if res.IsError || !strings.Contains(res.Content, "/v1/items/42?tags=a&tags=b") {
			b.Fatal(res.Content)
		}
		b.ReportAllocs()
		for b.Loop() {
			if res := tool.Run(b.Context(), call, tool.Call{Name: "call_service", Args: args}); res.IsError {
				b.Fatal(res.Content)
			}
		}
	})
}
