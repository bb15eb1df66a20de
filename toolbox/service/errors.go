package service

import (
	"errors"
	"strings"
)

// Sentinels for the failures of the service tools. A tool's error wraps
// one of them; match it with errors.Is. The error's text, which the model
// reads, says what to change.
var (
	// ErrUnknownService reports a service name that is not configured.
	ErrUnknownService = errors.New("service: no such service")
	// ErrUnknownOperation reports an operation the service's document
	// does not have (or that a read-only service does not offer).
	ErrUnknownOperation = errors.New("service: no such operation")
	// ErrOperationUnsupported reports an operation call_service cannot send, such
	// as one whose body is neither JSON nor a form.
	ErrOperationUnsupported = errors.New("service: operation not supported")
	// ErrDocument reports an OpenAPI document that cannot be used: not
	// JSON, neither OpenAPI 3 nor Swagger 2.0, or with a schema that does
	// not compile.
	ErrDocument = errors.New("service: unusable OpenAPI document")
	// ErrDocumentBounds reports a document over a bound: MaxDocumentBytes,
	// MaxDocumentDepth, MaxReferencedDocuments or MaxOperations.
	ErrDocumentBounds = errors.New("service: OpenAPI document over a bound")
	// ErrRef reports a $ref to a document that is not read: another host,
	// a file outside the document's folder, another scheme.
	ErrRef = errors.New("service: $ref not followed")
	// ErrServiceTooLarge reports a request or response body over its limit.
	ErrServiceTooLarge = errors.New("service: too large")
	// ErrServiceRedirect reports a redirect that leaves the service's base URL,
	// or one too many.
	ErrServiceRedirect = errors.New("service: redirect not followed")
	// ErrServiceStatus reports a response whose HTTP status is not a success.
	ErrServiceStatus = errors.New("service: unsuccessful HTTP status")
)

// An opError is the failure of one thing done with a service: its text is
// the package's prefix, the service, the operation, then the cause with
// the prefix said once. It unwraps to the cause.
type opError struct {
	service string
	op      string
	err     error
}

func (e *opError) Error() string {
	return "service " + e.service + ": " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "service: ")
}

func (e *opError) Unwrap() error { return e.err }
