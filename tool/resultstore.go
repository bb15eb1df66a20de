package tool

import (
	"container/list"
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// ErrResultNotFound is what a ResultStore reports for a key it does not
// hold: never kept, expired, evicted, or kept for another recipient.
var ErrResultNotFound = errors.New("tool: no such result: it was never kept for this caller, or it has expired")

// A ResultStore keeps the whole text of results that a budget cut, for
// read_result to page through (see Budget). Keys are opaque, made by the
// registry from a random handle and the recipient's ID. A ResultStore is
// safe for concurrent use.
//
// MemoryStore keeps texts in memory; package resultstore keeps them in a
// kv.Store (the data directory's, by default, for hands serve).
type ResultStore interface {
	// Put keeps text under key for ttl, or as much of it from its start
	// as the store keeps for one entry, and returns how many bytes it
	// kept. It must not keep a reference to text beyond what it keeps, so
	// that a huge text is not held in memory by the store.
	Put(ctx context.Context, key, text string, ttl time.Duration) (kept int, err error)
	// Read returns the bytes of the text under key from offset, at most
	// limit of them, and the size of all that was kept. It reports
	// ErrResultNotFound for a key it does not hold or that has expired.
	// An offset past the end returns no bytes.
	Read(ctx context.Context, key string, offset, limit int) (text string, size int, err error)
}

// The bounds of a MemoryStore whose options leave them at zero.
const (
	// DefaultMemoryStoreBytes bounds the bytes of all the texts a
	// MemoryStore keeps.
	DefaultMemoryStoreBytes = 64 << 20
	// DefaultMemoryStoreEntries bounds how many texts it keeps.
	DefaultMemoryStoreEntries = 4096
	// DefaultMemoryStoreEntryBytes bounds the bytes it keeps of one text.
	DefaultMemoryStoreEntryBytes = 8 << 20
)

// MemoryStoreOptions configure a MemoryStore. A nil *MemoryStoreOptions
// selects every default.
type MemoryStoreOptions struct {
	// MaxBytes bounds the bytes of all the texts kept; the oldest are
	// evicted to make room. Zero selects DefaultMemoryStoreBytes.
	MaxBytes int
	// MaxEntries bounds how many texts are kept; the oldest are evicted
	// to make room. Zero selects DefaultMemoryStoreEntries.
	MaxEntries int
	// MaxEntryBytes bounds the bytes kept of one text, from its start.
	// Zero selects DefaultMemoryStoreEntryBytes; it is at most MaxBytes.
	MaxEntryBytes int
	// Now tells the time, for expiry. Nil selects time.Now.
	Now func() time.Time
}

// A MemoryStore is a ResultStore in this process's memory, bounded in
// bytes and in entries: the oldest texts are evicted first, and expired
// ones are never read. It is the store of a Budget without one.
type MemoryStore struct {
	maxBytes, maxEntries, maxEntry int
	now                            func() time.Time

	mu    sync.Mutex
	order *list.List               // of *memEntry, oldest first
	byKey map[string]*list.Element // into order
	bytes int                      // of the texts kept
}

type memEntry struct {
	key     string
	text    string
	expires time.Time
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	var o MemoryStoreOptions
	if opts != nil {
		o = *opts
	}
	s := &MemoryStore{
		maxBytes:   o.MaxBytes,
		maxEntries: o.MaxEntries,
		maxEntry:   o.MaxEntryBytes,
		now:        o.Now,
		order:      list.New(),
		byKey:      map[string]*list.Element{},
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMemoryStoreBytes
	}
	if s.maxEntries <= 0 {
		s.maxEntries = DefaultMemoryStoreEntries
	}
	if s.maxEntry <= 0 {
		s.maxEntry = DefaultMemoryStoreEntryBytes
	}
	s.maxEntry = min(s.maxEntry, s.maxBytes)
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Put keeps a copy of text's first MaxEntryBytes bytes (cut at a
// character boundary) under key, evicting the oldest texts to make room.
func (s *MemoryStore) Put(_ context.Context, key, text string, ttl time.Duration) (int, error) {
	if len(text) > s.maxEntry {
		text = text[:runeStart(text, s.maxEntry)]
	}
	text = strings.Clone(text) // not a reference into what may be a far larger string
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byKey[key]; ok {
		s.remove(el)
	}
	for s.order.Len() > 0 && (s.bytes+len(text) > s.maxBytes || s.order.Len() >= s.maxEntries) {
		s.remove(s.order.Front())
	}
	s.byKey[key] = s.order.PushBack(&memEntry{key: key, text: text, expires: s.now().Add(ttl)})
	s.bytes += len(text)
	return len(text), nil
}

// Read returns up to limit bytes of the text under key from offset.
func (s *MemoryStore) Read(_ context.Context, key string, offset, limit int) (string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byKey[key]
	if !ok {
		return "", 0, ErrResultNotFound
	}
	e := el.Value.(*memEntry)
	if !s.now().Before(e.expires) {
		s.remove(el)
		return "", 0, ErrResultNotFound
	}
	if offset >= len(e.text) || offset < 0 || limit <= 0 {
		return "", len(e.text), nil
	}
	end := min(len(e.text), offset+limit)
	return e.text[offset:end], len(e.text), nil
}

// Len reports how many texts the store holds and their bytes, expired ones
// included until they are read or evicted.
func (s *MemoryStore) Len() (entries, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len(), s.bytes
}

func (s *MemoryStore) remove(el *list.Element) {
	e := s.order.Remove(el).(*memEntry)
	delete(s.byKey, e.key)
	s.bytes -= len(e.text)
}

var _ ResultStore = (*MemoryStore)(nil)
