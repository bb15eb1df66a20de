package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineLength is the longest line a StdioTransport reads: 16 MiB,
// as in the SDK's own stdio transport.
const DefaultMaxLineLength = mcpwire.DefaultMaxLineBytes

// A StdioTransport serves one session over newline-delimited JSON-RPC, for a
// server that a client starts as a process, with the framing that
// mcpclient's CommandTransport reads a server's output with: one line
// reader, one limit, one error for a line over it. Unlike the SDK's stdio
// transport, a malformed line does not end the session: it is answered with
// a JSON-RPC parse error (or an invalid-request error, for JSON that is not
// a JSON-RPC message, a batch, or a line over the limit), and reading goes
// on. At the end of the input, the requests already read are answered
// before the session ends.
//
// The answer to a line that holds no message bears the ID found in the
// line's first 4 KiB, so that the client fails that call alone (the SDK's
// client ends its session on a response without a valid ID). The ID of a
// request gets the error; the ID of a response, the client's answer to a
// request of the server's, makes the error that request's answer, and
// the client gets nothing back. A line whose start shows no ID, or not
// whether it is a request or a response, is answered with "id": null.
type StdioTransport struct {
	// Reader is where requests come from; nil means os.Stdin.
	Reader io.Reader
	// Writer is where responses go; nil means os.Stdout.
	Writer io.Writer
	// MaxLineLength is the longest line read. Zero selects
	// DefaultMaxLineLength.
	MaxLineLength int
}

// Connect implements mcp.Transport. It starts a goroutine that reads the
// input; the goroutine ends at the end of the input, or when the connection
// is closed and the read under way returns.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	r, w := t.Reader, t.Writer
	if r == nil {
		r = os.Stdin
	}
	if w == nil {
		w = os.Stdout
	}
	c := &stdioConn{w: w, inbox: jsonrpcwire.NewInbox()}
	go c.readLines(mcpwire.NewLineReader(r, t.MaxLineLength))
	return c, nil
}

// A stdioConn is the connection of a StdioTransport.
type stdioConn struct {
	writeMu sync.Mutex // one message per line, whole
	w       io.Writer

	inbox *jsonrpcwire.Inbox
}

// readLines reads messages, one a line, and hands them to Read. It answers
// a line that holds no message itself.
func (c *stdioConn) readLines(lines *mcpwire.LineReader) {
	for {
		line, err := lines.Next()
		var msg jsonrpc.Message
		var rerr *jsonrpc.Response
		switch {
		case errors.Is(err, mcpwire.ErrLineTooLong):
			msg, rerr = decodeLine(line, true, lines.Limit())
		case err != nil:
			c.inbox.Hand(nil, err)
			return
		default:
			msg, rerr = decodeLine(line, false, lines.Limit())
		}
		if rerr != nil {
			if c.writeLine(rerr) != nil {
				return
			}
		} else if msg != nil && !c.inbox.Hand(msg, nil) {
			return
		}
	}
}

// decodeLine decodes one line into a message, or returns the error
// response that answers it. Of a line too long, line is the start.
func decodeLine(line []byte, tooLong bool, limit int) (jsonrpc.Message, *jsonrpc.Response) {
	if tooLong {
		return refuse(line, jsonrpc.CodeInvalidRequest, "%v", &mcpwire.LineError{Limit: limit, Err: mcpwire.ErrLineTooLong})
	}
	msg, err := mcpwire.DecodeLine(line)
	switch {
	case err == nil:
		return msg, nil
	case errors.Is(err, mcpwire.ErrNotJSON):
		return refuse(line, jsonrpc.CodeParseError, "%v", err)
	default:
		return refuse(line, jsonrpc.CodeInvalidRequest, "%v", err)
	}
}

// refuse returns what answers a line that holds no message, given the
// line's start, head: the ID and kind jsonrpcwire.Head finds there decide.
//
//   - A request with an ID is answered with an error response of that ID,
//     so that the client fails that call and its session goes on.
//   - A response with an ID (the client's answer to a request of the
//     server's, such as an elicitation) is not answered: the error takes
//     its place, handed to the server as the client's answer, so that the
//     request fails now rather than waits for its context to end.
//     Answering it would give the client a response to a request of its
//     own that bears the ID.
//   - Anything else is answered with "id": null, as JSON-RPC requires.
func refuse(head []byte, code int64, format string, args ...any) (jsonrpc.Message, *jsonrpc.Response) {
	id, kind := jsonrpcwire.Head(head)
	resp := &jsonrpc.Response{Error: &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}}
	switch {
	case id.IsValid() && kind == jsonrpcwire.Request:
		resp.ID = id
	case id.IsValid() && kind == jsonrpcwire.Response:
		resp.ID = id
		return resp, nil
	}
	return nil, resp
}

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	return c.inbox.Read(ctx)
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.writeLine(msg)
}

func (c *stdioConn) writeLine(msg jsonrpc.Message) error {
	data, err := mcpwire.EncodeLine(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.inbox.Closed():
		return errors.New("mcpserver: connection closed")
	default:
	}
	_, err = c.w.Write(data)
	return err
}

// Close implements mcp.Connection. It closes neither the reader nor the
// writer, which belong to the caller.
func (c *stdioConn) Close() error {
	c.inbox.Close()
	return nil
}

// SessionID implements mcp.Connection; a stdio session has no ID.
func (c *stdioConn) SessionID() string { return "" }
