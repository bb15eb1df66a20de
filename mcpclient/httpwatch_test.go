package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// filter returns an eventRewriter over stream with onMessage as its one
// stage, strict as the watch's is.
func filter(stream string, max int, onMessage func([]byte) []byte) *eventRewriter {
	return newEventRewriter(io.NopCloser(strings.NewReader(stream)), eventStage{rewrite: onMessage, max: max, strict: true})
}

// TestEventFilterBound checks that an event larger than the bound ends
// the stream with a *SizeError, once the events before it are handed
// out, and that the filter holds no more than the bound while it reads.
func TestEventFilterBound(t *testing.T) {
	small := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
	big := "data: " + strings.Repeat("x", 4096) + "\n\n"
	f := filter(small+big+small, 1024, func([]byte) []byte { return nil })
	got, err := io.ReadAll(f)
	if serr, ok := errors.AsType[*SizeError](err); !ok || !errors.Is(err, ErrMessageTooLarge) || serr.Limit != 1024 {
		t.Fatalf("reading past an event of %d bytes over a bound of 1024: %v, want a *SizeError", len(big), err)
	}
	if string(got) != small {
		t.Errorf("handed out %q before the large event, want %q", got, small)
	}
	if c := cap(f.event); c > 1024+4096 {
		t.Errorf("the filter grew a buffer of %d bytes over a bound of 1024", c)
	}
}

// TestEventFilterMarks checks that the message of each event reaches
// onMessage whole (data lines joined), and that a replacement keeps the
// event's other fields.
func TestEventFilterMarks(t *testing.T) {
	stream := ": a comment\nid: 7\nevent: message\ndata: {\"a\":\ndata: 1}\n\nretry: 10\n\n"
	var seen []string
	got, err := io.ReadAll(filter(stream, 1<<10, func(data []byte) []byte {
		seen = append(seen, string(data))
		return []byte(`{"b":2}`)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"{\"a\":\n1}"}; len(seen) != 1 || seen[0] != want[0] {
		t.Errorf("onMessage saw %q, want %q", seen, want)
	}
	if want := ": a comment\nid: 7\nevent: message\ndata: {\"b\":2}\n\nretry: 10\n\n"; string(got) != want {
		t.Errorf("filtered stream = %q, want %q", got, want)
	}
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
	w := watchTransport{next: streamOf(stream), c: c, max: 1 << 16}
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

// FuzzEventFilter checks that a stream whose messages are left as they
// are comes out byte for byte as it went in, and that the filter never
// panics.
func FuzzEventFilter(f *testing.F) {
	f.Add("data: {}\n\n")
	f.Add(": c\nid: 1\r\ndata: a\ndata: b\r\n\r\nevent: x\n\n")
	f.Add("data: no end")
	f.Add("\n\n\n")
	f.Fuzz(func(t *testing.T, stream string) {
		got, err := io.ReadAll(filter(stream, 1<<20, func([]byte) []byte { return nil }))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != stream {
			t.Errorf("filtered %q = %q, want it unchanged", stream, got)
		}
	})
}

// TestWatchBound checks that the watch holds an event up to the
// transport's MaxEventSize, and that one of zero or below, which the SDK
// takes as its default or as no bound, is a bound of its own for the
// watch rather than one that refuses every event.
func TestWatchBound(t *testing.T) {
	for _, tt := range []struct{ maxEventSize, want int }{
		{1024, 1024}, {0, DefaultMaxMessageBytes}, {-1, DefaultMaxMessageBytes},
	} {
		c := &Client{}
		w := c.watchingTransport(&mcp.StreamableClientTransport{Endpoint: "http://mcp.test", MaxEventSize: tt.maxEventSize}).(*mcp.StreamableClientTransport)
		if got := w.HTTPClient.Transport.(watchTransport).max; got != tt.want {
			t.Errorf("MaxEventSize %d: the watch holds %d bytes, want %d", tt.maxEventSize, got, tt.want)
		}
	}
}
