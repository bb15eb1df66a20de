package search

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels for the ways a search fails once it reaches its backend. The
// error is a *BackendError that wraps one; match it with errors.Is.
var (
	// ErrSearchKey reports a key the backend refused (401 or 403).
	ErrSearchKey = errors.New("search: key refused")
	// ErrSearchRateLimited reports a backend that asks to slow down (429).
	ErrSearchRateLimited = errors.New("search: rate limited")
	// ErrSearchBackend reports a backend that failed or could not be
	// reached: a 5xx, another unexpected status, a refused connection.
	ErrSearchBackend = errors.New("search: backend failed")
	// ErrSearchResponse reports a response that is not the API's JSON.
	ErrSearchResponse = errors.New("search: malformed response")
	// ErrSearchTooLarge reports a response over Options.MaxBodyBytes.
	ErrSearchTooLarge = errors.New("search: response too large")
)

// A BackendError reports a search that failed at its backend: which
// backend, the HTTP status if one came, how long the backend asked to
// wait, and the setting an operator changes to fix it. Its text, which
// the model reads, never holds the key.
type BackendError struct {
	// Backend is the backend's name, such as "brave".
	Backend string
	// Status is the HTTP status of the response; 0 if none came.
	Status int
	// RetryAfter is how long the backend asked to wait before the next
	// request (Retry-After); 0 if it did not say.
	RetryAfter time.Duration
	// Setting names what an operator changes to fix a refused key, such as
	// BRAVE_API_KEY; empty for other failures.
	Setting string
	// Detail is what went wrong, for people and models, with any key
	// removed.
	Detail string
	// Err is one of the package's sentinels.
	Err error
}

// Error says what failed and what to do about it.
func (e *BackendError) Error() string {
	s := fmt.Sprintf("search: %s", e.Backend)
	if e.Status != 0 {
		s += fmt.Sprintf(" answered %d", e.Status)
	}
	s += ": " + e.Detail
	switch {
	case errors.Is(e.Err, ErrSearchKey):
		s += fmt.Sprintf("; the API key was refused: the operator must check %s", e.Setting)
	case errors.Is(e.Err, ErrSearchRateLimited) && e.RetryAfter > 0:
		s += fmt.Sprintf("; rate limited: retry after %s", e.RetryAfter)
	case errors.Is(e.Err, ErrSearchRateLimited):
		s += "; rate limited: wait before searching again"
	}
	return s
}

// Unwrap returns Err.
func (e *BackendError) Unwrap() error { return e.Err }
