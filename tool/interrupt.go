package tool

import (
	"context"
	"errors"
	"sync/atomic"
)

// ErrInterrupted is matched by an *InterruptError.
var ErrInterrupted = errors.New("tool: call waits for a person")

// An InterruptError stops a call that cannot go on without a person's
// answer: a handler gets one from Ask and returns it, and so may
// middleware. An agent pauses the run at such a call and, once the answer
// comes, runs the call again with it (see Ask). Where nobody can answer,
// the result is an error result whose text is the question.
type InterruptError struct {
	Tool     string // the tool called
	CallID   string // the call's ID
	Question string // what to ask the person
	Err      error  // ErrInterrupted
}

// Error names the tool and the question.
func (e *InterruptError) Error() string {
	return "tool " + e.Tool + ": waits for an answer: " + e.Question
}

// Unwrap returns Err.
func (e *InterruptError) Unwrap() error { return e.Err }

// answersKey is the context key of the answers given to a call.
type answersKey struct{}

// answers are the answers given to one call's questions, taken in order,
// and the answers given to other calls in the contexts it was made from.
type answers struct {
	callID string
	list   []string
	next   atomic.Int64
	outer  *answers
}

// WithAnswers returns a context in which Ask, in the call with the given ID,
// returns answers in order, one per question asked. The answers given to
// other calls in ctx still hold, so one context can carry the answers of
// every call of a turn. An agent that resumes a paused run uses it to run
// the call again.
func WithAnswers(ctx context.Context, callID string, list []string) context.Context {
	outer, _ := ctx.Value(answersKey{}).(*answers)
	return context.WithValue(ctx, answersKey{}, &answers{callID: callID, list: list, outer: outer})
}

// answersFor returns the answers given to the call with the given ID: those
// given under its ID, or for a call without one, the last given.
func answersFor(ctx context.Context, callID string) *answers {
	first, _ := ctx.Value(answersKey{}).(*answers)
	for a := first; a != nil; a = a.outer {
		if a.callID == callID {
			return a
		}
	}
	if callID == "" {
		return first
	}
	return nil
}

// Ask asks a person a question from inside a handler (or middleware). When
// the caller has an answer for it (see WithAnswers), Ask returns it;
// otherwise it returns an *InterruptError, which the handler returns as its
// error:
//
//	account, err := tool.Ask(ctx, "Which account should pay?")
//	if err != nil {
//		return "", err
//	}
//
// An agent then pauses the run and, once the answer comes, runs the call
// again from the start, with the same arguments; this time Ask returns the
// answer. A handler that asks several questions gets the answers in the
// order it asked them. Whatever the handler did before Ask it does again on
// the second run, so it should ask before it changes anything.
func Ask(ctx context.Context, question string) (string, error) {
	call, _ := CallFrom(ctx)
	if a := answersFor(ctx, call.ID); a != nil {
		if i := a.next.Add(1) - 1; i < int64(len(a.list)) {
			return a.list[i], nil
		}
	}
	return "", &InterruptError{Tool: call.Name, CallID: call.ID, Question: question, Err: ErrInterrupted}
}
