package tool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hands-go/hands/internal/editdist"
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
		return validationText(tool, verr.Issues)
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
	if uerr, ok := errors.AsType[*UnknownToolError](err); ok {
		var b strings.Builder
		fmt.Fprintf(&b, "There is no tool named %q.", uerr.Name)
		if best := uerr.closest(); best != "" {
			fmt.Fprintf(&b, " Did you mean %q?", best)
		}
		if len(uerr.Available) == 0 {
			b.WriteString(" No tools are available now.")
		} else {
			b.WriteString(" The tools available now are: " + quoteList(uerr.Available) + ".")
		}
		return b.String()
	}
	if derr, ok := errors.AsType[*DisabledToolError](err); ok {
		return fmt.Sprintf("The tool %q is not available now; do not call it again on this turn.", derr.Name)
	}
	if derr, ok := errors.AsType[*DeniedError](err); ok {
		return fmt.Sprintf("The call to %s was not run: %s", derr.Tool, derr.Reason.Error())
	}
	return err.Error()
}

// validationText lists the issues for the model, one per line, written into
// one buffer of the right size.
func validationText(tool string, issues []Issue) string {
	const head, tail = "The arguments for  are invalid:\n", "Fix these and call  again."
	size := len(head) + len(tail) + 2*len(tool)
	for _, is := range issues {
		size += len("- ") + len(is.Path) + len("(root)") + len(": ") + len(is.Message) + len("\n")
	}
	b := make([]byte, 0, size)
	b = append(append(append(b, "The arguments for "...), tool...), " are invalid:\n"...)
	for _, is := range issues {
		b = is.Append(append(b, "- "...))
		b = append(b, '\n')
	}
	b = append(append(append(b, "Fix these and call "...), tool...), " again."...)
	return string(b)
}

// ErrorResult returns the error result of call for err: IsError set, Err the
// error, and Content what ModelText tells the model. Middleware uses it to
// answer a call itself.
func ErrorResult(call Call, err error) Result {
	return Result{CallID: call.ID, Tool: call.Name, Content: ModelText(call.Name, err), IsError: true, Err: err}
}

// An UnknownToolError reports a call to a name no scope provides.
type UnknownToolError struct {
	Name      string   // the name called
	Available []string // the tools enabled when the call arrived, in order
}

// Error names the unknown tool.
func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("tool: no tool named %q", e.Name)
}

// closest returns the available name nearest to the one called, if any is
// near enough to be a likely typo.
func (e *UnknownToolError) closest() string {
	best, bestDist := "", len(e.Name)/2+2
	for _, name := range e.Available {
		if d := editdist.Distance(strings.ToLower(e.Name), strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// A DisabledToolError reports a call to a tool that exists but is not
// enabled now, such as a stale call from an earlier turn.
type DisabledToolError struct {
	Name string // the tool called
}

// Error names the disabled tool.
func (e *DisabledToolError) Error() string {
	return fmt.Sprintf("tool: %s is not enabled now", e.Name)
}

// A DeniedError reports a call that middleware refused to run, such as an
// approval hook whose policy or human said no.
type DeniedError struct {
	Tool   string // the tool called
	Reason error  // why; its text reaches the model
}

// Error names the tool and the reason.
func (e *DeniedError) Error() string {
	return "tool " + e.Tool + ": denied: " + e.Reason.Error()
}

// Unwrap returns the reason.
func (e *DeniedError) Unwrap() error { return e.Reason }

// quoteList quotes names and joins them with commas.
func quoteList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(quoted, ", ")
}
