// Package driver defines the interface that key-value drivers implement.
// Users of key-value stores want package kv; this package is for those who
// write a driver, which package kv/kvtest checks.
package driver

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is what a driver returns for a key it does not hold, or
// holds only expired.
var ErrNotFound = errors.New("kv: not found")

// An Entry is a value and what is stored with it.
type Entry struct {
	Value []byte
	// Metadata is a small JSON object the caller stored with the value;
	// nil for none.
	Metadata []byte
	// Expires is when the entry stops existing; zero for never.
	Expires time.Time
}

// A Key is one key of a listing, with its expiry and metadata.
type Key struct {
	Name     string
	Expires  time.Time
	Metadata []byte
}

// A Store is a driver's store. Package kv checks keys, sizes and limits
// before it calls one, and gives each method the current time, so that a
// store never reads the clock to decide what has expired. Every method is
// safe for concurrent use.
type Store interface {
	// Get returns the entry of key, or ErrNotFound when there is none or it
	// expired at or before now.
	Get(ctx context.Context, key string, now time.Time) (Entry, error)
	// Put stores e under key, replacing any entry.
	Put(ctx context.Context, key string, e Entry) error
	// Delete removes key and reports whether it held an entry that had
	// not expired at or before now; a missing key is not an error.
	Delete(ctx context.Context, key string, now time.Time) (deleted bool, err error)
	// List returns at most limit keys that start with prefix and sort after
	// after (byte order), in byte order, leaving out those expired at or
	// before now, and reports whether more may follow.
	List(ctx context.Context, prefix, after string, limit int, now time.Time) (keys []Key, more bool, err error)
	// Close releases the store's resources.
	Close() error
}
