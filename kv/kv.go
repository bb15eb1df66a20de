package kv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/urlmux"
	"github.com/hands-go/hands/kv/driver"
)

// Default limits of a Store, those of Cloudflare Workers KV where they
// have one.
const (
	DefaultMaxKeyBytes      = 512
	DefaultMaxValueBytes    = 1 << 20
	DefaultMaxMetadataBytes = 1024
	// MaxListLimit is the most keys one List returns.
	MaxListLimit = 1000
)

// Options configure a Store. The zero value selects every default.
type Options struct {
	// MaxKeyBytes bounds a key. If zero or less, DefaultMaxKeyBytes.
	MaxKeyBytes int
	// MaxValueBytes bounds a value. If zero or less, DefaultMaxValueBytes.
	MaxValueBytes int
	// MaxMetadataBytes bounds the JSON of an entry's metadata. If zero or
	// less, DefaultMaxMetadataBytes.
	MaxMetadataBytes int
	// Now tells the time, which decides expiry. If nil, time.Now.
	Now func() time.Time
}

// A Store is a key-value store: values of bounded size under UTF-8 keys,
// each with an optional expiry and metadata, listed by prefix in byte
// order. It is safe for concurrent use.
type Store struct {
	d                      driver.Store
	maxKey, maxVal, maxMet int
	now                    func() time.Time
}

