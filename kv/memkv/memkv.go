// Package memkv is a key-value store in memory for package kv, new and
// empty on each open: mem://. It takes no query parameters.
//
//	import _ "github.com/hands-go/hands/kv/memkv"
//
//	store, err := kv.Open(ctx, "mem://")
package memkv

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
)

// Scheme is the URL scheme this package registers.
const Scheme = "mem"

func init() { kv.DefaultURLMux().Register(Scheme, opener{}) }

type opener struct{}

func (opener) OpenStore(_ context.Context, u *url.URL) (driver.Store, error) {
	if err := kv.CheckParams(u); err != nil {
		return nil, err
	}
	return New(), nil
}

// Store is a driver.Store in memory.
type Store struct {
	mu sync.RWMutex
	m  map[string]driver.Entry
}

// New returns an empty store.
func New() *Store { return &Store{m: map[string]driver.Entry{}} }

func live(e driver.Entry, now time.Time) bool { return e.Expires.IsZero() || now.Before(e.Expires) }

// Get implements driver.Store.
func (s *Store) Get(_ context.Context, key string, now time.Time) (driver.Entry, error) {
	s.mu.RLock()
	e, ok := s.m[key]
	s.mu.RUnlock()
	if !ok || !live(e, now) {
		return driver.Entry{}, driver.ErrNotFound
	}
	return driver.Entry{Value: slices.Clone(e.Value), Metadata: slices.Clone(e.Metadata), Expires: e.Expires}, nil
}

// Put implements driver.Store.
func (s *Store) Put(_ context.Context, key string, e driver.Entry) error {
	e.Value, e.Metadata = slices.Clone(e.Value), slices.Clone(e.Metadata)
	s.mu.Lock()
	s.m[key] = e
	s.mu.Unlock()
	return nil
}

// Delete implements driver.Store.
func (s *Store) Delete(_ context.Context, key string, now time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	delete(s.m, key)
	return ok && (e.Expires.IsZero() || now.Before(e.Expires)), nil
}

// List implements driver.Store. It sorts the matching keys on each call,
// and removes the expired entries it meets.
func (s *Store) List(_ context.Context, prefix, after string, limit int, now time.Time) ([]driver.Key, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for k, e := range s.m {
		if !live(e, now) {
			delete(s.m, k)
			continue
		}
		if strings.HasPrefix(k, prefix) && k > after {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	more := len(names) > limit
	names = names[:min(limit, len(names))]
	keys := make([]driver.Key, len(names))
	for i, k := range names {
		e := s.m[k]
		keys[i] = driver.Key{Name: k, Expires: e.Expires, Metadata: slices.Clone(e.Metadata)}
	}
	return keys, more, nil
}

// Close implements driver.Store.
func (s *Store) Close() error { return nil }
