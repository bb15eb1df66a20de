package tool

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/internal/editdist"
	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/schema"
)

// An Issue is one failure at one place in a call's arguments. It is the same
// type as schema.Issue.
type Issue = schema.Issue

// The kinds of call failure. Every error that Drain, Run, Stream, Call and
// CallJSON produce themselves matches one of them with errors.Is, and
// carries its detail in a type that errors.AsType reaches, as json v2's
// errors do: each detail type names the tool and the call in fields called
// Tool and CallID, and holds its sentinel in a field called Err, which
// Unwrap returns (with the cause, when there is one). A handler's own error
// is passed on as it is.
var (
	// ErrUnknownTool is matched by an *UnknownToolError.
	ErrUnknownTool = errors.New("tool: unknown tool")
	// ErrDisabled is matched by a *DisabledToolError.
	ErrDisabled = errors.New("tool: tool not enabled")
	// ErrInvalidArguments is matched by a *ValidationError.
	ErrInvalidArguments = errors.New("tool: invalid arguments")
	// ErrDenied is matched by a *DeniedError.
	ErrDenied = errors.New("tool: call denied")
	// ErrPanicked is matched by a *PanicError.
	ErrPanicked = errors.New("tool: handler panicked")
	// ErrTimedOut is matched by a *TimeoutError.
	ErrTimedOut = errors.New("tool: call timed out")
	// ErrCanceled is matched by a *CanceledError.
	ErrCanceled = errors.New("tool: call cancelled")
	// ErrNoResult is matched by a *NoResultError.
	ErrNoResult = errors.New("tool: the middleware ended the call without a result")
	// ErrUpstream is matched by the failures of a tool that stands for a
	// tool of another system (a remote MCP server's, say) when that system
	// could not answer: the connection ended, or the answer broke the
	// protocol or the tool's output schema. What the other tool itself
	// reports as a failure is its own error, as a handler's is.
	ErrUpstream = errors.New("tool: the upstream system failed the call")
)

// A ValidationError reports every way a call's arguments fail the tool's
// input schema, or the Validate methods of its input.
type ValidationError struct {
	Tool   string  // the tool whose arguments were rejected
	CallID string  // the call's ID; empty in a direct call without one
	Issues []Issue // all of them, in document order, never just the first
	Err    error   // ErrInvalidArguments
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

// Unwrap returns Err.
func (e *ValidationError) Unwrap() error { return e.Err }

// A PanicError is a panic in a handler (or in a Validate method, or in
// middleware), recovered. Its Stack is for logs; it never reaches the model.
type PanicError struct {
	Tool   string // the tool that panicked
	CallID string // the call's ID
	Value  any    // the value passed to panic
	Stack  []byte // the goroutine's stack where it panicked
	Err    error  // ErrPanicked
}

// Error names the tool and the panic value, without the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("tool %s panicked: %v", e.Tool, e.Value)
}

// Unwrap returns Err, and the panic value when it is an error.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{e.Err, err}
	}
	return []error{e.Err}
}

// A CanceledError reports a call whose caller's context ended before it
// finished: cancelled, or past the caller's own deadline. Through its Cause
// it also matches context.Canceled or context.DeadlineExceeded. A call that
// ran past the tool's own timeout is a *TimeoutError instead.
type CanceledError struct {
	Tool   string // the tool called
	CallID string // the call's ID
	Cause  error  // context.Cause of the caller's context
	Err    error  // ErrCanceled
}

// Error says the call was cancelled, and why.
func (e *CanceledError) Error() string {
	return "tool " + e.Tool + ": cancelled: " + e.Cause.Error()
}

// Unwrap returns Err and the cause.
func (e *CanceledError) Unwrap() []error { return []error{e.Err, e.Cause} }

// A TimeoutError reports a call that ran past the tool's timeout (see
// WithTimeout). The call ended at the deadline whatever its handler did. It
// also matches context.DeadlineExceeded.
type TimeoutError struct {
	Tool    string        // the tool called
	CallID  string        // the call's ID
	Timeout time.Duration // the tool's timeout
	Err     error         // ErrTimedOut
}

// Error names the tool and the timeout.
func (e *TimeoutError) Error() string {
	return "tool " + e.Tool + ": timed out after " + e.Timeout.String()
}

