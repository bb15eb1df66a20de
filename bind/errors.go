package bind

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/hands-go/hands/internal/msgtext"
)

// Sentinels for the kinds of Problem. Match them with errors.Is, on a
// Problem or on the *Error that holds it.
var (
	// ErrMissing reports a required binding with no value: not in the
	// environment, not in the config file, and without a default.
	ErrMissing = errors.New("bind: missing")
	// ErrInvalid reports a value that does not parse as the field's type, or
	// a bucket URL that does not open.
	ErrInvalid = errors.New("bind: invalid value")
	// ErrUnknown reports a name in the config file that no field binds,
	// usually a misspelling.
	ErrUnknown = errors.New("bind: unknown name")
	// ErrUnfilled is matched by an *Error: Load left bindings unfilled.
	ErrUnfilled = errors.New("bind: bindings left unfilled")
)

// An Error reports every binding that Load could not fill, all at once, so
// that one look at it is enough to fix a deployment.
type Error struct {
	// Problems lists each missing or invalid binding, in field order, then
	// each unknown name in the config file, sorted.
	Problems []Problem
	Err      error // ErrUnfilled
}

// Error lists the problems, one per line after a count.
func (e *Error) Error() string {
	var b strings.Builder
	if len(e.Problems) == 1 {
		b.WriteString("bind: 1 problem")
	} else {
		fmt.Fprintf(&b, "bind: %d problems", len(e.Problems))
	}
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.text())
	}
	return b.String()
}

// Unwrap returns Err and the problems, so that errors.Is(err,
// ErrUnfilled), errors.Is(err, ErrMissing) and errors.AsType[Problem](err)
// see them.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 1+len(e.Problems))
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	for _, p := range e.Problems {
		errs = append(errs, p)
	}
	return errs
}

// A Problem is one binding that could not be filled.
type Problem struct {
	// Name is the binding's name from its tag, such as "BUCKET", without the
	// Options.Prefix.
	Name string
	// Field is the Go field, such as "Env.Bucket"; empty for an unknown name
	// in the config file.
	Field string
	// Source says where the rejected value came from, such as
	// "environment variable APP_BUCKET", "config file hands.json" or
	// "default"; empty when there was no value.
	Source string
	// Err wraps ErrMissing, ErrInvalid or ErrUnknown, and the cause of an
	// invalid value. Its text never holds the value of a Secret.
	Err error
}

// Error names the binding and the field, then says what is wrong.
func (p Problem) Error() string { return "bind: " + p.text() }

// text is the problem without the package's prefix, which an *Error lists
// once for all its problems; the sentinel's own "bind: " is dropped too.
func (p Problem) text() string {
	what := strings.TrimPrefix(p.Err.Error(), "bind: ")
	if p.Field == "" {
		return p.Name + ": " + what
	}
	return p.Name + " (" + p.Field + "): " + what
}

// Unwrap returns Err.
func (p Problem) Unwrap() error { return p.Err }

// A DefinitionError reports an environment that Load or Close cannot work
// with: not a non-nil pointer to a struct, a bind tag it cannot read, a name
// bound twice, or a field of a type it cannot fill. It is a mistake in the
// program, found before anything is looked up or opened.
type DefinitionError struct {
	// Type is the type that was passed, or the environment struct when a
	// field is at fault.
	Type reflect.Type
	// Field is the Go path of the offending field, such as "Bucket" or
	// "Storage.Bucket" in an embedded struct; empty when the type itself is
	// at fault.
	Field string
	// Tag is the offending bind tag's value; empty when no tag is at fault.
	Tag string
	// Err says what is wrong.
	Err error
}

// Error names the type, the field and the tag, then the problem.
func (e *DefinitionError) Error() string {
	where := []string{"type <nil>"}
	if e.Type != nil {
		where[0] = "type " + e.Type.String()
	}
	if e.Field != "" {
		where = append(where, "field "+e.Field)
	}
	if e.Tag != "" {
		where = append(where, "tag `bind:"+strconv.Quote(e.Tag)+"`")
	}
	return msgtext.Definition("bind", where, e.Err)
}

// Unwrap returns Err.
func (e *DefinitionError) Unwrap() error { return e.Err }
