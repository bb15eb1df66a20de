package mcpclient

import (
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	// ErrRefused is matched by a *RefusedError.
	ErrRefused = errors.New("mcpclient: remote tool refused")
	// ErrDisconnected is matched by a *CallError whose session with the
	// server has ended: the server exited, closed the connection, or the
	// client was closed.
	ErrDisconnected = errors.New("mcpclient: disconnected from the server")
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
// documents, two tools of one name, or a dialect's rejection (Err then
// matches dialect.ErrRejected). It matches ErrRefused.
type RefusedError struct {
	Server string // the server's name
	Tool   string // the tool's name on the server
	Err    error  // why
}

// Error names the server, the tool and the reason.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("mcpclient: %s: tool %q is left out: %v", e.Server, e.Tool, e.Err)
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Unwrap returns the reason.
func (e *RefusedError) Unwrap() error { return e.Err }

// A CallError reports a call that the server did not answer with a
// result: the connection ended (it then matches ErrDisconnected) or the
// server answered with a JSON-RPC error. It is the error of the call's
// result; the model reads its text.
type CallError struct {
	Server string // the server's name
	Tool   string // the tool's name on the server
	Err    error  // the SDK's error
}

// Error names the server, the tool and what went wrong.
func (e *CallError) Error() string {
	if e.Is(ErrDisconnected) {
		return fmt.Sprintf("the MCP server %s is not connected, so %s did not run or its result was lost: %v", e.Server, e.Tool, e.Err)
	}
	return fmt.Sprintf("the MCP server %s failed the call of %s: %v", e.Server, e.Tool, e.Err)
}

// Is reports whether target is ErrDisconnected and the session has ended.
func (e *CallError) Is(target error) bool {
	return target == ErrDisconnected && disconnected(e.Err)
}

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

// Unwrap returns the SDK's error.
func (e *CallError) Unwrap() error { return e.Err }

// A ToolError is a remote tool's own failure: the server ran the call and
// answered with isError. Its text is the server's, which is what the model
// reads, as for a local handler's error.
type ToolError struct {
	Server string              // the server's name
	Tool   string              // the tool's name on the server
	Text   string              // the result's content, as text
	Result *mcp.CallToolResult // the whole result
}

// Error returns the server's text.
func (e *ToolError) Error() string { return e.Text }
