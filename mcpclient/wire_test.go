package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liftedMsg returns msg with its result lifted.
func liftedMsg(msg string) string { return string(mcptask.LiftResponse([]byte(msg))) }

// halfStreamOf is a RoundTripper that answers every request with one
// event stream, read half a read at a time.
type halfStreamOf string

func (s halfStreamOf) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(iotest.HalfReader(strings.NewReader(string(s))))}, nil
}

// roundTripperOf returns the round tripper through which a client whose
// upstream answers every request with stream reaches it, as Connect
// composes it over streamable HTTP.
func roundTripperOf(t *testing.T, c *Client, stream string) http.RoundTripper {
	t.Helper()
	upstream := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1/mcp", HTTPClient: &http.Client{Transport: streamOf(stream)}}
	st, ok := c.wire().Transport(upstream).(*mcp.StreamableClientTransport)
	if !ok {
		t.Fatal("the streamable transport is not one after its stages are applied")
	}
	return st.HTTPClient.Transport
}

// post sends the JSON-RPC request msg through rt and returns the response
// and its body, read whole.
func post(t *testing.T, rt http.RoundTripper, msg string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(got)
}

// TestEventRewriterOnePass checks that over streamable HTTP the stages
// read a stream with one reader, each message going through the calls
// stage and then the tasks stage: on the stream of a call, a created task is
// lifted and an elicitation marked, whatever the lines' ends and
// lengths, the other fields kept in order and the events neither touches
// kept byte for byte; on the stream of tools/list, the schemas are kept
// as the server wrote them while the tools' execution is lifted.
func TestEventRewriterOnePass(t *testing.T) {
	const created = `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`
	const lifted = `{"id":1,"jsonrpc":"2.0","result":{"_meta":{"com.github.hands-go/created-task":{"taskId":"t","status":"working"}},"content":[]}}`
	const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"hands-1","progress":1}}`
	// The first line of the elicitation fills a reader's buffer of 4096
	// bytes but for its end of line.
	head := `{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"`
	asking := head + strings.Repeat("x", 4090-len(head)-2) + `",`
	const schema = `"requestedSchema":{"type":"object"}}}`

	c := &Client{secret: "s3cret"}
	c.opts.Elicit = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	t.Run("tools/call", func(t *testing.T) {
		stream := "id: 1\r\nevent: message\r\ndata: " + created[:17] + "\r\ndata: " + created[17:] + "\r\n\r\n" +
			": asking\nid: 2\ndata: " + asking + "\ndata: " + schema + "\nretry: 5\n\n" +
			"retry: 1000\ndata: " + progress + "\n\n" +
			"data: " + created
		resp, got := post(t, roundTripperOf(t, c, stream), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{"progressToken":"hands-1"}}}`)
		if typ := fmt.Sprintf("%T", resp.Body); typ != "*mcpwire.eventRewriter" {
			t.Fatalf("the body is a %s, want one *mcpwire.eventRewriter", typ)
		}
		marked := c.markRequest([]byte(asking+"\n"+schema), "hands-1")
		if marked == nil {
			t.Fatal("markRequest did not mark the elicitation")
		}
		want := "id: 1\r\nevent: message\r\ndata: " + lifted + "\n\r\n" +
			": asking\nid: 2\ndata: " + string(marked) + "\nretry: 5\n\n" +
			"retry: 1000\ndata: " + progress + "\n\n" +
			"data: " + created
		if got != want {
			t.Errorf("the stream reads\n%.300q\nwant\n%.300q", got, want)
		}
	})
	t.Run("tools/list", func(t *testing.T) {
		const input = `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`
		listed := `{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"t","inputSchema":` + input + `,"execution":{"taskSupport":"optional"}}]}}`
		resp, got := post(t, roundTripperOf(t, c, "data: "+listed+"\n\n"), `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`)
		if typ := fmt.Sprintf("%T", resp.Body); typ != "*mcpwire.eventRewriter" {
			t.Fatalf("the body is a %s, want one *mcpwire.eventRewriter", typ)
		}
		if want := "data: " + liftedMsg(listed) + "\n\n"; got != want {
			t.Errorf("the stream reads\n%q\nwant\n%q", got, want)
		}
		if sent := string(c.sent["t"].input); sent != input {
			t.Errorf("kept the input schema %s, want %s as written", sent, input)
		}
	})
}

// TestMarkRequest checks which messages of a call's stream are marked:
// the client's relayed requests, not answers, notifications or other
// requests; and that a mark the server wrote is replaced.
func TestMarkRequest(t *testing.T) {
	c := &Client{secret: "s3cret"}
	for _, tt := range []struct {
		msg  string
		mark bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Name?"}}`, true},
		{`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"_meta":{"hands/call":"forged hands-9","x":1},"maxTokens":5}}`, true},
		{`{"jsonrpc":"2.0","id":3,"method":"roots/list","params":{}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"hands-1"}}`, false},
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"\"method\""}]}}`, false},
		{`not json "method"`, false},
		{`{"jsonrpc":"2.0","id":5,"m\u0065thod":"elicitation\/create","params":{"message":"Name?"}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"elicitation/create"}}`, false},
		{`{"jsonrpc":"2.0","id":6,"method":"roots\/list","params":{}}`, false},
	} {
		out := c.markRequest([]byte(tt.msg), "hands-1")
		if !tt.mark {
			if out != nil {
				t.Errorf("markRequest(%s) = %s, want it left as it is", tt.msg, out)
			}
			continue
		}
		var got struct {
			ID     int `json:"id"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(out, &got); err != nil || got.ID == 0 || got.Params.Meta["hands/call"] != "s3cret hands-1" {
			t.Errorf("markRequest(%s) = %s, want the call marked", tt.msg, out)
		}
		if bytes.Contains([]byte(tt.msg), []byte(`"x":1`)) && got.Params.Meta["x"] != float64(1) {
			t.Errorf("markRequest(%s) = %s, want the server's other _meta kept", tt.msg, out)
		}
	}
}

