package mcpwire

import (
	"bufio"
	"bytes"
	"io"
)

// Over streamable HTTP the stages read the messages of a response's
// server-sent events (RoundTripper). One eventRewriter reads a stream for
// all of them: each event is read, split into lines and its data joined
// once, and its message goes through the stages in order.
//
// Each stage has its bound on the size of an event. A strict one (that of
// a stage reading the answer to a message sent, the transport's
// MaxEventSize) ends the stream with the RoundTripper's TooLarge error at
// an event larger than it; a lenient one (a Stage's Max) lets a larger
// event pass the stage as it is. The rewriter holds an event up to the
// smallest strict bound, or, on a stream with none, up to the largest
// lenient bound, past which the event passes through as it comes, held no
// further, and the events after it are read again. A stage sees an event
// only when the event, as the stages before it left it, is within its
// bound.

// An eventStage is one rewrite of the messages of an event stream.
type eventStage struct {
	// rewrite returns a replacement for msg, one line of JSON, or nil to
	// leave msg as it is. msg is valid only during the call.
	rewrite func(msg []byte) []byte
	// max is the largest event, in bytes as written, the stage sees.
	max int
	// strict: an event larger than max ends the stream with the
	// rewriter's tooLarge error; else it passes the stage as it is.
	strict bool
}

// An eventRewriter reads a stream of server-sent events one whole event
// at a time, and hands it out with the message of its data rewritten by
// its stages, in order. An event that no stage rewrites, one the stream
// ends in without its blank line, and one too large to hold, are handed
// out as they came, byte for byte.
type eventRewriter struct {
	src      *bufio.Reader
	body     io.Closer
	tooLarge func(size, limit int) error // the error of an event over a strict bound
	stages   []eventStage
	hold     int  // the largest event held
	strict   bool // an event larger than hold ends the stream

	event      []byte     // the event being read, as written
	line       int        // where in event the line being read starts
	data       []dataLine // the data lines of event
	joined     []byte     // the data of an event of several data lines, joined
	written    []byte     // an event rewritten
	out        []byte     // what Read hands out next
	rest       []byte     // what Read hands out after out
	passing    bool       // passing an event too large to hold through, to its end
	midLine    bool       // while passing: the last read ended inside a line
	blankSoFar bool       // while passing inside a line: nothing but ends of lines in it so far
	err        error      // the stream's end, returned once out and rest are handed out
}

// A dataLine is where a data line is in its event: the line, and its
// value with the spaces around it trimmed, as the SDK reads it.
type dataLine struct {
	start, end       int // the line, its end of line included
	valueAt, valueTo int // its value
}

// newEventRewriter returns an eventRewriter over body with stages, whose
// error for an event over a strict bound is tooLarge's.
func newEventRewriter(body io.ReadCloser, tooLarge func(size, limit int) error, stages ...eventStage) *eventRewriter {
	e := &eventRewriter{src: bufio.NewReader(body), body: body, tooLarge: tooLarge}
	for _, s := range stages {
		e.add(s)
	}
	return e
}

// add adds a stage after the others. It must be called before the first
// Read.
func (e *eventRewriter) add(stage eventStage) {
	e.stages = append(e.stages, stage)
	switch {
	case stage.strict && (!e.strict || stage.max < e.hold):
		e.hold, e.strict = stage.max, true
	case !stage.strict && !e.strict:
		e.hold = max(e.hold, stage.max)
	}
}

func (e *eventRewriter) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if len(e.rest) > 0 {
			e.out, e.rest = e.rest, nil
			continue
		}
		if e.err != nil {
			return 0, e.err
		}
		e.next()
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

func (e *eventRewriter) Close() error { return e.body.Close() }

