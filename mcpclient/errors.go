package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/hands-go/hands/internal/mcpmeta"
	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/schema"
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
	// ErrAuthorization is matched by an *AuthorizationError: the
	// authorization server refused to authorize the client. When that
	// happens during a call (a step-up to a scope the call needs), the
	// call's *CallError matches it and tool.ErrUpstream.
	ErrAuthorization = errors.New("mcpclient: authorization refused")
	// ErrToolFailed is matched by a *ToolError: the remote tool ran and
	// failed, unless the server said that its arguments are invalid.
	ErrToolFailed = errors.New("mcpclient: the remote tool failed")
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
// documents, two tools of one name, a definition over
// Options.MaxToolBytes (Reason is then a *SizeError matching
// ErrToolTooLarge), or a dialect's rejection (Reason then matches
// dialect.ErrRejected). It matches its Reason too.
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
// reads. It matches ErrToolFailed and, like a local handler's own error, no
// tool.Err… sentinel, since the call itself succeeded — unless the server
// says the arguments are invalid: then it has Issues and matches
// tool.ErrInvalidArguments instead, so that a caller that retries failed
// calls (durable, say) knows the same arguments would fail again.
type ToolError struct {
	Server string              // the server's name
	Tool   string              // the tool's name on the server
	Text   string              // the result's content, as text
	Result *mcp.CallToolResult // the whole result
	// Issues are the ways the arguments are invalid, when the server
	// lists them in the result's _meta as a hands server does
	// (mcpserver.IssuesMeta), such as the issues of a Validate method
	// that the input schema cannot express; at most
	// schema.DefaultMaxIssues of them. Nil for any other failure.
	Issues []tool.Issue
	// Err is ErrToolFailed or, when the server listed Issues, a
	// *tool.ValidationError of them, which matches tool.ErrInvalidArguments
	// and which tool.ModelText words for the model as a local tool's,
	// under the name the model calls the tool by.
	Err error
}

// toolError returns the *ToolError of an isError result whose text is
// text, matching what the server says of it.
func toolError(server, remoteName, text string, res *mcp.CallToolResult) *ToolError {
	e := &ToolError{Server: server, Tool: remoteName, Text: text, Result: res, Issues: issuesOf(res), Err: ErrToolFailed}
	if len(e.Issues) > 0 {
		e.Err = &tool.ValidationError{Tool: remoteName, Issues: e.Issues, Err: tool.ErrInvalidArguments}
	}
	return e
}

// Error returns the server's text.
func (e *ToolError) Error() string { return e.Text }

// Unwrap returns Err.
func (e *ToolError) Unwrap() error { return e.Err }

// maxIssueText is how many bytes of an issue's path, keyword and message
// a ToolError keeps.
const maxIssueText = 300

// issuesOf returns the issues a server listed in an error result's _meta
// (mcpmeta.Issues, which mcpserver.IssuesMeta names), or nil when it
// listed none or they are not issues: each has a path that is a JSON
// Pointer, a keyword and a message. It keeps
// the first schema.DefaultMaxIssues, each on one line of at most
// maxIssueText bytes.
func issuesOf(res *mcp.CallToolResult) []tool.Issue {
	v, ok := res.Meta[mcpmeta.Issues]
	if !ok {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var issues []tool.Issue
	if json.Unmarshal(data, &issues) != nil {
		return nil
	}
	if len(issues) > schema.DefaultMaxIssues {
		issues = issues[:schema.DefaultMaxIssues]
	}
	for i, is := range issues {
		if is.Keyword == "" || is.Message == "" || (is.Path != "" && is.Path[0] != '/') {
			return nil
		}
		issues[i] = tool.Issue{Path: msgtext.Line(is.Path, maxIssueText), Keyword: msgtext.Line(is.Keyword, maxIssueText), Message: msgtext.Line(is.Message, maxIssueText)}
	}
	return issues
}

// An OAuthError reports OAuth settings that cannot work (HTTPWith) or a
// token store that failed.
type OAuthError struct {
	Server string // the server's endpoint
	Err    error  // why
}

// Error names the server and the reason.
func (e *OAuthError) Error() string {
	return fmt.Sprintf("mcpclient: OAuth for %s: %v", e.Server, e.Err)
}

// Unwrap returns the reason.
func (e *OAuthError) Unwrap() error { return e.Err }

// An AuthorizationError is the authorization server's refusal, as the
// redirect of the authorization code flow carries it (RFC 6749, section
// 4.1.2.1): the person declined, say. It is Connect's error when the
// refusal comes as the client connects, and the Cause of a call's
// *CallError when it comes as the server asks for more scope for one call.
type AuthorizationError struct {
	Code        string // error, such as "access_denied"
	Description string // error_description; may be empty
	Err         error  // ErrAuthorization
}

// Error returns the code and the description.
func (e *AuthorizationError) Error() string {
	if e.Description == "" {
		return "mcpclient: authorization refused: " + e.Code
	}
	return fmt.Sprintf("mcpclient: authorization refused: %s: %s", e.Code, e.Description)
}

// Unwrap returns Err.
func (e *AuthorizationError) Unwrap() error { return e.Err }
