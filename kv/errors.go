package kv

import (
	"errors"
	"strings"

	"github.com/hands-go/hands/internal/msgtext"
	"github.com/hands-go/hands/kv/driver"
)

// Sentinels of the kinds of failure, held in an *Error's Err. Match them
// with errors.Is.
var (
	// ErrKeyNotFound reports a key with no entry, or only an expired one.
	ErrKeyNotFound = driver.ErrNotFound
	// ErrOversize reports a key, value or metadata over the store's limit.
	ErrOversize = errors.New("kv: over the size limit")
	// ErrBadKey reports a key that is empty or not UTF-8, or a cursor that
	// no listing returned.
	ErrBadKey = errors.New("kv: invalid key")
)

// An Error is a failed operation on one key.
type Error struct {
	// Op is the operation: "get", "put", "delete" or "list".
	Op string
	// Key is the key, or the prefix of a listing.
	Key string
	// Err is ErrKeyNotFound, ErrOversize, ErrBadKey or the driver's error.
	Err error
}

// Error names the operation and the key, shortened, then the cause, with
// the package's prefix once: a sentinel's own "kv: " is dropped, as json
// v2's SemanticError drops the "jsontext: " of the error it holds.
func (e *Error) Error() string {
	return "kv: " + e.Op + " " + msgtext.Quote(e.Key, 80) + ": " + strings.TrimPrefix(e.Err.Error(), "kv: ")
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
