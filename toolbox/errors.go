package toolbox

import "errors"

// Sentinels for the refusals of the tools in this package. A handler's
// error wraps one of them; match it with errors.Is. The error's text, which
// the model reads, says what to change.
var (
	// ErrTooLarge reports content over a size limit: a file to host, or a
	// page to fetch.
	ErrTooLarge = errors.New("too large")
	// ErrBlocked reports a connection that the address guard of
	// fetch_markdown refused: the page, or a redirect, led to a loopback,
	// private, link-local or otherwise non-public address. The error is a
	// *BlockedError.
	ErrBlocked = errors.New("address not allowed")
	// ErrRedirect reports a redirect that fetch_markdown does not follow:
	// one too many, or to a scheme other than http and https.
	ErrRedirect = errors.New("redirect not followed")
	// ErrContentType reports a response that is not a web page or text,
	// such as an image or a PDF.
	ErrContentType = errors.New("unsupported content type")
	// ErrStatus reports a response whose HTTP status is not a success.
	ErrStatus = errors.New("unsuccessful HTTP status")
	// ErrSymlink reports a key of a directory bucket that is, or lies
	// below, a symbolic link: host_file does not write through one, and
	// FileServer does not serve one.
	ErrSymlink = errors.New("symbolic link not followed")
)
