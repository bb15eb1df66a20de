package mail

import (
	"errors"
	"strings"
)

// Sentinels for the refusals of the tools in this package. A handler's
// error wraps one of them; match it with errors.Is. The error's text, which
// the model reads, says what to change.
var (
	// ErrRecipient reports a recipient that the operator's allowlist
	// (SendOptions.Allow) does not name.
	ErrRecipient = errors.New("mail: recipient not allowed")
	// ErrMailTooLarge reports a message over a size limit, or more
	// attachments than allowed.
	ErrMailTooLarge = errors.New("mail: too large")
	// ErrAttachment reports an attachment that cannot be had: no such
	// key, or no store of attachments configured.
	ErrAttachment = errors.New("mail: attachment not found")
	// ErrNoMessage reports a UID that names no message of the folder.
	ErrNoMessage = errors.New("mail: no such message")
	// ErrServer reports a mail server that refused or failed: its
	// connection, TLS, sign-in or a command. The server's own words follow.
	ErrServer = errors.New("mail: server failed")
)

// An opError is the failure of one operation of a tool, such as sending a
// message or reading one: its text is the package's prefix, the operation,
// then the cause with the prefix said once. It unwraps to the cause, and to
// ErrServer when the server failed.
type opError struct {
	op     string // what was being done, such as "send the message"
	err    error
	server bool // the server refused or failed
}

func (e *opError) Error() string {
	return "mail: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "mail: ")
}

func (e *opError) Unwrap() []error {
	if e.server {
		return []error{e.err, ErrServer}
	}
	return []error{e.err}
}
