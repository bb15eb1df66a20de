package mcpclient

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// roundTripperOf returns the round tripper through which a client whose
// upstream answers every request with stream reaches it, as Connect
// composes it over streamable HTTP.
func roundTripperOf(t *testing.T, c *Client, stream string) http.RoundTripper {
	t.Helper()
	upstream := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1/mcp", HTTPClient: &http.Client{Transport: streamOf(stream)}}
	st, ok := liftingTasks(c.keepingSchemas(upstream)).(*mcp.StreamableClientTransport)
	if !ok {
		t.Fatal("the streamable transport is not one after watching and lifting")
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

// TestEventRewriterOnePass checks that over streamable HTTP the watch and
// the lift read a stream with one reader, each message going through the
// watch and then the lift: on the stream of a call, a created task is
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
		if rw, ok := resp.Body.(*eventRewriter); !ok || len(rw.stages) != 2 || !rw.stages[0].strict || rw.stages[1].strict {
			t.Fatalf("the body is a %T, want one *eventRewriter with the watch's stage and then the lift's", resp.Body)
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
		if rw, ok := resp.Body.(*eventRewriter); !ok || len(rw.stages) != 2 {
			t.Fatalf("the body is a %T, want one *eventRewriter with two stages", resp.Body)
		}
		if want := "data: " + string(liftMessage([]byte(listed))) + "\n\n"; got != want {
			t.Errorf("the stream reads\n%q\nwant\n%q", got, want)
		}
		if sent := string(c.sent["t"].input); sent != input {
			t.Errorf("kept the input schema %s, want %s as written", sent, input)
		}
	})
}

// TestEventRewriterBounds checks how the bounds of a strict stage (the
// watch's) and a lenient one (the lift's) compose: the strict one ends
// the stream with a *SizeError at an event larger than it, whichever is
// smaller; an event within it but larger than the lenient bound is
// watched and not lifted; on a stream with the lenient stage alone, an
// event larger than its bound passes through as it came, held no
// further, and the next event is lifted again, even when the bound falls
// on the blank line that ends the event.
func TestEventRewriterBounds(t *testing.T) {
	event := func(task string) string {
		return "data: " + `{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"` + task + `"}}}` + "\n\n"
	}
	lift := func(ev string) string {
		msg := strings.TrimSuffix(strings.TrimPrefix(ev, "data: "), "\n\n")
		return "data: " + string(liftMessage([]byte(msg))) + "\n\n"
	}
	small, large, huge := event("t"), event(strings.Repeat("x", 100)), event(strings.Repeat("x", 1500))
	for _, tt := range []struct {
		name       string
		watch      int // the strict bound; 0 for none
		lift       int
		stream     string
		want       string
		watched    int // events the watch saw
		limit      int // the Limit of the *SizeError; 0 for none
		heldAtMost int
	}{
		{"the watch's bound smaller", 100, 1000, small + large + small, lift(small), 1, 100, 100},
		{"the lift's bound smaller", 1000, 100, small + large + small + huge, lift(small) + large + lift(small), 3, 1000, 1000},
		{"the lift's bound alone", 0, 100, small + large + small, lift(small) + large + lift(small), 0, 0, 100},
		{"the lift's bound on a blank line", 0, len(small) - 1, small + event("") + event(""), small + lift(event("")) + lift(event("")), 0, 0, len(small) - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			watched := 0
			var e *eventRewriter
			liftStage := eventStage{rewrite: liftMessage, max: tt.lift}
			body := io.NopCloser(iotest.HalfReader(strings.NewReader(tt.stream)))
			if tt.watch > 0 {
				e = newEventRewriter(body, eventStage{rewrite: func([]byte) []byte { watched++; return nil }, max: tt.watch, strict: true})
				e.add(liftStage)
			} else {
				e = newEventRewriter(body, liftStage)
			}
			got, err := io.ReadAll(e)
			if serr, ok := errors.AsType[*SizeError](err); tt.limit == 0 && err != nil || tt.limit > 0 && (!ok || serr.Limit != tt.limit || !errors.Is(err, ErrMessageTooLarge)) {
				t.Fatalf("reading the stream: %v, want a *SizeError with a limit of %d (0 for no error)", err, tt.limit)
			}
			if string(got) != tt.want {
				t.Errorf("the stream reads\n%q\nwant\n%q", got, tt.want)
			}
			if watched != tt.watched {
				t.Errorf("the watch saw %d events, want %d", watched, tt.watched)
			}
			if cap(e.event) > tt.heldAtMost {
				t.Errorf("held %d bytes of an event, over %d", cap(e.event), tt.heldAtMost)
			}
		})
	}
}

