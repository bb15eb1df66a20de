package mcpclient

import (
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
// HTTP endpoint: a JSON body whole, an event stream event by event (a
// stage of an eventRewriter). A body or an event larger than max is
// passed on as it is, for the SDK to refuse.
type liftingRoundTripper struct {
	next http.RoundTripper
	max  int
}

func (t liftingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(nameTask(r))
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
		// On a watched stream, the watch's reader lifts too (events.go).
		stage := eventStage{rewrite: liftMessage, max: t.max}
		if rw, ok := resp.Body.(*eventRewriter); ok {
			rw.add(stage)
		} else {
			resp.Body = newEventRewriter(resp.Body, stage)
		}
	}
	return resp, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// liftMessage is the lift's stage of an eventRewriter: msg with its
// result lifted, or nil when there is nothing to lift.
func liftMessage(msg []byte) []byte {
	if lifted := mcptask.LiftResponse(msg); !bytes.Equal(lifted, msg) {
		return lifted
	}
	return nil
}
