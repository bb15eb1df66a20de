package mcpclient

import (
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	// ErrToolRefused is matched by a *RefusedError.
	ErrToolRefused = errors.New("mcpclient: remote tool refused")
	// ErrDisconnected is matched by a *CallError whose session with the
	// server has ended: the server exited, closed the connection, or the
	// client was closed. It is an upstream failure: it matches
	// tool.ErrUpstream too.
	ErrDisconnected = fmt.Errorf("mcpclient: disconnected from the server: %w", tool.ErrUpstream)
	// ErrToolTooLarge is matched by a *SizeError of a tool definition
	// larger than Options.MaxToolBytes.
	ErrToolTooLarge = errors.New("mcpclient: tool definition too large")
	// ErrMessageTooLarge is matched by a *SizeError of a message from the
	// server larger than Options.MaxMessageBytes.
	ErrMessageTooLarge = errors.New("mcpclient: message from the server too large")
)

// A SizeError reports something the server sent that is over one of the
// client's bounds. Err says which: ErrToolTooLarge or ErrMessageTooLarge.
type SizeError struct {
	Bytes int   // its size, or as much of it as was read before the bound was passed
	Limit int   // the bound
	Err   error // ErrToolTooLarge or ErrMessageTooLarge
}

// Error says what is too large and what the bound is.
func (e *SizeError) Error() string {
	return fmt.Sprintf("%v: %d bytes, over the bound of %d", e.Err, e.Bytes, e.Limit)
}

// Unwrap returns Err.
func (e *SizeError) Unwrap() error { return e.Err }

// A RefusedError says why a remote tool is not offered: a name hands
// cannot take, a schema that does not compile or refers to other
// documents, two tools of one name, or a dialect's rejection (Reason then
// matches dialect.ErrRejected). It matches its Reason too.
type RefusedError struct {
	Server string // the server's name
	Tool   string // the tool's name on the server
	Reason error  // why
	Err    error  // ErrToolRefused
}

// Error names the server, the tool and the reason.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("mcpclient: %s: tool %q is left out: %v", e.Server, e.Tool, e.Reason)
}

// Unwrap returns Err and the reason.
func (e *RefusedError) Unwrap() []error { return []error{e.Err, e.Reason} }

// A CallError reports a call that the server did not answer with a
// result: the connection ended, the server answered with a JSON-RPC error,
// or its structured content broke the tool's output schema. It is the
// error of the call's result; the model reads its text. It matches
// tool.ErrUpstream, and its Cause.
type CallError struct {
	Server string // the server's name
	Tool   string // the tool's name on the server
	Cause  error  // the SDK's error, or what is wrong with the answer
	Err    error  // ErrDisconnected when the session has ended, otherwise tool.ErrUpstream
}

// callError returns the *CallError of a call whose server failed with
// cause, telling a session that has ended from other failures once, here.
func callError(server, remoteName string, cause error) *CallError {
	e := &CallError{Server: server, Tool: remoteName, Cause: cause, Err: tool.ErrUpstream}
	if disconnected(cause) {
		e.Err = ErrDisconnected
	}
	return e
}

// Error names the server, the tool and what went wrong.
func (e *CallError) Error() string {
	if e.Err == ErrDisconnected {
		return fmt.Sprintf("the MCP server %s is not connected, so %s did not run or its result was lost: %v", e.Server, e.Tool, e.Cause)
	}
	return fmt.Sprintf("the MCP server %s failed the call of %s: %v", e.Server, e.Tool, e.Cause)
}

// Unwrap returns Err and the cause.
func (e *CallError) Unwrap() []error { return []error{e.Err, e.Cause} }

// disconnected reports whether err says the session's connection ended,
// in one of the ways the SDK reports it: closed by either side, or its
// stream ended (a server that exited).
func disconnected(err error) bool {
	for _, end := range []error{mcp.ErrConnectionClosed, io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe, net.ErrClosed} {
		if errors.Is(err, end) {
			return true
		}
	}
	return false
}

// A ToolError is a remote tool's own failure: the server ran the call and
// answered with isError. Its text is the server's, which is what the model
// reads; like a local handler's own error, it matches no tool.Err…
// sentinel, since the call itself succeeded.
type ToolError struct {
	Server string              // the server's name
	Tool   string              // the tool's name on the server
	Text   string              // the result's content, as text
	Result *mcp.CallToolResult // the whole result
}

// Error returns the server's text.
func (e *ToolError) Error() string { return e.Text }
