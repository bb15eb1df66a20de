package provider_test

import (
	"errors"
	"fmt"

	"github.com/hands-go/hands/provider"
)

// An adapter's error says what kind of failure it was, whichever provider
// answered.
func ExampleError() {
	// What anthropic.Model.Generate returns when the API is overloaded.
	err := fmt.Errorf("anthropic: claude-sonnet-5-5: %w",
		&provider.Error{Provider: "anthropic", StatusCode: 529, Code: "overloaded_error", Message: "Overloaded", Err: provider.Kind(529)})

	fmt.Println(errors.Is(err, provider.ErrUnavailable), errors.Is(err, provider.ErrRateLimit))
	if perr, ok := errors.AsType[*provider.Error](err); ok {
		fmt.Println(perr.StatusCode, perr.Code)
	}
	fmt.Println(err)
	// Output:
	// true false
	// 529 overloaded_error
	// anthropic: claude-sonnet-5-5: anthropic API: 529 Overloaded (overloaded_error): Overloaded
}
