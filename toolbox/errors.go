package toolbox

import (
	"errors"
	"strings"
)

// Sentinels for the refusals of the tools in this package. A handler's
// error wraps one of them; match it with errors.Is. The error's text, which
// the model reads, says what to change.
var (
	// ErrTooLarge reports content over a size limit: a file to host, or a
	// page to fetch.
	ErrTooLarge = errors.New("toolbox: too large")
	// ErrRedirect reports a redirect that fetch_markdown does not follow:
	// one too many, or to a scheme other than http and https.
	ErrRedirect = errors.New("toolbox: redirect not followed")
	// ErrContentType reports a response that is not a web page or text,
	// such as an image or a PDF.
	ErrContentType = errors.New("toolbox: unsupported content type")
	// ErrStatus reports a response whose HTTP status is not a success.
	ErrStatus = errors.New("toolbox: unsuccessful HTTP status")
	// ErrSymlink reports a key of a directory bucket that is, or lies
	// below, a symbolic link: host_file does not write through one, and
	// FileServer does not serve one.
	ErrSymlink = errors.New("toolbox: symbolic link not followed")
)

// An opError is the failure of one operation of a tool, such as fetching a
// page or uploading a file: its text is the package's prefix, the
// operation, then the cause with the prefix said once (the "toolbox: " of a
// sentinel of this package is dropped, as json v2's SemanticError drops the
// "jsontext: " of the error it holds). It unwraps to the cause.
type opError struct {
	op  string // what was being done, such as "fetch https://example.com/"
	err error
}

func (e *opError) Error() string {
	return "toolbox: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "toolbox: ")
}

func (e *opError) Unwrap() error { return e.err }
