package browser

import (
	"errors"
	"strings"
)

// Sentinels for the failures of the browser tools. A handler's error wraps
// one of them, or netguard.ErrBlocked (as a *netguard.BlockedError) for a
// page at an address the guard refuses; match it with errors.Is. The
// error's text, which the model reads, says what to change.
var (
	// ErrNoBrowser reports that no browser could be found or started.
	ErrNoBrowser = errors.New("browser: no browser")
	// ErrClosed reports a call after Browser.Close.
	ErrClosed = errors.New("browser: closed")
	// ErrCrashed reports a page, or the browser, that crashed during the
	// call: often a page over the memory limit. The next call starts a new
	// page, and a new browser if need be.
	ErrCrashed = errors.New("browser: crashed")
	// ErrLoad reports a page that did not load: a name that does not
	// resolve, a refused connection, an error status of the browser.
	ErrLoad = errors.New("browser: page did not load")
	// ErrElementNotFound reports a step whose selector matches no element.
	ErrElementNotFound = errors.New("browser: no element matches")
	// ErrBrowserTooLarge reports a screenshot over the size limit.
	ErrBrowserTooLarge = errors.New("browser: too large")
	// ErrScript reports a script step that threw, or a script step the
	// operator has not allowed.
	ErrScript = errors.New("browser: script")
)

// An opError is the failure of one operation of a tool, such as loading a
// page: its text is the package's prefix, the operation, then the cause
// with the prefix said once. It unwraps to the cause.
type opError struct {
	op  string // what was being done, such as "load https://example.com/"
	err error
}

func (e *opError) Error() string {
	return "browser: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "browser: ")
}

func (e *opError) Unwrap() error { return e.err }
