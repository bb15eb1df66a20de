package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxLineBytes is the longest line a LineReader reads unless told
// otherwise: 16 MiB, as the SDK's stdio transports (mcp.DefaultMaxLineLength).
const DefaultMaxLineBytes = 16 << 20

var (
	// ErrLineTooLong is what a *LineError matches for a line, or a
	// message over several lines, longer than a LineReader's limit.
	ErrLineTooLong = errors.New("mcpwire: a line is over the limit")
	// ErrNotJSON is what a *LineError matches for a line that is not one
	// JSON value: a server answers it with a parse error.
	ErrNotJSON = errors.New("mcpwire: the line is not valid JSON")
	// ErrBatch is what a *LineError matches for a batch (a JSON array),
	// which protocol versions from 2025-06-18 do not allow.
	ErrBatch = errors.New("mcpwire: the line is a batch, which this protocol does not allow")
	// ErrInvalidMessage is what a *LineError matches for JSON that is not
	// a JSON-RPC message.
	ErrInvalidMessage = errors.New("mcpwire: the line is not a JSON-RPC message")
)

// A LineError reports a line of a stdio connection that holds no message.
// Its text is what a server answers such a line with.
type LineError struct {
	Limit  int   // the limit, for ErrLineTooLong
	Reason error // why, for ErrInvalidMessage
	Err    error // ErrLineTooLong, ErrNotJSON, ErrBatch or ErrInvalidMessage
}

// Error says what is wrong with the line, as a server answers it.
func (e *LineError) Error() string {
	switch e.Err {
	case ErrLineTooLong:
		return fmt.Sprintf("the line is over the limit of %d bytes", e.Limit)
	case ErrNotJSON:
		return "parse error: the line is not valid JSON"
	case ErrBatch:
		return "batches are not supported; send one message a line"
	case ErrInvalidMessage:
		return fmt.Sprintf("invalid message: %v", e.Reason)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// DecodeLine decodes line, one line of a stdio connection with the white
// space around it trimmed, into a *jsonrpc.Request or a
// *jsonrpc.Response, as jsonrpcwire.Decode does. When it holds no
// message, the error is a *LineError that says why: it matches ErrNotJSON,
// ErrBatch or ErrInvalidMessage.
//
// Decode refuses whatever is not one message, so the line is checked for
// JSON, and for a batch, only when it fails: a message is read in one
// pass.
func DecodeLine(line []byte) (jsonrpc.Message, error) {
	msg, err := jsonrpcwire.Decode(line)
	switch {
	case err == nil:
		return msg, nil
	case !json.Valid(line):
		return nil, &LineError{Err: ErrNotJSON}
	case line[0] == '[':
		return nil, &LineError{Err: ErrBatch}
	default:
		return nil, &LineError{Reason: err, Err: ErrInvalidMessage}
	}
}

// EncodeLine encodes msg, followed by the line break that ends it on a
// stdio connection: see jsonrpcwire.EncodeLine.
func EncodeLine(msg jsonrpc.Message) ([]byte, error) { return jsonrpcwire.EncodeLine(msg) }

// keepBytes is the largest buffer a LineReader keeps between lines: one
// that grew past it for a long line is let go once the line is read.
const keepBytes = 64 << 10

// A LineReader reads the lines of a stdio connection, each up to a limit:
// the one framing of MCP over stdio, which mcpserver's StdioTransport and
// mcpclient's CommandTransport both read with. A line ends at a line feed
// (a carriage return before it is white space) or at the end of the
// input. A LineReader holds one line at a time, and reads from its source
// no more than the limit and one byte of a line (that byte tells a line
// that ends at the limit from one that goes on).
type LineReader struct {
	src   io.Reader
	limit int
	buf   []byte
	r, w  int   // buf[r:w] is read and not yet handed out
	err   error // the source's error, once it returned one
	skip  bool  // the line at r is over the limit: drop it to its end

	joined []byte // a message over several lines (Message)
}

// NewLineReader returns a LineReader of src whose lines may be up to limit
// bytes long, line break excluded; a limit of zero or below selects
// DefaultMaxLineBytes.
func NewLineReader(src io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	return &LineReader{src: src, limit: limit}
}

// Limit returns the longest line l reads.
func (l *LineReader) Limit() int { return l.limit }

// Next returns the next line that holds anything but white space, with
// the white space around it trimmed. The line is valid until the next
// call. At a line over the limit it returns the line's first bytes, the
// limit and one or jsonrpcwire.HeadBytes, whichever is fewer (for
// jsonrpcwire.Head to find its ID in), and a *LineError; the next call
// reads on after that line's end. At the end of
// the input it returns io.EOF, or the error that ended it.
func (l *LineReader) Next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(l.buf[l.r:l.w], '\n'); i >= 0 {
			line := l.buf[l.r : l.r+i]
			l.r += i + 1
			if l.skip {
				l.skip = false
				continue
			}
			if len(line) > l.limit {
				return line[:min(len(line), l.limit+1, jsonrpcwire.HeadBytes)], &LineError{Limit: l.limit, Err: ErrLineTooLong}
			}
			if line = bytes.Trim(line, " \t\r"); len(line) > 0 {
				return line, nil
			}
			continue
		}
		if l.skip {
			l.r, l.w = 0, 0
		} else if l.w-l.r > l.limit {
			head := l.buf[l.r : l.r+min(l.limit+1, jsonrpcwire.HeadBytes)]
			l.r, l.skip = l.w, true
			return head, &LineError{Limit: l.limit, Err: ErrLineTooLong}
		}
		if l.err != nil {
			line := bytes.Trim(l.buf[l.r:l.w], " \t\r")
			l.r = l.w
			if len(line) > 0 && !l.skip {
				return line, nil // the last line, without its line break
			}
			return nil, l.err
		}
		l.fill()
	}
}

