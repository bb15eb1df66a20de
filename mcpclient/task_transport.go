package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes the server's results into its own types, which drop
// what tasks add: a tool's execution in tools/list, the task of a
// CreateTaskResult. So the client's transports move those into _meta,
// where the SDK keeps them (mcptask.LiftResult): a connection's messages
// as they are read and, over streamable HTTP, the JSON bodies and
// server-sent events as they arrive, since the SDK's streamable
// connection cannot be wrapped (see keepingSchemas).

// maxLiftBytes is the largest HTTP body or event that is read whole to be
// lifted, a copy the SDK does not make: a CreateTaskResult is small, and a
// page of tools/list is bounded by Options.MaxToolBytes a tool. A larger
// one passes through as it came, at no cost.
const maxLiftBytes = 4 << 20

// liftingTasks returns transport wrapped so that the SDK's types keep what
// tasks add.
func liftingTasks(transport mcp.Transport) mcp.Transport {
	if st, ok := transport.(*mcp.StreamableClientTransport); ok {
		lifted := *st
		client := http.DefaultClient
		if st.HTTPClient != nil {
			client = st.HTTPClient
		}
		hc := *client
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		hc.Transport = liftingRoundTripper{next: next, max: maxLiftBytes}
		lifted.HTTPClient = &hc
		return &lifted
	}
	return liftingTransport{next: transport}
}

// liftingTransport connects over next and lifts the results read.
type liftingTransport struct{ next mcp.Transport }

func (t liftingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.next.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return liftingConn{conn}, nil
}

// liftingConn lifts the result of each response it reads.
type liftingConn struct{ mcp.Connection }

func (l liftingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := l.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Result != nil {
		resp.Result = mcptask.LiftResult(resp.Result)
	}
	return msg, err
}

// liftingRoundTripper lifts the results in the responses of a streamable
// HTTP endpoint: a JSON body whole, an event stream event by event. A
// body or an event larger than max is passed on as it is, for the SDK to
// refuse.
type liftingRoundTripper struct {
	next http.RoundTripper
	max  int
}

func (t liftingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.Body == nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		data, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.max)+1))
		if err != nil {
			resp.Body.Close()
			return nil, err
		}
		if len(data) > t.max {
			resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
			return resp, nil
		}
		resp.Body.Close()
		data = mcptask.LiftResponse(data)
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		resp.Header.Del("Content-Length")
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &eventLifter{src: bufio.NewReader(resp.Body), body: resp.Body, max: t.max}
	}
	return resp, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// An eventLifter reads a stream of server-sent events and lifts the
// JSON-RPC message in the data of each event. An event is held until its
// end (a blank line), up to max bytes; a longer one passes through as it
// is, and the events after it are lifted again.
type eventLifter struct {
	src  *bufio.Reader
	body io.Closer
	max  int

	out       bytes.Buffer // read, and ready to be returned
	event     [][]byte     // the lines of the event being read
	size      int          // the bytes in event
	skipping  bool         // passing an event too long to hold through, to its end
	lineStart bool         // while skipping: the next read starts a line
	err       error        // from src, returned once out is empty
}

func (e *eventLifter) Read(p []byte) (int, error) {
	for e.out.Len() == 0 && e.err == nil {
		e.readLine()
	}
	if e.out.Len() > 0 {
		return e.out.Read(p)
	}
	return 0, e.err
}

func (e *eventLifter) Close() error { return e.body.Close() }

// readLine reads one line, or as much of a long one as the reader holds,
// and when it ends an event, puts the event out.
func (e *eventLifter) readLine() {
	var line []byte
	for {
		frag, err := e.src.ReadSlice('\n')
		if e.skipping || e.size+len(line)+len(frag) > e.max {
			// An event too long to hold: let it through as it comes.
			e.flush()
			e.out.Write(line)
			e.out.Write(frag)
			// The event ends at a blank line: a whole line, read from its
			// start, with nothing but its end.
			blank := e.skipping && e.lineStart && err == nil && len(bytes.TrimRight(frag, "\r\n")) == 0
			e.skipping, e.lineStart = !blank, err == nil
			if err != nil && err != bufio.ErrBufferFull {
				e.err = err
			}
			return
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 {
			e.event = append(e.event, line)
			e.size += len(line)
		}
		if err != nil {
			e.flush()
			e.err = err
			return
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			e.putEvent()
		}
		return
	}
}

// flush puts out the lines held, as they came.
func (e *eventLifter) flush() {
	for _, l := range e.event {
		e.out.Write(l)
	}
	e.event, e.size = e.event[:0], 0
}

// putEvent puts out the event held, its data lifted.
func (e *eventLifter) putEvent() {
	var data [][]byte
	for _, l := range e.event {
		if v, ok := bytes.CutPrefix(l, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(bytes.TrimRight(v, "\r\n"), []byte(" ")))
		}
	}
	if len(data) == 0 {
		e.flush()
		return
	}
	joined := bytes.Join(data, []byte("\n"))
	lifted := mcptask.LiftResponse(joined)
	if bytes.Equal(lifted, joined) {
		e.flush()
		return
	}
	wrote := false
	for _, l := range e.event {
		if bytes.HasPrefix(l, []byte("data:")) {
			if !wrote {
				e.out.WriteString("data: ")
				e.out.Write(lifted)
				e.out.WriteString("\n")
				wrote = true
			}
			continue
		}
		e.out.Write(l)
	}
	e.event, e.size = e.event[:0], 0
}
