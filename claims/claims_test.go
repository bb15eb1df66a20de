package claims_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hands-go/hands/claims"
	_ "github.com/ncruces/go-sqlite3/driver" // pure Go SQLite, for SQL
)

// openSQLite opens (creating) a SQLite database in the file at path.
func openSQLite(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// stores returns a fresh store of each kind, over dir.
func stores(t *testing.T, dir string) map[string]claims.Store {
	sqlStore := &claims.SQL{DB: openSQLite(t, filepath.Join(dir, "claims.db"))}
	if err := sqlStore.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "claims"), 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	dollar := &claims.SQL{DB: sqlStore.DB, Table: "main.dollar_claims", Placeholder: "$1"}
	if err := dollar.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	return map[string]claims.Store{
		"memory":     &claims.Memory{},
		"dir":        claims.Dir{Path: filepath.Join(dir, "claims")},
		"sql":        sqlStore,
		"sql-dollar": dollar,
	}
}

// TestStores holds each store to the contract: an ID is claimed once,
// by exactly one of many concurrent claims.
func TestStores(t *testing.T) {
	for name, store := range stores(t, t.TempDir()) {
		t.Run(name, func(t *testing.T) {
			const id = "0123456789abcdef0123456789abcdef"
			if ok, err := store.Claim(t.Context(), id); !ok || err != nil {
				t.Fatalf("Claim(new) = %v, %v; want true", ok, err)
			}
			if ok, err := store.Claim(t.Context(), id); ok || err != nil {
				t.Fatalf("Claim(claimed) = %v, %v; want false", ok, err)
			}
			const n = 8
			won := make([]bool, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					ok, err := store.Claim(context.Background(), "fedcba9876543210fedcba9876543210")
					if err != nil {
						t.Errorf("Claim: %v", err)
					}
					won[i] = ok
				})
			}
			wg.Wait()
			if got := strings.Count(fmt.Sprint(won), "true"); got != 1 {
				t.Errorf("%d of %d concurrent claims won, want 1", got, n)
			}
		})
	}
}

func TestSQLRefusesNames(t *testing.T) {
	db := openSQLite(t, filepath.Join(t.TempDir(), "x.db"))
	for _, s := range []*claims.SQL{
		{DB: db, Table: "claims; DROP TABLE users"},
		{DB: db, Table: `"quoted"`},
		{DB: db, Placeholder: ":id"},
	} {
		if err := s.CreateTable(t.Context()); err == nil {
			t.Errorf("CreateTable with table %q, placeholder %q succeeded; want an error", s.Table, s.Placeholder)
		}
		if _, err := s.Claim(t.Context(), "0123456789abcdef0123456789abcdef"); err == nil {
			t.Errorf("Claim with table %q, placeholder %q succeeded; want an error", s.Table, s.Placeholder)
		}
	}
	if _, err := (claims.Dir{Path: t.TempDir()}).Claim(t.Context(), "../../etc/passwd"); err == nil {
		t.Error("Dir claimed a path; want an error")
	}
}

func TestNewID(t *testing.T) {
	a, b := claims.NewID(), claims.NewID()
	if !claims.ValidID(a) || !claims.ValidID(b) || a == b {
		t.Errorf("NewID() = %q, then %q; want two different valid IDs", a, b)
	}
	for _, id := range []string{"", "0123456789abcdef0123456789abcde", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcdeg", "../../0123456789abcdef0123456789a"} {
		if claims.ValidID(id) {
			t.Errorf("ValidID(%q) = true, want false", id)
		}
	}
}