// next reads the next event, up to the blank line that ends it, into out;
// or, while passing an event through, what the source has of it.
func (e *eventRewriter) next() {
	e.event, e.line, e.data = e.event[:0], 0, e.data[:0]
	for {
		frag, err := e.src.ReadSlice('\n')
		if e.passing {
			// The event ends at a blank line: a whole line with nothing
			// but its end.
			e.out = frag
			e.passed(e.blankSoFar || !e.midLine, frag, err)
			return
		}
		size := len(e.event) + len(frag)
		if size > e.hold {
			if e.strict {
				e.err = e.tooLarge(size, e.hold)
				return
			}
			// Too large to hold: what is held, and the rest as it comes.
			e.out, e.rest = e.event, frag
			e.passing = true
			e.passed(isBlank(e.event[e.line:]), frag, err)
			return
		}
		e.grow(size)
		e.event = append(e.event, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			// A last event without its blank line is the SDK's to judge.
			e.out, e.err = e.event, err
			return
		}
		line := e.event[e.line:]
		if isBlank(line) {
			e.out = e.rewrite()
			return
		}
		if value, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			d := dataLine{start: e.line, end: len(e.event)}
			if trimmed := bytes.TrimSpace(value); len(trimmed) > 0 {
				// trimmed is value[i:], whose capacity is value's less i.
				d.valueAt = e.line + len("data:") + cap(value) - cap(trimmed)
				d.valueTo = d.valueAt + len(trimmed)
			}
			e.data = append(e.data, d)
		}
		e.line = len(e.event)
	}
}

// passed notes that frag, as ReadSlice returned it with err, was passed
// through, the line it is part of blank so far or not: whether the event
// ends with it, or where the next read starts.
func (e *eventRewriter) passed(blankSoFar bool, frag []byte, err error) {
	blank := blankSoFar && isBlank(frag)
	switch {
	case err == nil:
		e.passing, e.midLine = e.passing && !blank, false
	case err == bufio.ErrBufferFull:
		e.midLine, e.blankSoFar = true, blank
	default:
		e.err = err
	}
}

// grow makes room in event for size bytes, doubling: append grows a large
// slice by a quarter, which for an event of megabytes allocates five times
// its size. It never grows event past hold for that.
func (e *eventRewriter) grow(size int) {
	if size <= cap(e.event) {
		return
	}
	grown := make([]byte, len(e.event), min(max(2*cap(e.event), size, 512), e.hold))
	copy(grown, e.event)
	e.event = grown
}

// isBlank reports whether line is an empty line.
func isBlank(line []byte) bool { return len(bytes.TrimRight(line, "\r\n")) == 0 }

// rewrite returns the event held with its message rewritten by the stages
// that see it, or as it came when none rewrites it.
func (e *eventRewriter) rewrite() []byte {
	if len(e.data) == 0 {
		return e.event
	}
	msg, dataBytes := e.message()
	size, rewritten := len(e.event), false
	for _, s := range e.stages {
		if size > s.max {
			continue
		}
		if r := s.rewrite(msg); r != nil {
			msg, rewritten = r, true
			size = len(e.event) - dataBytes + len("data: ") + len(msg) + len("\n")
		}
	}
	if !rewritten {
		return e.event
	}
	// The event as written, its data lines replaced by one, where the
	// first was.
	w := append(e.written[:0], e.event[:e.data[0].start]...)
	w = append(w, "data: "...)
	w = append(w, msg...)
	w = append(w, '\n')
	from := e.data[0].end
	for _, d := range e.data[1:] {
		w = append(w, e.event[from:d.start]...)
		from = d.end
	}
	w = append(w, e.event[from:]...)
	e.written = w
	return w
}

// message returns the data of the event held, its lines joined with
// newlines (a slice of the event when it has one data line), and the
// bytes its data lines take.
func (e *eventRewriter) message() (msg []byte, dataBytes int) {
	for _, d := range e.data {
		dataBytes += d.end - d.start
	}
	if len(e.data) == 1 {
		d := e.data[0]
		return e.event[d.valueAt:d.valueTo], dataBytes
	}
	e.joined = e.joined[:0]
	for i, d := range e.data {
		if i > 0 {
			e.joined = append(e.joined, '\n')
		}
		e.joined = append(e.joined, e.event[d.valueAt:d.valueTo]...)
	}
	return e.joined, dataBytes
}
