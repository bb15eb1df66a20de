// Package resultstore keeps the whole text of tool results that a budget
// cut (tool.Budget) in a key-value store (package kv), so that the
// read_result tool reads them from any replica that shares the store, and
// after a restart when the store persists: SQLite for one machine, Redis
// for several.
//
//	store, err := kv.Open(ctx, "sqlite:///var/lib/hands/results.db")
//	err = reg.SetBudget(&tool.Budget{Default: 16 << 10, Store: resultstore.New(store, nil)})
//
// A text is kept in chunks no larger than the store's values may be, under
// keys derived from the handle and the recipient (never the handle
// itself), each with the text's expiry, and then a header that says how
// large the text is: a reader finds every chunk once it finds the header.
// Give results a store of their own, not one a model reads and lists with
// the kv tools, which would show it every caller's results.
package resultstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/tool"
)

// DefaultMaxEntryBytes bounds the bytes kept of one text when
// Options.MaxEntryBytes is zero.
const DefaultMaxEntryBytes = tool.DefaultMemoryStoreEntryBytes

// DefaultChunkBytes is the size of the chunks a text is kept in, when the
// store's values may be that large.
const DefaultChunkBytes = 256 << 10

// Options configure a Store. A nil *Options selects every default.
type Options struct {
	// Prefix is put before every key. Empty selects "results/".
	Prefix string
	// MaxEntryBytes bounds the bytes kept of one text, from its start.
	// Zero selects DefaultMaxEntryBytes.
	MaxEntryBytes int
}

// A Store is a tool.ResultStore in a kv.Store.
type Store struct {
	kv       *kv.Store
	prefix   string
	maxEntry int
	chunk    int
}

// New returns a Store that keeps texts in s.
func New(s *kv.Store, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	st := &Store{kv: s, prefix: o.Prefix, maxEntry: o.MaxEntryBytes, chunk: min(DefaultChunkBytes, s.MaxValueBytes())}
	if st.prefix == "" {
		st.prefix = "results/"
	}
	if st.maxEntry <= 0 {
		st.maxEntry = DefaultMaxEntryBytes
	}
	return st
}

// header is what the header of a text holds.
type header struct {
	Size  int `json:"size"`
	Chunk int `json:"chunk"`
}

// Put keeps text's first MaxEntryBytes bytes (at a character boundary)
// under key for ttl, a chunk at a time, and then its header.
func (s *Store) Put(ctx context.Context, key, text string, ttl time.Duration) (int, error) {
	if len(text) > s.maxEntry {
		n := s.maxEntry
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	opts := &kv.PutOptions{TTL: ttl}
	for i := 0; i*s.chunk < len(text); i++ {
		part := text[i*s.chunk : min(len(text), (i+1)*s.chunk)]
		if err := s.kv.Put(ctx, s.chunkKey(key, i), []byte(part), opts); err != nil {
			return 0, fmt.Errorf("resultstore: keep a chunk: %w", err)
		}
	}
	h, _ := json.Marshal(header{Size: len(text), Chunk: s.chunk})
	if err := s.kv.Put(ctx, s.prefix+key, h, opts); err != nil {
		return 0, fmt.Errorf("resultstore: keep a header: %w", err)
	}
	return len(text), nil
}

// Read returns up to limit bytes of the text under key from offset,
// reading only the chunks that hold them.
func (s *Store) Read(ctx context.Context, key string, offset, limit int) (string, int, error) {
	e, err := s.kv.Get(ctx, s.prefix+key)
	if errors.Is(err, kv.ErrKeyNotFound) {
		return "", 0, tool.ErrResultNotFound
	}
	if err != nil {
		return "", 0, fmt.Errorf("resultstore: read a header: %w", err)
	}
	var h header
	if err := json.Unmarshal(e.Value, &h); err != nil || h.Chunk <= 0 || h.Size < 0 {
		return "", 0, fmt.Errorf("resultstore: the header of a result is not one this package wrote")
	}
	if offset < 0 || offset >= h.Size || limit <= 0 {
		return "", h.Size, nil
	}
	end := min(h.Size, offset+limit)
	out := make([]byte, 0, end-offset)
	for i := offset / h.Chunk; i*h.Chunk < end; i++ {
		c, err := s.kv.Get(ctx, s.chunkKey(key, i))
		if errors.Is(err, kv.ErrKeyNotFound) {
			return "", 0, tool.ErrResultNotFound // expired between the header and the chunk
		}
		if err != nil {
			return "", 0, fmt.Errorf("resultstore: read a chunk: %w", err)
		}
		from, to := max(offset-i*h.Chunk, 0), min(end-i*h.Chunk, len(c.Value))
		if from < to {
			out = append(out, c.Value[from:to]...)
		}
	}
	return string(out), h.Size, nil
}

func (s *Store) chunkKey(key string, i int) string {
	return s.prefix + key + "/" + strconv.Itoa(i)
}

var _ tool.ResultStore = (*Store)(nil)
