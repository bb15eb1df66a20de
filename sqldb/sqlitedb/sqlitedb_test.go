package sqlitedb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/ncruces/go-sqlite3"
)

// open opens a database in a temporary directory with one table of three
// rows.
func open(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dir := t.TempDir()
	db, err := sqldb.Open(t.Context(), "sqlite://"+filepath.ToSlash(filepath.Join(dir, "app.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
		CREATE INDEX notes_body ON notes(body);
		INSERT INTO notes(body) VALUES ('one'), ('two'), ('three')`); err != nil {
		t.Fatal(err)
	}
	return db, dir
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestQuery(t *testing.T) {
	db, _ := open(t)
	res, err := sqldb.Query(t.Context(), db, `SELECT id, body FROM notes WHERE id >= ? ORDER BY id`, []any{2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Text(), "id (INTEGER) | body (TEXT)\n2 | two\n3 | three\n(2 rows)"; got != want {
		t.Errorf("Query text =\n%s\nwant\n%s", got, want)
	}
}

// TestReadOnlyEscapes runs, in a read-only session, each way a statement
// might change the database or leave the session's rules; the database
// refuses each one, and nothing changes.
func TestReadOnlyEscapes(t *testing.T) {
	db, dir := open(t)
	outside := filepath.Join(dir, "outside.db")
	for _, stmt := range []string{
		`DELETE FROM notes`,
		`INSERT INTO notes(body) VALUES ('x')`,
		`UPDATE notes SET body = 'x'`,
		`DROP TABLE notes`,
		`CREATE TABLE t(x)`,
		`CREATE TEMP TABLE t(x)`,
		`COMMIT; DELETE FROM notes`,
		`COMMIT`,
		`ROLLBACK`,
		`ROLLBACK; DELETE FROM notes`,
		`BEGIN`,
		`BEGIN; DELETE FROM notes; COMMIT`,
		`END`,
		`SAVEPOINT a`,
		`SELECT 1; DELETE FROM notes`,
		`SELECT 1; SELECT 2`,
		`PRAGMA query_only = 0`,
		`PRAGMA query_only = 0; DELETE FROM notes`,
		`PRAGMA writable_schema = 1`,
		`PRAGMA journal_mode = DELETE`,
		`PRAGMA foreign_keys = OFF`,
		`PRAGMA trusted_schema = 1`,
		`SELECT * FROM pragma_query_only`,
		`ATTACH DATABASE '` + outside + `' AS o`,
		`ATTACH '` + outside + `' AS o; CREATE TABLE o.t(x)`,
		`DETACH main`,
		`SELECT load_extension('/lib/x86_64-linux-gnu/libc.so.6')`,
		`VACUUM INTO '` + outside + `'`,
		`VACUUM`,
		`REINDEX`,
		`ANALYZE`,
		`WITH d AS (DELETE FROM notes RETURNING *) SELECT * FROM d`,
		`DELETE FROM notes RETURNING *`,
		`REPLACE INTO notes VALUES (1, 'x')`,
	} {
		_, err := sqldb.Query(t.Context(), db, stmt, nil, nil)
		if err == nil {
			t.Errorf("Query(%q) read-only = nil error, want a refusal", stmt)
		}
		if _, ok := errors.AsType[*sqldb.QueryError](err); err != nil && !ok {
			t.Errorf("Query(%q) = %T %v, want a *sqldb.QueryError", stmt, err, err)
		}
	}
	if n := count(t, db); n != 3 {
		t.Errorf("after the escapes, notes has %d rows, want 3", n)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file outside the database was created: %v", err)
	}
	// The pool's connections are as they were: writes through db work.
	for range 8 {
		if _, err := db.Exec(`INSERT INTO notes(body) VALUES ('after')`); err != nil {
			t.Fatalf("a write through the pool after read-only sessions: %v", err)
		}
	}
}

// TestWriteSession allows changes but still refuses what leaves the
// session's rules.
func TestWriteSession(t *testing.T) {
	db, dir := open(t)
	w := &sqldb.QueryOptions{Write: true}
	if _, err := sqldb.Query(t.Context(), db, `INSERT INTO notes(body) VALUES (?)`, []any{"four"}, w); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db); n != 4 {
		t.Errorf("after an insert, notes has %d rows, want 4", n)
	}
	outside := filepath.Join(dir, "outside.db")
	for _, stmt := range []string{
		`ATTACH DATABASE '` + outside + `' AS o`,
		`SELECT load_extension('x')`,
		`PRAGMA writable_schema = 1`,
		`BEGIN`,
		`COMMIT`,
		`INSERT INTO notes(body) VALUES ('a'); INSERT INTO notes(body) VALUES ('b')`,
		`VACUUM INTO '` + outside + `'`,
	} {
		if _, err := sqldb.Query(t.Context(), db, stmt, nil, w); err == nil {
			t.Errorf("Query(%q) writable = nil error, want a refusal", stmt)
		}
	}
	if n := count(t, db); n != 4 {
		t.Errorf("after the refusals, notes has %d rows, want 4", n)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file outside the database was created: %v", err)
	}
}

// TestSchemaPragmasAllowed lets a read-only statement read the schema
// through the read-only pragmas.
func TestSchemaPragmasAllowed(t *testing.T) {
	db, _ := open(t)
	res, err := sqldb.Query(t.Context(), db, `SELECT name FROM pragma_table_info('notes') ORDER BY cid`, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Rows[0][0] != "id" {
		t.Errorf("pragma_table_info rows = %v, want id and body", res.Rows)
	}
}

// TestBounds shows each bound holding: rows, bytes, one huge value, time.
func TestBounds(t *testing.T) {
	db, _ := open(t)
	const million = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c`
	t.Run("millions of rows", func(t *testing.T) {
		res, err := sqldb.Query(t.Context(), db, million, nil, &sqldb.QueryOptions{MaxRows: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 100 || res.Truncated == "" {
			t.Errorf("an endless CTE returned %d rows, truncated %q; want 100 and a reason", len(res.Rows), res.Truncated)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		res, err := sqldb.Query(t.Context(), db, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT printf('%.1000c', 'x') FROM c`, nil, &sqldb.QueryOptions{MaxBytes: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 10 || res.Truncated == "" {
			t.Errorf("1000-byte rows under a 10000-byte limit: %d rows, truncated %q; want 10 and a reason", len(res.Rows), res.Truncated)
		}
	})
	t.Run("huge value", func(t *testing.T) {
		for _, stmt := range []string{`SELECT zeroblob(1000000000)`, `SELECT randomblob(500000000)`, `SELECT printf('%.*c', 400000000, 'x')`} {
			_, err := sqldb.Query(t.Context(), db, stmt, nil, &sqldb.QueryOptions{MaxBytes: 1 << 20})
			if !errors.Is(err, sqlite3.TOOBIG) {
				t.Errorf("Query(%q) = %v, want the database's length limit", stmt, err)
			}
		}
	})
	t.Run("CTE bomb", func(t *testing.T) {
		start := time.Now()
		_, err := sqldb.Query(t.Context(), db, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`, nil, &sqldb.QueryOptions{Timeout: 200 * time.Millisecond})
		qerr, ok := errors.AsType[*sqldb.QueryError](err)
		if !ok || !qerr.TimedOut {
			t.Fatalf("an endless count = %v, want a *QueryError that timed out", err)
		}
		if !errors.Is(err, sqldb.ErrStatementTimeout) {
			t.Errorf("an endless count = %v, want it to match sqldb.ErrStatementTimeout, as on PostgreSQL", err)
		}
		if got, want := err.Error(), "sqldb: the statement ran past its time limit and was stopped: "; !strings.HasPrefix(got, want) || strings.Count(got, "sqldb: ") != 1 {
			t.Errorf("an endless count = %q, want it to start %q and say \"sqldb: \" once", got, want)
		}
		if d := time.Since(start); d > time.Minute { // a margin no load reaches: the statement would not end
			t.Errorf("the statement ran %v past a 200ms timeout", d)
		}
	})
	t.Run("caller's context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := sqldb.Query(ctx, db, million, nil, nil); err == nil {
			t.Error("Query with a canceled context = nil error")
		}
	})
	// The length limit is the session's only: the pool is as it was.
	var n int
	if err := db.QueryRow(`SELECT length(zeroblob(100000000))`).Scan(&n); err != nil || n != 100000000 {
		t.Errorf("after the sessions, a plain query of a 100 MB blob = %d, %v", n, err)
	}
}

func TestSchema(t *testing.T) {
	db, _ := open(t)
	if _, err := db.Exec(`CREATE TABLE tags(note INTEGER NOT NULL REFERENCES notes(id), tag TEXT, PRIMARY KEY (note, tag)); CREATE VIEW v AS SELECT body FROM notes`); err != nil {
		t.Fatal(err)
	}
	tables, err := sqldb.Schema(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 3 || tables[0].Name != "notes" || tables[1].Name != "tags" || !tables[2].View {
		t.Fatalf("Schema = %+v, want notes, tags and the view v", tables)
	}
	tags := tables[1]
	if len(tags.ForeignKeys) != 1 || tags.ForeignKeys[0].RefTable != "notes" || tags.Columns[0].PrimaryKey != 1 || tags.Columns[1].PrimaryKey != 2 || !tags.Columns[0].NotNull {
		t.Errorf("tags = %+v", tags)
	}
}

func TestOpenURLs(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{
		"sqlite://" + dir + "/x.db?cache=shared",
		"sqlite://host/x.db",
		"sqlite:x.db",
		"sqlite://" + dir + "/x.db?mode=rw",
		"sqlite://" + dir + "/missing.db?mode=ro",
		"sqlite://" + dir + "/x.db?max_open_conns=0",
	} {
		if db, err := sqldb.Open(t.Context(), bad); err == nil {
			db.Close()
			t.Errorf("Open(%q) = nil error", bad)
		}
	}
	db, err := sqldb.Open(t.Context(), "sqlite://"+dir+"/sub/x.db?max_open_conns=2&busy_timeout=1s")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := sqldb.Open(t.Context(), "sqlite://"+dir+"/sub/x.db?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := sqldb.Query(t.Context(), ro, `CREATE TABLE t(x)`, nil, &sqldb.QueryOptions{Write: true}); err == nil {
		t.Error("a write to a database opened with mode=ro succeeded")
	}
	_ = sqlitedb.Scheme
}

// TestRelativePath opens sqlite://./dir/x.db under the working directory.
func TestRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	db, err := sqldb.Open(t.Context(), "sqlite://./sub dir/x.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t(x)`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("sub dir", "x.db")); err != nil {
		t.Errorf("the database is not at ./sub dir/x.db: %v", err)
	}
}

// TestRefusalMessages checks that a refused statement says why, in the
// session's terms rather than SQLite's "not authorized": a change in a
// read-only session matches sqldb.ErrReadOnly, as PostgreSQL's does.
func TestRefusalMessages(t *testing.T) {
	db, _ := open(t)
	w := &sqldb.QueryOptions{Write: true}
	for _, c := range []struct {
		stmt     string
		opts     *sqldb.QueryOptions
		readOnly bool
		says     []string
	}{
		{`DELETE FROM notes`, nil, true, []string{"read-only", "delete from notes"}},
		{`INSERT INTO notes(body) VALUES ('x')`, nil, true, []string{"read-only", "insert into notes"}},
		{`UPDATE notes SET body = 'x'`, nil, true, []string{"read-only", "update notes"}},
		{`CREATE TABLE t(x)`, nil, true, []string{"read-only", "add to the schema"}},
		{`PRAGMA journal_mode = DELETE`, w, false, []string{"PRAGMA journal_mode", "table_info"}},
		{`ATTACH DATABASE 'x.db' AS o`, w, false, []string{"ATTACH", "only the bound database"}},
		{`DROP TABLE notes`, nil, true, []string{"read-only", "remove from the schema"}},
		{`BEGIN`, w, false, []string{"transaction", "each call"}},
		{`SELECT load_extension('x')`, w, false, []string{"load_extension"}},
	} {
		_, err := sqldb.Query(t.Context(), db, c.stmt, nil, c.opts)
		if err == nil {
			t.Errorf("Query(%q) = nil error", c.stmt)
			continue
		}
		if got := errors.Is(err, sqldb.ErrReadOnly); got != c.readOnly {
			t.Errorf("Query(%q) = %v; matches ErrReadOnly: %v, want %v", c.stmt, err, got, c.readOnly)
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Query(%q) = %v; want it to say %q", c.stmt, err, s)
			}
		}
		if strings.Contains(err.Error(), "not authorized") {
			t.Errorf("Query(%q) = %v; want the reason, not SQLite's words", c.stmt, err)
		}
	}
}

// TestSessionState runs, on a pool of one connection that every query
// shares, write sessions that leave temporary objects; the program's own
// queries see none of them.
func TestSessionState(t *testing.T) {
	_, dir := open(t)
	db, err := sqldb.Open(t.Context(), "sqlite://"+filepath.ToSlash(filepath.Join(dir, "app.db"))+"?max_open_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := &sqldb.QueryOptions{Write: true}
	for _, stmt := range []string{
		`CREATE TEMP TABLE leftover(x)`,
		`CREATE TEMP VIEW leftover_view AS SELECT 1`,
		`CREATE TEMP TRIGGER leftover_trigger AFTER INSERT ON notes BEGIN DELETE FROM notes; END`,
	} {
		if _, err := sqldb.Query(t.Context(), db, stmt, nil, w); err != nil {
			t.Fatalf("Query(%q): %v", stmt, err)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM temp.sqlite_schema`).Scan(&n); err != nil || n != 0 {
			t.Errorf("after %q, the program sees %d temporary objects (%v), want 0", stmt, n, err)
		}
	}
	before := count(t, db)
	if _, err := db.Exec(`INSERT INTO notes(body) VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db); n != before+1 {
		t.Errorf("after the program's insert, notes has %d rows, want %d", n, before+1)
	}
}

// TestStoredValuesPastTheByteLimit reads a stored value longer than the
// result's byte limit: its length and a part of it are read, and the value
// itself is cut by the byte limit rather than refused. A value past the
// length limit is refused with an error that names the limit.
func TestStoredValuesPastTheByteLimit(t *testing.T) {
	db, _ := open(t)
	if _, err := db.Exec(`CREATE TABLE files(data TEXT); INSERT INTO files VALUES (printf('%.*c', 1048576, 'x'))`); err != nil {
		t.Fatal(err)
	}
	res, err := sqldb.Query(t.Context(), db, `SELECT length(data), substr(data, 1, 2) FROM files`, nil, nil)
	if err != nil {
		t.Fatalf("length of a stored 1 MiB value: %v", err)
	}
	if res.Rows[0][0] != int64(1048576) || res.Rows[0][1] != "xx" {
		t.Errorf("length and first bytes = %v", res.Rows[0])
	}
	res, err = sqldb.Query(t.Context(), db, `SELECT data FROM files`, nil, nil)
	if err != nil || len(res.Rows) != 0 || !strings.Contains(res.Truncated, "byte limit") {
		t.Errorf("a stored 1 MiB value under the byte limit: %v rows, truncated %q, %v", len(res.Rows), res.Truncated, err)
	}
	_, err = sqldb.Query(t.Context(), db, `SELECT length(randomblob(?))`, []any{sqldb.DefaultMaxValueBytes + 1}, nil)
	if !errors.Is(err, sqlite3.TOOBIG) || !strings.Contains(err.Error(), fmt.Sprint(sqldb.DefaultMaxValueBytes)) {
		t.Errorf("a value past the length limit = %v, want an error naming the limit %d", err, sqldb.DefaultMaxValueBytes)
	}
	_, err = sqldb.Query(t.Context(), db, `SELECT length(data) FROM files`, nil, &sqldb.QueryOptions{MaxValueBytes: 1000})
	if !errors.Is(err, sqlite3.TOOBIG) || !strings.Contains(err.Error(), "1000") {
		t.Errorf("a stored value past a length limit of 1000 = %v, want an error naming the limit", err)
	}
}

// TestReadOnlyOpen opens a database read-only: an existing one, in WAL
// mode, is read; a missing one is an error that names the path, and
// neither the file nor its directory is created.
func TestReadOnlyOpen(t *testing.T) {
	_, dir := open(t)
	path := filepath.Join(dir, "app.db")
	db, err := sqldb.Open(t.Context(), "sqlite://"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db); n != 3 {
		t.Errorf("read-only, notes has %d rows, want 3", n)
	}
	missing := filepath.Join(dir, "typo", "ap.db")
	db2, err := sqldb.Open(t.Context(), "sqlite://"+filepath.ToSlash(missing)+"?mode=ro")
	if err == nil {
		db2.Close()
		t.Fatal("a read-only open of a missing file = nil error")
	}
	if !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only open of a missing file = %v, want an error naming %s that matches os.ErrNotExist", err, missing)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing file's directory: %v, want it not created", err)
	}
}

// TestRowsAffected reports the rows a write changed, in the result and its
// text, and none for a statement that changes no rows by its kind.
func TestRowsAffected(t *testing.T) {
	db, _ := open(t)
	w := &sqldb.QueryOptions{Write: true}
	for _, c := range []struct {
		stmt string
		want int64 // -1 for none
		text string
	}{
		{`UPDATE notes SET body = body || '!'`, 3, "(3 rows changed)"},
		{`DELETE FROM notes WHERE id = 1`, 1, "(1 row changed)"},
		{`DELETE FROM notes WHERE 0`, 0, "(0 rows changed)"},
		{`CREATE TRIGGER t AFTER INSERT ON notes BEGIN DELETE FROM notes WHERE 0; END`, -1, "(0 rows)"},
		{`SELECT count(*) FROM notes`, -1, "(1 row)"},
	} {
		res, err := sqldb.Query(t.Context(), db, c.stmt, nil, w)
		if err != nil {
			t.Fatalf("Query(%q): %v", c.stmt, err)
		}
		got := int64(-1)
		if res.RowsAffected != nil {
			got = *res.RowsAffected
		}
		if got != c.want || !strings.HasSuffix(res.Text(), c.text) {
			t.Errorf("Query(%q): rows affected %d, text %q; want %d and %q", c.stmt, got, res.Text(), c.want, c.text)
		}
	}
}
