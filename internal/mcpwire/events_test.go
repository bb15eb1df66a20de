package mcpwire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// A sizeError is the TooLarge error of the tests.
type sizeError struct{ size, limit int }

func (e *sizeError) Error() string {
	return fmt.Sprintf("%d bytes over the bound of %d", e.size, e.limit)
}

// tooLarge returns a *sizeError.
func tooLarge(size, limit int) error { return &sizeError{size, limit} }

// quoted is a rewrite that quotes every message.
func quoted(msg []byte) []byte { return []byte(strconv.Quote(string(msg))) }

// filter returns an eventRewriter over stream with onMessage as its one
// stage, strict as an answer reader's is.
func filter(stream string, max int, onMessage func([]byte) []byte) *eventRewriter {
	return newEventRewriter(io.NopCloser(strings.NewReader(stream)), tooLarge, eventStage{rewrite: onMessage, max: max, strict: true})
}

// TestEventFilterBound checks that an event larger than the bound ends
// the stream with a TooLarge error, once the events before it are handed
// out, and that the filter holds no more than the bound while it reads.
func TestEventFilterBound(t *testing.T) {
	small := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
	big := "data: " + strings.Repeat("x", 4096) + "\n\n"
	f := filter(small+big+small, 1024, func([]byte) []byte { return nil })
	got, err := io.ReadAll(f)
	if serr, ok := errors.AsType[*sizeError](err); !ok || serr.limit != 1024 {
		t.Fatalf("reading past an event of %d bytes over a bound of 1024: %v, want the TooLarge error", len(big), err)
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

// TestEventRewriterBounds checks how the bounds of a strict stage (the
// watch's) and a lenient one (the lift's) compose: the strict one ends
// the stream with a TooLarge error at an event larger than it, whichever is
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
		return "data: " + string(quoted([]byte(msg))) + "\n\n"
	}
	small, large, huge := event("t"), event(strings.Repeat("x", 100)), event(strings.Repeat("x", 1500))
	for _, tt := range []struct {
		name       string
		watch      int // the strict bound; 0 for none
		lift       int
		stream     string
		want       string
		watched    int // events the watch saw
		limit      int // the Limit of the TooLarge error; 0 for none
		heldAtMost int
	}{
		{"an answer reader's bound smaller", 100, 1000, small + large + small, lift(small), 1, 100, 100},
		{"the lift's bound smaller", 1000, 100, small + large + small + huge, lift(small) + large + lift(small), 3, 1000, 1000},
		{"the lift's bound alone", 0, 100, small + large + small, lift(small) + large + lift(small), 0, 0, 100},
		{"the lift's bound on a blank line", 0, len(small) - 1, small + event("") + event(""), small + lift(event("")) + lift(event("")), 0, 0, len(small) - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			watched := 0
			var e *eventRewriter
			liftStage := eventStage{rewrite: quoted, max: tt.lift}
			body := io.NopCloser(iotest.HalfReader(strings.NewReader(tt.stream)))
			if tt.watch > 0 {
				e = newEventRewriter(body, tooLarge, eventStage{rewrite: func([]byte) []byte { watched++; return nil }, max: tt.watch, strict: true}, liftStage)
			} else {
				e = newEventRewriter(body, tooLarge, liftStage)
			}
			got, err := io.ReadAll(e)
			if serr, ok := errors.AsType[*sizeError](err); tt.limit == 0 && err != nil || tt.limit > 0 && (!ok || serr.limit != tt.limit) {
				t.Fatalf("reading the stream: %v, want the TooLarge error with a limit of %d (0 for no error)", err, tt.limit)
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
			e := newEventRewriter(body, tooLarge, use...)
			e.src = bufio.NewReaderSize(body, 16)
			got, err := io.ReadAll(e)
			want, ended := rewriteEvents(stream, use)
			if _, isSize := errors.AsType[*sizeError](err); isSize != ended || err != nil && !isSize {
				t.Fatalf("strict %v: reading %q: %v, want the TooLarge error %v", strict, stream, err, ended)
			}
			if string(got) != want {
				t.Errorf("strict %v: %q reads\n%q\nwant\n%q", strict, stream, got, want)
			}
		}
	})
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
