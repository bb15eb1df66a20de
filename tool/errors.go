package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hands-go/hands/schema"
)

// An Issue is one failure at one place in a call's arguments. It is the same
// type as schema.Issue.
type Issue = schema.Issue

// A ValidationError reports every way a call's arguments fail the tool's
// input schema, or the Validate methods of its input.
type ValidationError struct {
	Tool   string  // the tool whose arguments were rejected
	Issues []Issue // all of them, in document order, never just the first
}

// Error lists the issues, one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool %s: invalid arguments", e.Tool)
	for _, is := range e.Issues {
		b.WriteString("\n")
		b.WriteString(is.String())
	}
	return b.String()
}

// Unwrap returns the issues as a *schema.Error, so that a Validate method may
// return a *ValidationError and keep its paths.
func (e *ValidationError) Unwrap() error { return &schema.Error{Issues: e.Issues} }

// A PanicError is a panic in a handler (or in a Validate method), recovered.
// Its Stack is for logs; it never reaches the model.
type PanicError struct {
	Tool  string // the tool that panicked
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack where it panicked
}

// Error names the tool and the panic value, without the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %s panicked: %v", e.Tool, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// A CanceledError reports a call that its context ended: cancelled, or past
// its deadline. errors.Is matches it with context.Canceled or
// context.DeadlineExceeded.
type CanceledError struct {
	Tool  string // the tool called
	Cause error  // context.Cause of the call's context
}

// Error says whether the call was cancelled or timed out.
func (e *CanceledError) Error() string {
	if errors.Is(e.Cause, context.DeadlineExceeded) {
		return "tool " + e.Tool + ": timed out: " + e.Cause.Error()
	}
	return "tool " + e.Tool + ": cancelled: " + e.Cause.Error()
}

// Unwrap returns the cause.
func (e *CanceledError) Unwrap() error { return e.Cause }

// ModelText returns what a model is told about a failed call: the issues of a
// validation error with a request to fix them, a plain notice for a panic or
// a cancellation, and otherwise the error's own text.
func ModelText(tool string, err error) string {
	if verr, ok := errors.AsType[*ValidationError](err); ok {
		var b strings.Builder
		fmt.Fprintf(&b, "The arguments for %s are invalid:\n", tool)
		for _, is := range verr.Issues {
			b.WriteString("- ")
			b.WriteString(is.String())
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Fix these and call %s again.", tool)
		return b.String()
	}
	if _, ok := errors.AsType[*PanicError](err); ok {
		return "The tool " + tool + " failed with an internal error. Do not retry the same call."
	}
	if cerr, ok := errors.AsType[*CanceledError](err); ok {
		if errors.Is(cerr.Cause, context.DeadlineExceeded) {
			return "The call to " + tool + " timed out before it finished."
		}
		return "The call to " + tool + " was cancelled before it finished."
	}
	return err.Error()
}
