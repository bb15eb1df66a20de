package sqlitekv_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/hands-go/hands/kv/kvtest"
	"github.com/hands-go/hands/kv/sqlitekv"
)

func TestConformance(t *testing.T) {
	kvtest.RunConformance(t, func(t *testing.T) driver.Store {
		s, err := sqlitekv.Open(t.Context(), filepath.Join(t.TempDir(), "kv.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestPathTraversal stores keys that would be paths out of the store's
// directory in a store of files; here they are rows, and the directory
// holds the database's files only.
func TestPathTraversal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := kv.Open(t.Context(), "sqlite://"+filepath.ToSlash(dir)+"/kv.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"../escaped", "../../tmp/escaped", "/tmp/escaped-abs", "a/../../escaped", "..", ".", "kv.db", "kv.db-wal"} {
		if err := s.Put(t.Context(), k, []byte("x"), nil); err != nil {
			t.Fatalf("Put(%q): %v", k, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"store"}) {
		t.Errorf("beside the store's directory: %q, want only store", names)
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "kv.db" && n != "kv.db-wal" && n != "kv.db-shm" {
			t.Errorf("the store's directory holds %q", n)
		}
	}
	if _, err := os.Stat("/tmp/escaped-abs"); err == nil {
		t.Error("/tmp/escaped-abs exists")
	}
	// Reopened, the keys are there: the store persists.
	s, err = kv.Open(t.Context(), "sqlite://"+filepath.ToSlash(dir)+"/kv.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if e, err := s.Get(t.Context(), "../escaped"); err != nil || string(e.Value) != "x" {
		t.Errorf("after reopening, Get(../escaped) = %q, %v", e.Value, err)
	}
}

func TestOpenURLs(t *testing.T) {
	for _, bad := range []string{"sqlite://" + t.TempDir() + "/kv.db?mode=ro", "sqlite://host/kv.db"} {
		if s, err := kv.Open(t.Context(), bad); err == nil {
			s.Close()
			t.Errorf("Open(%q) = nil error", bad)
		}
	}
}

// TestDurable checks that a Put that returned survives a power loss: the
// store's connections sync every commit (PRAGMA synchronous=FULL).
func TestDurable(t *testing.T) {
	s, err := sqlitekv.Open(t.Context(), filepath.Join(t.TempDir(), "kv.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var db *sql.DB
	if !s.As(&db) {
		t.Fatal("As(*sql.DB) = false")
	}
	var sync int
	if err := db.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if sync != 2 {
		t.Errorf("PRAGMA synchronous = %d, want 2 (FULL)", sync)
	}
}