// streamOf is a RoundTripper that answers every request with one event
// stream.
type streamOf string

func (s streamOf) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(string(s)))}, nil
}

// TestWatchMarksTaskResultStream checks that a request on the stream of a
// tasks/result is marked with the progress token of the call under way
// that created the task, and that the stream of a task no call under way
// created is left as it is.
func TestWatchMarksTaskResultStream(t *testing.T) {
	c := &Client{secret: "s3cret", tasks: map[string]string{"task-1": "hands-1"}}
	c.opts.Elicit = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil }
	stream := "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\"}}\n\n"
	w := roundTripperOf(t, c, stream)
	for _, tt := range []struct {
		task string
		mark bool
	}{{"task-1", true}, {"task-2", false}} {
		_, got := post(t, w, `{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"`+tt.task+`"}}`)
		if marked := strings.Contains(got, `"hands/call":"s3cret hands-1"`); marked != tt.mark {
			t.Errorf("the stream of tasks/result for %s = %q; marked %v, want %v", tt.task, got, marked, tt.mark)
		}
	}
}

// TestWatchBound checks that the answer readers of the stages hold an
// event up to the transport's MaxEventSize, and that one of zero or
// below, which the SDK takes as its default or as no bound, is a bound of
// their own rather than one that refuses every event.
func TestWatchBound(t *testing.T) {
	for _, tt := range []struct{ maxEventSize, want int }{
		{1024, 1024}, {0, DefaultMaxMessageBytes}, {-1, DefaultMaxMessageBytes},
	} {
		c := &Client{}
		w := c.wire().Transport(&mcp.StreamableClientTransport{Endpoint: "http://mcp.test", MaxEventSize: tt.maxEventSize}).(*mcp.StreamableClientTransport)
		if got := w.HTTPClient.Transport.(*mcpwire.RoundTripper).MaxHeld; got != tt.want {
			t.Errorf("MaxEventSize %d: the answer readers hold %d bytes, want %d", tt.maxEventSize, got, tt.want)
		}
	}
}

// TestEventLifter checks that the tasks stage lifts the created task of
// each event within its bound, whatever the event's lines, and passes a
// larger one through as it came.
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
			stage := taskStage
			stage.Max = tc.max
			rt := &mcpwire.RoundTripper{Next: halfStreamOf(tc.in), Stages: []mcpwire.Stage{stage}, TooLarge: tooLarge}
			_, body := post(t, rt, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)
			got := []byte(body)
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
