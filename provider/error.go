package provider

import (
	"errors"
	"fmt"
	"net/http"
)

// The kinds of API failure. An [*Error] matches at most one of them with
// errors.Is: its Err, chosen by its HTTP status (see Kind).
var (
	// ErrInvalidRequest matches a request the API rejected as malformed:
	// status 400, 404, 413 or 422. Sending it again will fail again.
	ErrInvalidRequest = errors.New("provider: invalid request")
	// ErrAuth matches a missing, wrong or insufficient credential: status
	// 401 or 403.
	ErrAuth = errors.New("provider: not authorized")
	// ErrRateLimit matches a request refused for exceeding a rate limit or a
	// quota: status 429.
	ErrRateLimit = errors.New("provider: rate limited")
	// ErrUnavailable matches a failure on the provider's side that may pass:
	// status 408, any 5xx, and Anthropic's 529 (overloaded).
	ErrUnavailable = errors.New("provider: unavailable")
)

// An Error is an error status from a provider's API.
type Error struct {
	// Provider names the API: "openai", "anthropic" or "gemini".
	Provider string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code is the provider's machine-readable kind of error, such as
	// "rate_limit_exceeded", "overloaded_error" or "RESOURCE_EXHAUSTED";
	// it may be empty.
	Code string
	// Message is the provider's explanation, for people; never match on it.
	Message string
	// Cause is the SDK's own error.
	Cause error
	// Err is the kind of failure, Kind(StatusCode): ErrInvalidRequest,
	// ErrAuth, ErrRateLimit, ErrUnavailable, or nil for a status of no
	// known kind.
	Err error
}

// Error gives the status, the code and the message.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s API: %d", e.Provider, e.StatusCode)
	text := http.StatusText(e.StatusCode)
	if e.StatusCode == 529 {
		text = "Overloaded"
	}
	if text != "" {
		s += " " + text
	}
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns Err and the SDK's error, so that both
// errors.Is(err, ErrRateLimit) and errors.As into the SDK's type work.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// Kind returns the sentinel for an HTTP status: ErrInvalidRequest,
// ErrAuth, ErrRateLimit, ErrUnavailable, or nil for a status of no known
// kind.
func Kind(status int) error {
	switch {
	case status == http.StatusBadRequest, status == http.StatusNotFound,
		status == http.StatusRequestEntityTooLarge, status == http.StatusUnprocessableEntity:
		return ErrInvalidRequest
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ErrAuth
	case status == http.StatusTooManyRequests:
		return ErrRateLimit
	case status == http.StatusRequestTimeout, status >= 500 && status <= 599:
		return ErrUnavailable
	}
	return nil
}
