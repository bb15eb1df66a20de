package sqlitekv

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// fill stores n keys, key000000 to key(n-1), in one transaction.
func fill(t testing.TB, s *Store, n int) {
	t.Helper()
	tx, err := s.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i := range n {
		if _, err := tx.Exec(`INSERT INTO kv(key, value) VALUES (?, x'00')`, fmt.Sprintf("key%06d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// listWork runs a List's statement on a connection of s and returns the
// virtual machine's steps (SQLITE_STMTSTATUS_VM_STEP), the plan that
// EXPLAIN QUERY PLAN gives, and the keys.
func listWork(t *testing.T, s *Store, prefix, after string, limit int) (steps int, plan string, keys []string) {
	t.Helper()
	q, args := listQuery(prefix, after, time.Now(), limit)
	conn, err := s.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(interface{ Raw() *sqlite3.Conn }).Raw()
		run := func(q string, row func(*sqlite3.Stmt)) (int, error) {
			st, _, err := c.Prepare(q)
			if err != nil {
				return 0, err
			}
			defer st.Close()
			for i, a := range args {
				switch a := a.(type) {
				case string:
					err = st.BindText(i+1, a)
				case int:
					err = st.BindInt(i+1, a)
				case int64:
					err = st.BindInt64(i+1, a)
				}
				if err != nil {
					return 0, err
				}
			}
			for st.Step() {
				row(st)
			}
			return st.Status(sqlite3.STMTSTATUS_VM_STEP, false), st.Err()
		}
		var details []string
		if _, err := run("EXPLAIN QUERY PLAN "+q, func(st *sqlite3.Stmt) { details = append(details, st.ColumnText(3)) }); err != nil {
			return err
		}
		plan = strings.Join(details, "; ")
		steps, err = run(q, func(st *sqlite3.Stmt) { keys = append(keys, st.ColumnText(0)) })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return steps, plan, keys
}

// TestListCostIsPositionFree checks that a page costs the same work
// wherever the cursor is: the statement is a search of the primary key's
// range, bounded on both sides for a prefix, and the virtual machine's
// steps for a page near the end are those of the first page.
func TestListCostIsPositionFree(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "kv.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n, limit = 20000, 10
	fill(t, s, n)
	for _, c := range []struct {
		prefix, first, last string
		bounds              string
	}{
		{"", "", "key019994", "(key>?)"},
		{"key", "", "key019994", "(key>? AND key<?)"},
		{"key01", "", "key019994", "(key>? AND key<?)"},
	} {
		name := "prefix " + c.prefix
		firstSteps, plan, keys := listWork(t, s, c.prefix, c.first, limit)
		if len(keys) != limit+1 {
			t.Fatalf("%s: the first page has %d keys, want %d", name, len(keys), limit+1)
		}
		if want := "SEARCH kv USING PRIMARY KEY " + c.bounds; plan != want {
			t.Errorf("%s: the first page's plan is %q, want %q", name, plan, want)
		}
		lastSteps, plan, keys := listWork(t, s, c.prefix, c.last, limit)
		if len(keys) != n-1-19994 {
			t.Fatalf("%s: the last page has %d keys", name, len(keys))
		}
		if want := "SEARCH kv USING PRIMARY KEY " + c.bounds; plan != want {
			t.Errorf("%s: the last page's plan is %q, want %q", name, plan, want)
		}
		// The last page holds fewer keys than the first; its work may not
		// be more than the first's.
		if lastSteps > firstSteps {
			t.Errorf("%s: the page after %s took %d steps, the first page %d: the cost grows with the position", name, c.last, lastSteps, firstSteps)
		}
	}
}
