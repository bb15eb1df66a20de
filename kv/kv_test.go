package kv_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/memkv"
)

// FuzzKeys stores a value under any key: the store refuses the key with
// ErrBadKey or ErrOversize exactly when it is empty, not UTF-8 or too
// long, and otherwise gives the value back; a listing from any cursor
// never fails but with ErrBadKey.
func FuzzKeys(f *testing.F) {
	for _, k := range []string{"a", "", "../x", "\xff", "user/42/name", "a\x00b"} {
		f.Add(k, []byte("v"), "c")
	}
	f.Fuzz(func(t *testing.T, key string, value []byte, cursor string) {
		s := kv.New(memkv.New(), &kv.Options{MaxKeyBytes: 64, MaxValueBytes: 64})
		err := s.Put(t.Context(), key, value, nil)
		valid := key != "" && utf8.ValidString(key) && len(key) <= 64 && len(value) <= 64
		if valid != (err == nil) {
			t.Fatalf("Put(%q, %d bytes) = %v, valid %v", key, len(value), err, valid)
		}
		if err != nil && !errors.Is(err, kv.ErrBadKey) && !errors.Is(err, kv.ErrOversize) {
			t.Fatalf("Put(%q) = %v, want ErrBadKey or ErrOversize", key, err)
		}
		if valid {
			e, err := s.Get(t.Context(), key)
			if err != nil || !bytes.Equal(e.Value, value) {
				t.Fatalf("Get(%q) = %q, %v; want %q", key, e.Value, err, value)
			}
		}
		if _, err := s.List(t.Context(), &kv.ListOptions{Cursor: cursor}); err != nil && !errors.Is(err, kv.ErrBadKey) {
			t.Fatalf("List(cursor %q) = %v", cursor, err)
		}
	})
}