// New returns a Store on a driver's store. opts may be nil.
func New(d driver.Store, opts *Options) *Store {
	if opts == nil {
		opts = &Options{}
	}
	s := &Store{d: d, maxKey: opts.MaxKeyBytes, maxVal: opts.MaxValueBytes, maxMet: opts.MaxMetadataBytes, now: opts.Now}
	if s.maxKey <= 0 {
		s.maxKey = DefaultMaxKeyBytes
	}
	if s.maxVal <= 0 {
		s.maxVal = DefaultMaxValueBytes
	}
	if s.maxMet <= 0 {
		s.maxMet = DefaultMaxMetadataBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// MaxValueBytes returns the store's limit on a value.
func (s *Store) MaxValueBytes() int { return s.maxVal }

// MaxMetadataBytes returns the store's limit on the JSON of an entry's
// metadata.
func (s *Store) MaxMetadataBytes() int { return s.maxMet }

// MaxKeyBytes returns the store's limit on a key.
func (s *Store) MaxKeyBytes() int { return s.maxKey }

// An Entry is a stored value with its metadata and expiry.
type Entry struct {
	Value []byte
	// Metadata is the JSON object stored with the value; nil for none.
	Metadata json.RawMessage
	// Expires is when the entry stops existing; zero for never.
	Expires time.Time
}

// PutOptions are the optional parts of a Put.
type PutOptions struct {
	// TTL makes the entry expire this long after the Put. Zero for never;
	// it must not be negative.
	TTL time.Duration
	// Metadata is a JSON object stored with the value and returned by Get
	// and List.
	Metadata json.RawMessage
}

func (s *Store) checkKey(op, key string) error {
	switch {
	case key == "" || !utf8.ValidString(key):
		return &Error{Op: op, Key: key, Err: fmt.Errorf("%w: a key is non-empty UTF-8 text", ErrBadKey)}
	case len(key) > s.maxKey:
		return &Error{Op: op, Key: key, Err: fmt.Errorf("%w: the key is %d bytes, and keys are at most %d", ErrOversize, len(key), s.maxKey)}
	}
	return nil
}

// Get returns the entry of key. A key with no entry, or an expired one, is
// an *Error holding ErrKeyNotFound.
func (s *Store) Get(ctx context.Context, key string) (Entry, error) {
	if err := s.checkKey("get", key); err != nil {
		return Entry{}, err
	}
	e, err := s.d.Get(ctx, key, s.now())
	if err != nil {
		return Entry{}, &Error{Op: "get", Key: key, Err: err}
	}
	return Entry{Value: e.Value, Metadata: e.Metadata, Expires: e.Expires}, nil
}

// Put stores value under key, replacing any entry. opts may be nil.
func (s *Store) Put(ctx context.Context, key string, value []byte, opts *PutOptions) error {
	if opts == nil {
		opts = &PutOptions{}
	}
	if err := s.checkKey("put", key); err != nil {
		return err
	}
	if len(value) > s.maxVal {
		return &Error{Op: "put", Key: key, Err: fmt.Errorf("%w: the value is %d bytes, and values are at most %d", ErrOversize, len(value), s.maxVal)}
	}
	e := driver.Entry{Value: value}
	if len(opts.Metadata) > 0 {
		if len(opts.Metadata) > s.maxMet {
			return &Error{Op: "put", Key: key, Err: fmt.Errorf("%w: the metadata is %d bytes of JSON, and metadata is at most %d", ErrOversize, len(opts.Metadata), s.maxMet)}
		}
		if !json.Valid(opts.Metadata) || strings.TrimSpace(string(opts.Metadata))[0] != '{' {
			return &Error{Op: "put", Key: key, Err: errors.New("the metadata must be a JSON object")}
		}
		e.Metadata = opts.Metadata
	}
	switch {
	case opts.TTL < 0:
		return &Error{Op: "put", Key: key, Err: fmt.Errorf("the TTL %v is negative", opts.TTL)}
	case opts.TTL > 0:
		e.Expires = s.now().Add(opts.TTL)
	}
	if err := s.d.Put(ctx, key, e); err != nil {
		return &Error{Op: "put", Key: key, Err: err}
	}
	return nil
}

// Delete removes key and reports whether it held an entry, leaving out an
// expired one. A key with no entry is not an error: what Delete is for, no
// entry under the key, holds either way.
func (s *Store) Delete(ctx context.Context, key string) (deleted bool, err error) {
	if err := s.checkKey("delete", key); err != nil {
		return false, err
	}
	deleted, err = s.d.Delete(ctx, key, s.now())
	if err != nil {
		return false, &Error{Op: "delete", Key: key, Err: err}
	}
	return deleted, nil
}

// ListOptions select the keys of a List. The zero value lists the first
// MaxListLimit keys.
type ListOptions struct {
	// Prefix selects the keys that start with it.
	Prefix string
	// Cursor continues the listing that returned it.
	Cursor string
	// Limit is the most keys returned. If zero, or over MaxListLimit,
	// MaxListLimit.
	Limit int
}

// A Key is one key of a listing.
type Key struct {
	Name     string
	Metadata json.RawMessage
	// Expires is when the entry stops existing; zero for never.
	Expires time.Time
}

// A Page is one part of a listing.
type Page struct {
	// Keys are in byte order.
	Keys []Key
	// Cursor continues the listing; empty when it is complete.
	Cursor string
}

// List returns, in byte order, the keys that start with opts.Prefix,
// leaving out expired ones, a page at a time. opts may be nil.
func (s *Store) List(ctx context.Context, opts *ListOptions) (Page, error) {
	if opts == nil {
		opts = &ListOptions{}
	}
	limit := opts.Limit
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	if len(opts.Prefix) > s.maxKey || !utf8.ValidString(opts.Prefix) {
		return Page{}, &Error{Op: "list", Key: opts.Prefix, Err: fmt.Errorf("%w: the prefix must be UTF-8 of at most %d bytes", ErrBadKey, s.maxKey)}
	}
	after := ""
	if opts.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(opts.Cursor)
		if err != nil || !strings.HasPrefix(string(b), opts.Prefix) || len(b) > s.maxKey {
			return Page{}, &Error{Op: "list", Key: opts.Prefix, Err: fmt.Errorf("%w: the cursor is not one that a listing of this prefix returned", ErrBadKey)}
		}
		after = string(b)
	}
	keys, more, err := s.d.List(ctx, opts.Prefix, after, limit, s.now())
	if err != nil {
		return Page{}, &Error{Op: "list", Key: opts.Prefix, Err: err}
	}
	p := Page{Keys: make([]Key, len(keys))}
	for i, k := range keys {
		p.Keys[i] = Key{Name: k.Name, Metadata: k.Metadata, Expires: k.Expires}
	}
	if more && len(keys) > 0 {
		p.Cursor = base64.RawURLEncoding.EncodeToString([]byte(keys[len(keys)-1].Name))
	}
	return p, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.d.Close() }

// As sets target, a pointer, to the driver's store when it has that type,
// and reports whether it did, to reach a driver's own abilities.
func (s *Store) As(target any) bool {
	switch t := target.(type) {
	case *driver.Store:
		*t = s.d
		return true
	}
	if a, ok := s.d.(interface{ As(any) bool }); ok {
		return a.As(target)
	}
	return false
}

// An Opener opens the stores of one URL scheme. Each driver package has one
// and registers it on DefaultURLMux in its init function.
type Opener interface {
	// OpenStore opens the store at u. It rejects query parameters it does
	// not know, and its errors never hold a credential: where they name the
	// URL, the password of its user information and the value of every
	// parameter that bears a credential (password, token, …) are redacted,
	// as CheckParams does. u.Redacted is not enough: it keeps the query.
	OpenStore(ctx context.Context, u *url.URL) (driver.Store, error)
}

// A URLMux sends a store URL to the opener of its scheme. The zero value is
// ready to use.
type URLMux struct{ m urlmux.Mux[Opener] }

// Register makes o the opener of scheme. It panics if the scheme already
// has one, which is a mistake in the program.
func (m *URLMux) Register(scheme string, o Opener) { m.m.Register("kv", scheme, o) }

// Schemes returns the registered schemes, sorted.
func (m *URLMux) Schemes() []string { return m.m.Schemes() }

// OpenStore opens the store at the URL str through the opener of its
// scheme, with the default limits.
func (m *URLMux) OpenStore(ctx context.Context, str string) (*Store, error) {
	u, err := url.Parse(str)
	if err != nil || u.Scheme == "" {
		return nil, errors.New("kv: want a store URL, such as mem://, sqlite:///var/lib/app/kv.db or redis://host:6379/0")
	}
	o, ok := m.m.Lookup(u.Scheme)
	if !ok {
		return nil, fmt.Errorf("kv: no driver for the scheme %q; the schemes are %v (import a driver package such as kv/memkv)", u.Scheme, m.Schemes())
	}
	d, err := o.OpenStore(ctx, u)
	if err != nil {
		return nil, err
	}
	return New(d, nil), nil
}

var defaultMux URLMux

// DefaultURLMux returns the mux that the driver packages register on and
// that Open uses.
func DefaultURLMux() *URLMux { return &defaultMux }

// Open opens the store at the URL s through DefaultURLMux.
func Open(ctx context.Context, s string) (*Store, error) { return defaultMux.OpenStore(ctx, s) }

// CheckParams returns an error naming the first query parameter of u that
// is not among known, or saying that the query does not parse (a bad
// %-escape), since u.Query would drop the parameter, or that the URL has a
// fragment (a '#' written unescaped in a password or a value, which ends
// it there). The error names the URL with its credentials redacted. A
// driver's opener calls it first.
func CheckParams(u *url.URL, known ...string) error {
	return urlmux.CheckParams("kv", u, known...)
}
