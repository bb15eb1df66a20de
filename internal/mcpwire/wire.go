package mcpwire

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Message is one JSON-RPC message as a Stage sees it: as written, over
// streamable HTTP, where the stages read the bytes that the SDK decodes
// after them (Data); or decoded, on any other connection, whose transport
// decoded it before them (Decoded). One of the two is set.
type Message struct {
	data []byte
	msg  jsonrpc.Message

	req      *jsonrpc.Request // data decoded by Request
	decoded  bool             // data was decoded by Request
	replaced bool             // SetData was called
}

// Data returns the message as written, or nil when it is decoded instead.
func (m *Message) Data() []byte { return m.data }

// Decoded returns the message decoded, or nil when it is written instead.
// A stage may change what it points to: the stages after it and the SDK
// read the change.
func (m *Message) Decoded() jsonrpc.Message { return m.msg }

// SetData replaces the message as written with data: the stages after it
// and the SDK read data instead.
func (m *Message) SetData(data []byte) {
	m.data, m.req, m.decoded, m.replaced = data, nil, false, true
}

// Request returns the message when it is a request of one of methods, or
// nil. A message as written is decoded only when its bytes may be one of
// those requests (they name a method, or hold an escape), and once for
// all the stages that ask.
func (m *Message) Request(methods ...string) *jsonrpc.Request {
	if m.msg != nil {
		if req, ok := m.msg.(*jsonrpc.Request); ok && slices.Contains(methods, req.Method) {
			return req
		}
		return nil
	}
	if !m.decoded {
		if !bytes.Contains(m.data, []byte(`\`)) && !slices.ContainsFunc(methods, func(name string) bool { return mentions(m.data, name) }) {
			return nil // not decoded: another stage may ask of another method
		}
		m.decoded = true
		if msg, err := jsonrpcwire.Decode(m.data); err == nil {
			m.req, _ = msg.(*jsonrpc.Request)
		}
	}
	if m.req != nil && slices.Contains(methods, m.req.Method) {
		return m.req
	}
	return nil
}

// mentions reports whether data holds the JSON string name, quotes
// included.
func mentions(data []byte, name string) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(name))
		if j < 0 {
			return false
		}
		at := i + j
		if at > 0 && data[at-1] == '"' && at+len(name) < len(data) && data[at+len(name)] == '"' {
			return true
		}
		i = at + 1
	}
}

// A Stage is one step of a client's wire: a stage that keeps the schemas
// of tools/list as sent, one that marks the server's requests with the
// call they belong to, one that lifts what tasks add out of the SDK's
// reach. A client's stages are a list, applied in order, once per
// connection: by Conn on a connection that the SDK reads decoded
// messages from, and, over streamable HTTP, whose connection the SDK does
// not let be wrapped, by a RoundTripper below it, on the messages as
// written. Every field may be nil.
type Stage struct {
	// Name says what the stage does, for errors and tests.
	Name string
	// Send is called with each message the client sends, before it is
	// sent, in the order of the stages (over streamable HTTP, with each
	// POST's message no larger than the bound of what the stages hold).
	// It returns how the stage reads the messages that answer it, or nil
	// when it has no need: over streamable HTTP, every message of the
	// POST's response, body or event stream; on any other connection,
	// the response that bears the request's ID (a message other than a
	// request with an ID has none there).
	Send func(sent *Message) (answer func(*Message))
	// Receive is called with each message read, after the answer
	// readers: on a connection, every message; over streamable HTTP, a
	// message no larger than Max.
	Receive func(*Message)
	// Max is the largest message, in bytes as written, that Receive sees
	// over streamable HTTP; a larger one passes the stage as it is, held
	// no further than the stream's bound. Zero: Receive sees none there.
	Max int
	// Request, over streamable HTTP, returns r, the request that carries
	// sent (nil for a GET), or a copy of it with the headers the stage
	// adds. It must not change r.
	Request func(r *http.Request, sent *Message) *http.Request
}

// A Wire is a client's stages and the bounds of what it reads.
type Wire struct {
	// Stages are applied in order.
	Stages []Stage
	// MaxMessageBytes bounds what the answer readers of a streamable
	// HTTP transport's exchanges hold, when the transport's MaxEventSize
	// is zero or below.
	MaxMessageBytes int
	// TooLarge returns the error that ends a stream at a message of size
	// bytes over limit.
	TooLarge func(size, limit int) error
}

// Transport returns t with the stages applied once: on the connection it
// makes or, for a *mcp.StreamableClientTransport, on each HTTP exchange,
// by a RoundTripper of its http.Client (the one the client has, when it
// has one, given w's stages; else a new one over the client's).
func (w *Wire) Transport(t mcp.Transport) mcp.Transport {
	st, ok := t.(*mcp.StreamableClientTransport)
	if !ok {
		return wiredTransport{next: t, w: w}
	}
	wired := *st
	client := http.DefaultClient
	if st.HTTPClient != nil {
		client = st.HTTPClient
	}
	hc := *client
	rt, ok := hc.Transport.(*RoundTripper)
	if ok {
		c := *rt
		rt = &c
	} else {
		rt = &RoundTripper{Next: hc.Transport, TooLarge: w.TooLarge}
	}
	rt.Stages = w.Stages
	rt.MaxHeld = w.MaxMessageBytes
	if st.MaxEventSize > 0 {
		rt.MaxHeld = st.MaxEventSize
	}
	hc.Transport = rt
	wired.HTTPClient = &hc
	return &wired
}

// wiredTransport connects over next and applies w's stages to the
// connection.
type wiredTransport struct {
	next mcp.Transport
	w    *Wire
}

func (t wiredTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.next.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return t.w.Conn(conn), nil
}

// Conn returns next with w's stages applied to each message written and
// read.
func (w *Wire) Conn(next mcp.Connection) mcp.Connection {
	return &conn{Connection: next, stages: w.Stages, pending: map[jsonrpc.ID][]func(*Message){}}
}

// A conn is a connection with stages.
type conn struct {
	mcp.Connection
	stages  []Stage
	mu      sync.Mutex
	pending map[jsonrpc.ID][]func(*Message) // the answer readers of requests sent, by ID
	read    Message                         // the message Read hands the stages: the SDK reads one at a time
}

// sending holds the Messages Write hands the stages, which writers may
// call at once.
var sending = sync.Pool{New: func() any { return new(Message) }}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if len(c.stages) > 0 {
		m := sending.Get().(*Message)
		*m = Message{msg: msg}
		var answers []func(*Message)
		for _, s := range c.stages {
			if s.Send == nil {
				continue
			}
			if a := s.Send(m); a != nil {
				answers = append(answers, a)
			}
		}
		*m = Message{}
		sending.Put(m)
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() && len(answers) > 0 {
			c.mu.Lock()
			c.pending[req.ID] = answers
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	m := &c.read
	*m = Message{msg: msg}
	defer func() { *m = Message{} }()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		answers := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		for _, a := range answers {
			a(m)
		}
	}
	for _, s := range c.stages {
		if s.Receive != nil {
			s.Receive(m)
		}
	}
	return m.msg, nil
}

// A RoundTripper is the one round tripper of a streamable HTTP client: it
// adds the client's headers, bounds the JSON bodies of responses, and
// applies the stages to the messages of each exchange, reading each body
// or event once.
type RoundTripper struct {
	// Next makes the requests; nil selects http.DefaultTransport.
	Next http.RoundTripper
	// Header is added to every request.
	Header http.Header
	// MaxBody bounds every response body but an event stream, which the
	// SDK bounds event by event (StreamableClientTransport.MaxEventSize):
	// a larger one ends with the TooLarge error once that much is read.
	// Zero: no bound.
	MaxBody int
	// MaxHeld bounds what the answer readers of an exchange hold: a
	// larger event ends the stream with the TooLarge error, and a larger
	// JSON body is not held but passed on. Zero: exchanges have no answer
	// readers, the body sent is not read.
	MaxHeld int
	// Stages are applied in order.
	Stages []Stage
	// TooLarge returns the error of a message of size bytes over limit.
	TooLarge func(size, limit int) error
}

// RoundTrip implements http.RoundTripper.
func (t *RoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.Header) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.Header {
			r.Header[http.CanonicalHeaderKey(k)] = slices.Clone(v)
		}
	}
	sent := t.sent(r)
	var answers []eventStage
	for _, s := range t.Stages {
		if s.Request != nil {
			r = s.Request(r, sent)
		}
		if s.Send != nil && sent != nil {
			if a := s.Send(sent); a != nil {
				answers = append(answers, eventStage{rewrite: rewrite(a), max: t.MaxHeld, strict: true})
			}
		}
	}
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	stream := strings.HasPrefix(ct, "text/event-stream")
	if !stream && t.MaxBody > 0 {
		if resp.ContentLength > int64(t.MaxBody) {
			resp.Body.Close()
			return nil, t.TooLarge(int(min(resp.ContentLength, math.MaxInt)), t.MaxBody)
		}
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: t.MaxBody, max: t.MaxBody, tooLarge: t.TooLarge}
	}
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	stages := answers
	for _, s := range t.Stages {
		if s.Receive != nil && s.Max > 0 {
			stages = append(stages, eventStage{rewrite: rewrite(s.Receive), max: s.Max})
		}
	}
	switch {
	case len(stages) == 0:
	case stream:
		resp.Body = newEventRewriter(resp.Body, t.TooLarge, stages...)
	case strings.HasPrefix(ct, "application/json"):
		return t.rewriteBody(resp, stages)
	}
	return resp, nil
}

// sent returns the message a POST carries, as written, or nil when it
// carries none that stages read: a request without a body to read again,
// or one whose body is larger than MaxHeld. The request's body stays
// readable.
func (t *RoundTripper) sent(r *http.Request) *Message {
	if t.MaxHeld <= 0 || r.Method != http.MethodPost || r.Body == nil || r.GetBody == nil {
		return nil // the SDK's POSTs can be read again
	}
	body, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, int64(t.MaxHeld)+1))
	if err != nil || len(data) > t.MaxHeld {
		return nil
	}
	return &Message{data: data}
}

// rewriteBody reads the JSON body of resp whole, when it is within the
// largest bound of stages, gives its message to the stages, and hands the
// result on; a larger body is passed on as it comes.
func (t *RoundTripper) rewriteBody(resp *http.Response, stages []eventStage) (*http.Response, error) {
	hold := 0
	for _, s := range stages {
		hold = max(hold, s.max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(hold)+1))
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if len(data) > hold {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	msg, changed := bytes.TrimSpace(data), false
	for _, s := range stages {
		if len(msg) > s.max {
			continue
		}
		if r := s.rewrite(msg); r != nil {
			msg, changed = r, true
		}
	}
	if changed {
		data = msg
		resp.ContentLength = int64(len(data))
		resp.Header.Del("Content-Length")
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// rewrite returns f as the rewrite of an eventStage: the message as f
// leaves it, or nil when f leaves it as it is.
// The Message is one for all the calls, which an eventRewriter makes one
// at a time.
func rewrite(f func(*Message)) func([]byte) []byte {
	m := new(Message)
	return func(data []byte) []byte {
		*m = Message{data: data}
		f(m)
		if !m.replaced {
			return nil
		}
		return m.data
	}
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// boundedBody fails a read past its bound, having read no more than the
// bound allows.
type boundedBody struct {
	io.ReadCloser
	left, max int
	tooLarge  func(size, limit int) error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body that ends exactly at the bound from
		// one that goes on.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, b.tooLarge(b.max+1, b.max)
		}
		return 0, err
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}
