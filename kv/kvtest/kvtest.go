// Package kvtest is the conformance kit of key-value drivers: every driver
// of package kv runs RunConformance against a fresh store.
package kvtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
)

// A Clock is a time that a test moves by hand, so that expiry is tested
// without waiting.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// RunConformance runs the kit's tests, each on a new store that newStore
// returns (empty, or at least without keys under the prefix "kvtest/").
// The store is closed when each test ends.
func RunConformance(t *testing.T, newStore func(t *testing.T) driver.Store) {
	open := func(t *testing.T) (*kv.Store, *Clock) {
		t.Helper()
		clock := NewClock(time.Now().Truncate(time.Millisecond))
		s := kv.New(newStore(t), &kv.Options{Now: clock.Now, MaxValueBytes: 256 << 10})
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s, clock
	}
	t.Run("PutGet", func(t *testing.T) {
		s, _ := open(t)
		ctx := t.Context()
		if _, err := s.Get(ctx, "kvtest/missing"); !errors.Is(err, kv.ErrKeyNotFound) {
			t.Errorf("Get of a missing key = %v, want ErrKeyNotFound", err)
		}
		meta := json.RawMessage(`{"by":"test","n":1}`)
		if err := s.Put(ctx, "kvtest/a", []byte("one"), &kv.PutOptions{Metadata: meta}); err != nil {
			t.Fatal(err)
		}
		e, err := s.Get(ctx, "kvtest/a")
		if err != nil {
			t.Fatal(err)
		}
		if string(e.Value) != "one" || !jsonEqual(e.Metadata, meta) || !e.Expires.IsZero() {
			t.Errorf("Get = %q %s %v, want one, %s, no expiry", e.Value, e.Metadata, e.Expires, meta)
		}
		if err := s.Put(ctx, "kvtest/a", []byte("two"), nil); err != nil {
			t.Fatal(err)
		}
		if e, err := s.Get(ctx, "kvtest/a"); err != nil || string(e.Value) != "two" || e.Metadata != nil {
			t.Errorf("Get after replacing = %q %s %v, want two without metadata", e.Value, e.Metadata, err)
		}
		if err := s.Put(ctx, "kvtest/empty", nil, nil); err != nil {
			t.Fatal(err)
		}
		if e, err := s.Get(ctx, "kvtest/empty"); err != nil || len(e.Value) != 0 {
			t.Errorf("Get of an empty value = %q, %v", e.Value, err)
		}
		big := bytes.Repeat([]byte{0, 0xff, 'x'}, (256<<10)/3)
		if err := s.Put(ctx, "kvtest/big", big, nil); err != nil {
			t.Fatal(err)
		}
		if e, err := s.Get(ctx, "kvtest/big"); err != nil || !bytes.Equal(e.Value, big) {
			t.Errorf("a binary value of %d bytes did not come back whole: %v", len(big), err)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		s, clock := open(t)
		ctx := t.Context()
		s.Put(ctx, "kvtest/d", []byte("x"), nil)
		if deleted, err := s.Delete(ctx, "kvtest/d"); err != nil || !deleted {
			t.Fatalf("Delete = %v, %v; want true", deleted, err)
		}
		if _, err := s.Get(ctx, "kvtest/d"); !errors.Is(err, kv.ErrKeyNotFound) {
			t.Errorf("Get after Delete = %v, want ErrKeyNotFound", err)
		}
		if deleted, err := s.Delete(ctx, "kvtest/d"); err != nil || deleted {
			t.Errorf("Delete of a missing key = %v, %v; want false and no error", deleted, err)
		}
		// An expired entry is not there, whether or not the backend has
		// removed it yet.
		s.Put(ctx, "kvtest/ttl", []byte("x"), &kv.PutOptions{TTL: time.Minute})
		clock.Advance(time.Minute)
		if deleted, err := s.Delete(ctx, "kvtest/ttl"); err != nil || deleted {
			t.Errorf("Delete of an expired key = %v, %v; want false and no error", deleted, err)
		}
	})
	t.Run("Keys", func(t *testing.T) {
		s, _ := open(t)
		ctx := t.Context()
		// Keys are data: none of these names a file, a pattern or a
		// separator to any driver.
		keys := []string{"kvtest/../../../etc/passwd", "kvtest//abs", "kvtest/%", "kvtest/_", "kvtest/*", "kvtest/[a]",
			"kvtest/a\x00b", "kvtest/\\..\\win", "kvtest/é", "kvtest/日本", "kvtest/" + strings.Repeat("k", 500), "kvtest/ space", "kvtest/\n"}
		for i, k := range keys {
			if err := s.Put(ctx, k, []byte(fmt.Sprint(i)), nil); err != nil {
				t.Fatalf("Put(%q): %v", k, err)
			}
		}
		for i, k := range keys {
			if e, err := s.Get(ctx, k); err != nil || string(e.Value) != fmt.Sprint(i) {
				t.Errorf("Get(%q) = %q, %v, want %d", k, e.Value, err, i)
			}
		}
		p, err := s.List(ctx, &kv.ListOptions{Prefix: "kvtest/"})
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(slices.Values(keys))
		if got := names(p.Keys); !slices.Equal(got, want) {
			t.Errorf("List = %q, want %q", got, want)
		}
		for _, pre := range []string{"kvtest/%", "kvtest/_", "kvtest/*", "kvtest/["} {
			p, err := s.List(ctx, &kv.ListOptions{Prefix: pre})
			if err != nil || len(p.Keys) != 1 {
				t.Errorf("List(prefix %q) = %q, %v; want the one key that starts with it", pre, names(p.Keys), err)
			}
		}
	})
	t.Run("Limits", func(t *testing.T) {
		s, _ := open(t)
		ctx := t.Context()
		for _, tt := range []struct {
			name string
			key  string
			val  []byte
			meta json.RawMessage
			want error
		}{
			{name: "empty key", key: "", want: kv.ErrBadKey},
			{name: "invalid UTF-8", key: "kvtest/\xff", want: kv.ErrBadKey},
			{name: "long key", key: "kvtest/" + strings.Repeat("k", kv.DefaultMaxKeyBytes), want: kv.ErrOversize},
			{name: "huge value", key: "kvtest/v", val: make([]byte, 256<<10+1), want: kv.ErrOversize},
			{name: "huge metadata", key: "kvtest/m", meta: json.RawMessage(`{"x":"` + strings.Repeat("m", 2000) + `"}`), want: kv.ErrOversize},
		} {
			err := s.Put(ctx, tt.key, tt.val, &kv.PutOptions{Metadata: tt.meta})
			if !errors.Is(err, tt.want) {
				t.Errorf("Put(%s) = %v, want %v", tt.name, err, tt.want)
			}
		}
		if err := s.Put(ctx, "kvtest/m", nil, &kv.PutOptions{Metadata: json.RawMessage(`[1]`)}); err == nil {
			t.Error("Put with metadata that is not an object = nil error")
		}
		if _, err := s.List(ctx, &kv.ListOptions{Prefix: "kvtest/", Cursor: "!!"}); !errors.Is(err, kv.ErrBadKey) {
			t.Errorf("List with a forged cursor = %v, want ErrBadKey", err)
		}
		if p, err := s.List(ctx, &kv.ListOptions{Prefix: "kvtest/"}); err != nil || len(p.Keys) != 0 {
			t.Errorf("after refused puts, List = %q, %v; want nothing stored", names(p.Keys), err)
		}
	})
	t.Run("Pages", func(t *testing.T) {
		s, _ := open(t)
		ctx := t.Context()
		var want []string
		for i := range 7 {
			k := fmt.Sprintf("kvtest/p/%02d", i)
			want = append(want, k)
			s.Put(ctx, k, nil, nil)
		}
		s.Put(ctx, "kvtest/q", nil, nil)
		var got []string
		opts := &kv.ListOptions{Prefix: "kvtest/p/", Limit: 3}
		for range 10 {
			p, err := s.List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Keys) > 3 {
				t.Fatalf("a page of limit 3 has %d keys", len(p.Keys))
			}
			got = append(got, names(p.Keys)...)
			if p.Cursor == "" {
				break
			}
			opts.Cursor = p.Cursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("pages = %q, want %q", got, want)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		s, clock := open(t)
		ctx := t.Context()
		if err := s.Put(ctx, "kvtest/ttl", []byte("x"), &kv.PutOptions{TTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		s.Put(ctx, "kvtest/keep", []byte("y"), nil)
		e, err := s.Get(ctx, "kvtest/ttl")
		if err != nil || !e.Expires.Equal(clock.Now().Add(time.Minute)) {
			t.Errorf("Get before expiry = %v, %v; want expiry at %v", e.Expires, err, clock.Now().Add(time.Minute))
		}
		clock.Advance(59 * time.Second)
		if _, err := s.Get(ctx, "kvtest/ttl"); err != nil {
			t.Errorf("Get 59s into a 1m TTL = %v", err)
		}
		clock.Advance(time.Second)
		if _, err := s.Get(ctx, "kvtest/ttl"); !errors.Is(err, kv.ErrKeyNotFound) {
			t.Errorf("Get at the end of a 1m TTL = %v, want ErrKeyNotFound", err)
		}
		p, err := s.List(ctx, &kv.ListOptions{Prefix: "kvtest/"})
		if err != nil || !slices.Equal(names(p.Keys), []string{"kvtest/keep"}) {
			t.Errorf("List after expiry = %q, %v; want only kvtest/keep", names(p.Keys), err)
		}
		if err := s.Put(ctx, "kvtest/neg", nil, &kv.PutOptions{TTL: -time.Second}); err == nil {
			t.Error("Put with a negative TTL = nil error")
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		s, _ := open(t)
		ctx := t.Context()
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 20 {
					k := fmt.Sprintf("kvtest/c/%d/%d", g, i)
					if err := s.Put(ctx, k, []byte(k), nil); err != nil {
						t.Error(err)
						return
					}
					if e, err := s.Get(ctx, k); err != nil || string(e.Value) != k {
						t.Errorf("Get(%q) = %q, %v", k, e.Value, err)
					}
				}
			})
		}
		wg.Wait()
		p, err := s.List(ctx, &kv.ListOptions{Prefix: "kvtest/c/"})
		if err != nil || len(p.Keys) != 160 {
			t.Errorf("List after 160 concurrent puts: %d keys, %v", len(p.Keys), err)
		}
	})
}

func names(keys []kv.Key) []string {
	var s []string
	for _, k := range keys {
		s = append(s, k.Name)
	}
	return s
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
