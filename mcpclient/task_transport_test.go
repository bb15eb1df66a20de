package mcpclient

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestEventLifter(t *testing.T) {
	const created = `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`
	const lifted = `{"id":1,"jsonrpc":"2.0","result":{"_meta":{"com.github.hands-go/created-task":{"taskId":"t","status":"working"}},"content":[]}}`
	const other = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}`
	long := `{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"` + strings.Repeat("x", 5000) + `"}}}`
	for _, tc := range []struct {
		name, in, want string
		max            int
	}{
		{"lifted", "id: 7\nevent: message\ndata: " + created + "\n\n", "id: 7\nevent: message\ndata: " + lifted + "\n\n", 1 << 20},
		{"crlf", "data: " + created + "\r\n\r\n", "data: " + lifted + "\n\r\n", 1 << 20},
		{"split data", "data: " + created[:17] + "\ndata: " + created[17:] + "\n\n", "data: " + lifted + "\n\n", 1 << 20},
		{"untouched", "retry: 1000\n\nid: 1\ndata: " + other + "\n\n", "retry: 1000\n\nid: 1\ndata: " + other + "\n\n", 1 << 20},
		{"no end", "data: " + created, "data: " + created, 1 << 20},
		{"longer than a buffer", "data: " + long + "\n\n", "data: " + strings.Replace(strings.Replace(long, `"result":{"task":`, `"result":{"_meta":{"com.github.hands-go/created-task":`, 1), `"}}}`, `"}},"content":[]}}`, 1) + "\n\n", 1 << 20},
		{"over the bound", "data: " + created + "\n\ndata: " + created + "\n\n", "data: " + created + "\n\ndata: " + created + "\n\n", 50},
		{"after one over the bound", "data: " + long + "\n\ndata: " + created + "\n\n", "data: " + long + "\n\ndata: " + lifted + "\n\n", 200},
		{"after one over the bound, in lines", "id: 1\ndata: " + long + "\ndata: " + long + "\n\nid: 2\ndata: " + created + "\n\n", "id: 1\ndata: " + long + "\ndata: " + long + "\n\nid: 2\ndata: " + lifted + "\n\n", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := io.NopCloser(iotest.HalfReader(strings.NewReader(tc.in)))
			got, err := io.ReadAll(newEventRewriter(src, eventStage{rewrite: liftMessage, max: tc.max}))
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "longer than a buffer" {
				// The members of the result are in another order; what
				// matters is that the task was lifted.
				if !bytes.Contains(got, []byte(`"com.github.hands-go/created-task"`)) || !bytes.HasSuffix(got, []byte("\n\n")) {
					t.Errorf("got %.200q", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
