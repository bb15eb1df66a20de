package mcpclient

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/hands-go/hands/internal/mcptrace"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over streamable HTTP the SDK's connection cannot be wrapped as the
// others are (listingConn): the SDK tells it of the session through an
// unexported method. So the client watches the HTTP exchanges instead,
// below the SDK, through the http.Client it hands the transport. Each POST
// carries one message of the client's; its response carries the server's
// answer, as a JSON body or as a stream of server-sent events, and, on a
// stream, the requests the server makes while it works on that message.
// The watch:
//
//   - keeps the schemas of an answer to tools/list as the server wrote
//     them, as listingConn does on the other transports;
//   - marks each elicitation/create and sampling/createMessage request on
//     the stream of a tools/call with that call's progress token (under
//     callMetaKey, sealed with the client's secret), and likewise on the
//     stream of a tasks/result with the progress token of the call that
//     created the task, which is how the client tells which call, out of
//     several under way, the request belongs to (Client.callOf).
//
// Nothing is held beyond one message, whose size the SDK bounds already
// (StreamableClientTransport.MaxEventSize; boundedTransport for JSON
// bodies): the watch reads one event at a time, within the same bound,
// with the reader the lift then adds its stage to (eventRewriter), and
// only the streams of tools/list, and of tools/call when the client
// relays requests, and of tasks/result for a task of a call under way,
// are watched at all.

// callMetaKey is the _meta key of a server's request that names the call
// it belongs to, as the watch marks it. Its value is the client's secret,
// a space and the call's progress token: a server cannot make one up.
const callMetaKey = "hands/call"

// watchingTransport returns t with an http.Client of its own whose
// exchanges c watches. The watch holds an event up to t.MaxEventSize; a
// MaxEventSize of zero or below, which the SDK takes as its default or as
// no bound, is DefaultMaxMessageBytes for the watch, which holds nothing
// without one.
func (c *Client) watchingTransport(t *mcp.StreamableClientTransport) mcp.Transport {
	watched := *t
	client := http.DefaultClient
	if t.HTTPClient != nil {
		client = t.HTTPClient
	}
	hc := *client
	hc.Transport = watchTransport{next: cmp.Or[http.RoundTripper](client.Transport, http.DefaultTransport), c: c, max: watchBound(t.MaxEventSize)}
	watched.HTTPClient = &hc
	return &watched
}

// watchBound is the largest event or body the watch holds, given a
// transport's MaxEventSize.
func watchBound(maxEventSize int) int {
	if maxEventSize <= 0 {
		return DefaultMaxMessageBytes
	}
	return maxEventSize
}

// watchTransport is the http.RoundTripper of a watched transport.
type watchTransport struct {
	next http.RoundTripper
	c    *Client
	max  int // the largest event or body it reads
}

// sent is what the watch reads of the client's message: enough to know
// whether to watch the answer.
type sent struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
		TaskID string `json:"taskId"` // of tasks/result
	} `json:"params"`
}

func (t watchTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if mcptrace.Carries(r.Context()) {
		// The W3C headers of the call's trace, for what reads HTTP
		// (a proxy, an HTTP server span); the server reads _meta.
		r = r.Clone(r.Context())
		mcptrace.InjectHeader(r.Context(), r.Header)
	}
	msg := t.sentMessage(r)
	var onMessage func(data []byte) []byte // sees each message of the answer; returns a replacement, or nil
	switch {
	case msg == nil:
	case msg.Method == "tools/list":
		var id any
		if json.Unmarshal(msg.ID, &id) == nil {
			onMessage = func(data []byte) []byte { t.c.keepListed(data, id); return nil }
		}
	case msg.Method == "tools/call" && (t.c.opts.Elicit != nil || t.c.opts.Sample != nil):
		if token, ok := msg.Params.Meta.ProgressToken.(string); ok {
			onMessage = func(data []byte) []byte { return t.c.markRequest(data, token) }
		}
	case msg.Method == mcptask.MethodResult && (t.c.opts.Elicit != nil || t.c.opts.Sample != nil):
		if token := t.c.taskToken(msg.Params.TaskID); token != "" {
			onMessage = func(data []byte) []byte { return t.c.markRequest(data, token) }
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil || onMessage == nil || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return resp, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = newEventRewriter(resp.Body, eventStage{rewrite: onMessage, max: t.max, strict: true})
	} else if msg.Method == "tools/list" {
		resp.Body = &bodyTee{ReadCloser: resp.Body, max: t.max, onMessage: onMessage}
	}
	return resp, nil
}

// sentMessage returns the JSON-RPC request a POST carries, or nil when it
// carries none that the watch looks at. The body stays readable.
func (t watchTransport) sentMessage(r *http.Request) *sent {
	if r.Method != http.MethodPost || r.Body == nil || r.GetBody == nil {
		return nil // the SDK's POSTs can be read again
	}
	body, err := r.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, int64(t.max)))
	if err != nil {
		return nil
	}
	relaying := t.c.opts.Elicit != nil || t.c.opts.Sample != nil
	if !bytes.Contains(data, []byte(`"tools/list"`)) && !(relaying && (bytes.Contains(data, []byte(`"tools/call"`)) || bytes.Contains(data, []byte(`"tasks/result"`)))) {
		return nil // not worth decoding: a call's arguments may be large
	}
	var msg sent
	if json.Unmarshal(data, &msg) != nil || len(msg.ID) == 0 {
		return nil
	}
	return &msg
}

// keepListed keeps the schemas of data when it is the answer to the
// tools/list request id.
func (c *Client) keepListed(data []byte, id any) {
	var resp struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &resp) != nil || len(resp.Result) == 0 || !reflect.DeepEqual(resp.ID, id) {
		return
	}
	c.keepSent(resp.Result)
}

// markRequest returns data, a message on the stream of the call whose
// progress token is token, with the call named in its _meta when it is a
// request the client relays; else nil, for data as it is.
func (c *Client) markRequest(data []byte, token string) []byte {
	if !bytes.Contains(data, []byte(`\`)) && !bytes.Contains(data, []byte(`"elicitation/create"`)) && !bytes.Contains(data, []byte(`"sampling/createMessage"`)) {
		// Not a request the client relays: without an escape in it, a
		// message names its method as it is, so one that holds neither
		// name is not one (progress notifications, answers). A message
		// with an escape is decoded, since its method or even its
		// member names may be written with one.
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(data, &msg) != nil || len(msg["id"]) == 0 {
		return nil
	}
	var method string
	json.Unmarshal(msg["method"], &method)
	if method != "elicitation/create" && method != "sampling/createMessage" {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return nil // the SDK refuses it
	}
	var meta map[string]any
	if len(params["_meta"]) > 0 && json.Unmarshal(params["_meta"], &meta) != nil {
		return nil
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[callMetaKey] = c.secret + " " + token
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return nil
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return out
}

// bodyTee hands out a JSON body as it comes and, at its end, gives it to
// onMessage whole. A body longer than max is not kept (boundedTransport
// refuses it anyway).
type bodyTee struct {
	io.ReadCloser
	max       int
	onMessage func(data []byte) []byte
	kept      []byte
	over      bool
}

func (b *bodyTee) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.over {
		if len(b.kept)+n > b.max {
			b.over, b.kept = true, nil
		} else {
			b.kept = append(b.kept, p[:n]...)
		}
	}
	if err == io.EOF && !b.over {
		b.onMessage(b.kept)
		b.kept, b.over = nil, true
	}
	return n, err
}