// Unwrap returns Err and context.DeadlineExceeded, the deadline's own
// error.
func (e *TimeoutError) Unwrap() []error { return []error{e.Err, context.DeadlineExceeded} }

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
	if _, ok := errors.AsType[*TimeoutError](err); ok {
		return "The call to " + tool + " timed out before it finished."
	}
	if cerr, ok := errors.AsType[*CanceledError](err); ok {
		if errors.Is(cerr.Cause, context.DeadlineExceeded) {
			return "The call to " + tool + " timed out before it finished."
		}
		return "The call to " + tool + " was cancelled before it finished."
	}
	if uerr, ok := errors.AsType[*UnknownToolError](err); ok {
		var b strings.Builder
		fmt.Fprintf(&b, "There is no tool named %s.", msgtext.Quote(uerr.Tool, maxNameShown))
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
		return fmt.Sprintf("The tool %q is not available now; do not call it again on this turn.", derr.Tool)
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
	Tool      string   // the name called
	CallID    string   // the call's ID
	Available []string // the tools enabled when the call arrived, in order
	Err       error    // ErrUnknownTool
}

// Error names the unknown tool.
func (e *UnknownToolError) Error() string {
	return "tool: no tool named " + msgtext.Quote(e.Tool, maxNameShown)
}

// maxNameShown is the longest name, in runes, that a message repeats: a
// model may call a name of any length, and only a name that could be a
// tool's (64 characters at most) is worth repeating whole.
const maxNameShown = 80

// Unwrap returns Err.
func (e *UnknownToolError) Unwrap() error { return e.Err }

// closest returns the available name nearest to the one called, if any is
// near enough to be a likely typo. A name is compared only with the names
// whose length is within the best distance so far (the edit distance is at
// least the difference of the lengths), so a long name costs no more than
// reading it once per tool.
func (e *UnknownToolError) closest() string {
	best, bestDist := "", len(e.Tool)/2+2
	called := ""
	for _, name := range e.Available {
		if len(name) <= len(e.Tool)-bestDist || len(name) >= len(e.Tool)+bestDist {
			continue
		}
		if called == "" {
			called = strings.ToLower(e.Tool)
		}
		if d := editdist.Distance(called, strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// A DisabledToolError reports a call to a tool that exists but is not
// enabled now, such as a stale call from an earlier turn.
type DisabledToolError struct {
	Tool   string // the tool called
	CallID string // the call's ID
	Err    error  // ErrDisabled
}

// Error names the disabled tool.
func (e *DisabledToolError) Error() string {
	return fmt.Sprintf("tool: %s is not enabled now", e.Tool)
}

// Unwrap returns Err.
func (e *DisabledToolError) Unwrap() error { return e.Err }

// A DeniedError reports a call that middleware refused to run, such as an
// approval hook whose policy or human said no. It also matches its Reason.
type DeniedError struct {
	Tool   string // the tool called
	CallID string // the call's ID
	Reason error  // why; its text reaches the model
	Err    error  // ErrDenied
}

// Error names the tool and the reason.
func (e *DeniedError) Error() string {
	return "tool " + e.Tool + ": denied: " + e.Reason.Error()
}

// Unwrap returns Err and the reason.
func (e *DeniedError) Unwrap() []error { return []error{e.Err, e.Reason} }

// A NoResultError reports a call whose handler's stream ended without a
// result: middleware that returned without yielding one.
type NoResultError struct {
	Tool   string // the tool called
	CallID string // the call's ID
	Err    error  // ErrNoResult
}

// Error names the tool.
func (e *NoResultError) Error() string {
	return "tool " + e.Tool + ": the call ended without a result"
}

// Unwrap returns Err.
func (e *NoResultError) Unwrap() error { return e.Err }

// A DefinitionError reports a mistake in a tool's definition: an invalid
// name, an empty description, a nil handler, an input type that cannot
// describe JSON arguments (Err is then a *schema.DefinitionError naming the
// type, the field and the tag), an example the tool's validator refuses
// (an *ExampleError), or an option that does not apply. New and NewRaw
// panic with it; Define and DefineRaw return it.
type DefinitionError struct {
	Tool string // the name the tool was given
	Err  error  // what is wrong
}

// Error names the tool and the mistake.
func (e *DefinitionError) Error() string {
	return msgtext.Definition("tool", []string{"tool " + strconv.Quote(e.Tool)}, e.Err)
}

// Unwrap returns Err.
func (e *DefinitionError) Unwrap() error { return e.Err }

// quoteList quotes names and joins them with commas.
func quoteList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return strings.Join(quoted, ", ")
}