// rewriteEvents is what an eventRewriter does, written over a whole
// stream in memory: the reference FuzzEventRewriter compares it with. It
// returns the stream rewritten and whether a strict bound ended it.
func rewriteEvents(stream string, stages []eventStage) (string, bool) {
	var out strings.Builder
	var event []string
	size := 0
	for line := range strings.Lines(stream) {
		event = append(event, line)
		size += len(line)
		for _, s := range stages {
			if s.strict && size > s.max {
				return out.String(), true
			}
		}
		if !strings.HasSuffix(line, "\n") || strings.TrimRight(line, "\r\n") != "" {
			continue
		}
		out.WriteString(rewriteEvent(event, stages))
		event, size = nil, 0
	}
	out.WriteString(strings.Join(event, ""))
	return out.String(), false
}

// rewriteEvent returns the whole event in lines through stages.
func rewriteEvent(lines []string, stages []eventStage) string {
	var data []string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "data:"); ok {
			data = append(data, strings.TrimSpace(v))
		}
	}
	event := strings.Join(lines, "")
	if len(data) == 0 {
		return event
	}
	msg := strings.Join(data, "\n")
	for _, s := range stages {
		if len(event) > s.max {
			continue
		}
		r := s.rewrite([]byte(msg))
		if r == nil {
			continue
		}
		msg = string(r)
		var b strings.Builder
		first := true
		for _, l := range lines {
			if !strings.HasPrefix(l, "data:") {
				b.WriteString(l)
			} else if first {
				b.WriteString("data: " + msg + "\n")
				first = false
			}
		}
		event = b.String()
	}
	return event
}

// FuzzEventRewriter checks an eventRewriter reading through a small
// buffer, a few bytes at a time, against rewriteEvents, with a strict
// stage that rewrites some messages and a lenient one that rewrites
// others; and that it never panics.
func FuzzEventRewriter(f *testing.F) {
	f.Add("data: {}\n\n", 1<<10, 1<<10)
	f.Add(": c\nid: 1\r\ndata: a\ndata: bb\r\n\r\nevent: x\n\n", 1<<10, 20)
	f.Add("data: no end", 1<<10, 5)
	f.Add("\n\n\n", 3, 3)
	f.Add("data:  spaced  \ndata:\ndata: ccc\nretry: 3\n\ndata: dddd\n\n", 40, 30)
	f.Add("data: "+strings.Repeat("e", 70)+"\n\ndata: ff\n\n", 1<<10, 30)
	f.Fuzz(func(t *testing.T, stream string, strictMax, lenientMax int) {
		if strictMax < 1 || lenientMax < 1 {
			return
		}
		// Each stage quotes the messages of one length out of three.
		quoting := func(rem int) func([]byte) []byte {
			return func(msg []byte) []byte {
				if len(msg)%3 != rem {
					return nil
				}
				return []byte(strconv.Quote(string(msg)))
			}
		}
		stages := []eventStage{{rewrite: quoting(0), max: strictMax, strict: true}, {rewrite: quoting(2), max: lenientMax}}
		for _, strict := range []bool{true, false} {
			use := stages
			if !strict {
				use = stages[1:]
			}
			body := io.NopCloser(iotest.HalfReader(strings.NewReader(stream)))
			e := newEventRewriter(body, use[0])
			for _, s := range use[1:] {
				e.add(s)
			}
			e.src = bufio.NewReaderSize(body, 16)
			got, err := io.ReadAll(e)
			want, ended := rewriteEvents(stream, use)
			if _, isSize := errors.AsType[*SizeError](err); isSize != ended || err != nil && !isSize {
				t.Fatalf("strict %v: reading %q: %v, want a *SizeError %v", strict, stream, err, ended)
			}
			if string(got) != want {
				t.Errorf("strict %v: %q reads\n%q\nwant\n%q", strict, stream, got, want)
			}
		}
	})
}