// fill reads from the source into buf, after what it holds: no more than
// the limit and one byte of the line at r.
func (l *LineReader) fill() {
	if l.r == l.w && cap(l.buf) > keepBytes {
		l.buf, l.r, l.w = nil, 0, 0 // let go of a long line's buffer
	}
	want := l.limit + 1 - (l.w - l.r)
	if l.skip {
		want = keepBytes
	}
	if len(l.buf)-l.w < min(want, 4<<10) {
		if l.r > 0 {
			l.w = copy(l.buf, l.buf[l.r:l.w])
			l.r = 0
		}
		if len(l.buf)-l.w < min(want, 4<<10) {
			grown := make([]byte, min(max(2*len(l.buf), 4<<10), l.w+want))
			copy(grown, l.buf[:l.w])
			l.buf = grown
		}
	}
	n, err := l.src.Read(l.buf[l.w:min(len(l.buf), l.w+want)])
	l.w += n
	if err != nil {
		l.err = err
	}
}

// Message returns the next message of a server's output, as a client
// reads it: a line, or, when a line ends inside a JSON object or array,
// the line joined with the lines that complete it, as the SDK's client
// transport reads a message split over lines. (A server answers each line
// on its own: see mcpserver's StdioTransport.) A message over the limit,
// on one line or several, returns a *LineError; a line or lines that hold
// no message return DecodeLine's error, or io.ErrUnexpectedEOF when the
// input ends inside one.
func (l *LineReader) Message() (jsonrpc.Message, error) {
	line, err := l.Next()
	if err != nil {
		return nil, err
	}
	msg, err := DecodeLine(line)
	if err == nil || !errors.Is(err, ErrNotJSON) {
		return msg, err
	}
	var s openScan
	if !s.scan(line) {
		return nil, err
	}
	l.joined = append(l.joined[:0], line...)
	for {
		line, err := l.Next()
		switch {
		case errors.Is(err, ErrLineTooLong):
			return nil, err
		case err == io.EOF:
			return nil, io.ErrUnexpectedEOF
		case err != nil:
			return nil, err
		case len(l.joined)+1+len(line) > l.limit:
			return nil, &LineError{Limit: l.limit, Err: ErrLineTooLong}
		}
		l.joined = append(l.joined, '\n')
		l.joined = append(l.joined, line...)
		if !s.scan(line) {
			break
		}
	}
	if cap(l.joined) > keepBytes {
		defer func() { l.joined = nil }()
	}
	return DecodeLine(l.joined)
}

// An openScan follows the objects and arrays open across the lines of a
// message, one line at a time, so that a message over many lines is
// scanned once.
type openScan struct {
	depth int
}

// scan scans line, the next line of a message, and reports whether the
// message goes on after it: an object or array is still open, and nothing
// so far is out of place for the lines to join into a message (a string
// that a line break ends, a closing bracket too many).
func (s *openScan) scan(line []byte) bool {
	inString, escaped := false, false
	for _, b := range line {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch b {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			s.depth++
		case b == '}' || b == ']':
			if s.depth--; s.depth < 0 {
				return false
			}
		}
	}
	return s.depth > 0 && !inString
}
