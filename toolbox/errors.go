package toolbox

import (
	"errors"
	"strings"
)

// Sentinels for the refusals of the tools under toolbox. A handler's error
// wraps one of them; match it with errors.Is. The error's text, which the
// model reads, says what to change.
var (
	// ErrTooLarge reports content over a size limit: a file to host, or a
	// page to fetch.
	ErrTooLarge = errors.New("toolbox: too large")
	// ErrRedirect reports a redirect that a tool does not follow: one too
	// many, or to a scheme other than http and https.
	ErrRedirect = errors.New("toolbox: redirect not followed")
	// ErrContentType reports content of a type a tool does not take: a
	// response that is not a web page or text, such as an image or a PDF,
	// or a file to host whose content type is not a MIME type.
	ErrContentType = errors.New("toolbox: unsupported content type")
	// ErrStatus reports a response whose HTTP status is not a success.
	ErrStatus = errors.New("toolbox: unsuccessful HTTP status")
	// ErrSymlink reports a key of a directory bucket that is, or lies
	// below, a symbolic link: package files does not write through one,
	// nor serve one.
	ErrSymlink = errors.New("toolbox: symbolic link not followed")
	// ErrInvalidKey reports a key that a file cannot be stored under: see
	// HostFunc for the rules.
	ErrInvalidKey = errors.New("toolbox: invalid key")
)

// An OpError is the failure of one operation of a tool, such as fetching a
// page or uploading a file. Its text is "toolbox: ", the operation, then
// the cause with that prefix said once (the "toolbox: " of a sentinel is
// dropped, as json v2's SemanticError drops the "jsontext: " of the error
// it holds). It unwraps to the cause, so errors.Is matches the sentinel
// the cause wraps.
type OpError struct {
	// Op is what was being done, such as "fetch https://example.com/" or
	// "upload reports/q1.html".
	Op string
	// Err is the cause.
	Err error
}

// Error returns "toolbox: Op: cause".
func (e *OpError) Error() string {
	return "toolbox: " + e.Op + ": " + strings.TrimPrefix(e.Err.Error(), "toolbox: ")
}

// Unwrap returns Err.
func (e *OpError) Unwrap() error { return e.Err }
