package provider_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hands-go/hands/provider"
)

// sdkError stands in for a vendor SDK's own error type.
type sdkError struct{ status int }

func (e *sdkError) Error() string { return fmt.Sprintf("sdk: status %d", e.status) }

func TestError(t *testing.T) {
	for _, tt := range []struct {
		status int
		kind   error // nil: none of the sentinels
		text   string
	}{
		{400, provider.ErrInvalidRequest, "openai API: 400 Bad Request (code): message"},
		{401, provider.ErrAuth, "openai API: 401 Unauthorized (code): message"},
		{403, provider.ErrAuth, "openai API: 403 Forbidden (code): message"},
		{404, provider.ErrInvalidRequest, "openai API: 404 Not Found (code): message"},
		{408, provider.ErrUnavailable, "openai API: 408 Request Timeout (code): message"},
		{409, nil, "openai API: 409 Conflict (code): message"},
		{413, provider.ErrInvalidRequest, "openai API: 413 Request Entity Too Large (code): message"},
		{422, provider.ErrInvalidRequest, "openai API: 422 Unprocessable Entity (code): message"},
		{429, provider.ErrRateLimit, "openai API: 429 Too Many Requests (code): message"},
		{500, provider.ErrUnavailable, "openai API: 500 Internal Server Error (code): message"},
		{503, provider.ErrUnavailable, "openai API: 503 Service Unavailable (code): message"},
		{529, provider.ErrUnavailable, "openai API: 529 Overloaded (code): message"},
		{599, provider.ErrUnavailable, "openai API: 599 (code): message"},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			cause := &sdkError{tt.status}
			err := fmt.Errorf("openai: gpt: %w", &provider.Error{Provider: "openai", StatusCode: tt.status, Code: "code", Message: "message", Cause: cause, Err: provider.Kind(tt.status)})
			for _, kind := range []error{provider.ErrInvalidRequest, provider.ErrAuth, provider.ErrRateLimit, provider.ErrUnavailable} {
				if got, want := errors.Is(err, kind), kind == tt.kind; got != want {
					t.Errorf("errors.Is(%v, %v) = %v, want %v", err, kind, got, want)
				}
			}
			if got, ok := errors.AsType[*sdkError](err); !ok || got != cause {
				t.Errorf("errors.AsType[*sdkError](%v) = %v, %v; want the SDK's error", err, got, ok)
			}
			perr, ok := errors.AsType[*provider.Error](err)
			if !ok {
				t.Fatalf("errors.AsType[*provider.Error](%v) failed", err)
			}
			if got := perr.Error(); got != tt.text {
				t.Errorf("Error() = %q, want %q", got, tt.text)
			}
		})
	}
}

func TestErrorWithoutCode(t *testing.T) {
	err := &provider.Error{Provider: "gemini", StatusCode: 503, Err: provider.ErrUnavailable}
	if got, want := err.Error(), "gemini API: 503 Service Unavailable"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := err.Unwrap(); len(got) != 1 || got[0] != provider.ErrUnavailable {
		t.Errorf("Unwrap() = %v, want [ErrUnavailable]", got)
	}
}
