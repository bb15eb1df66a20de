package pgdb_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/pgdb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// documentedRole returns the statements that create the least-privilege
// role in the package documentation, the indented block of pgdb.go that
// starts with CREATE ROLE hands_sql.
func documentedRole(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("pgdb.go")
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	for line := range strings.SplitSeq(string(src), "\n") {
		if strings.HasPrefix(line, "//\tCREATE ROLE hands_sql ") || len(block) > 0 && strings.HasPrefix(line, "//\t") {
			block = append(block, strings.TrimPrefix(line, "//\t"))
		} else if len(block) > 0 {
			break
		}
	}
	if len(block) == 0 {
		t.Fatal("pgdb.go's documentation has no block that starts with CREATE ROLE hands_sql")
	}
	return strings.Join(block, "\n")
}

// TestPostgres runs every test of a real server, started once.
func TestPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	// The server's role is a superuser: the tests set up as one.
	admin := srv.URL + "&allow_superuser=true"
	db, err := sqldb.Open(t.Context(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE notes(id serial PRIMARY KEY, body text NOT NULL);
		CREATE TABLE tags(note int NOT NULL REFERENCES notes(id), tag text, PRIMARY KEY (note, tag));
		INSERT INTO notes(body) VALUES ('one'), ('two'), ('three')`); err != nil {
		t.Fatal(err)
	}
	count := func(t *testing.T) int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM notes`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("query", func(t *testing.T) {
		res, err := sqldb.Query(t.Context(), db, `SELECT id, body FROM notes WHERE id >= $1 ORDER BY id`, []any{"2"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Text(), "id (INT4) | body (TEXT)\n2 | two\n3 | three\n(2 rows)"; got != want {
			t.Errorf("Query text =\n%s\nwant\n%s", got, want)
		}
	})

	// The read-only escapes: each is refused or changes nothing, and the
	// rows stay three.
	t.Run("read-only escapes", func(t *testing.T) {
		for _, stmt := range []string{
			`DELETE FROM notes`,
			`INSERT INTO notes(body) VALUES ('x')`,
			`COMMIT; DELETE FROM notes`,
			`COMMIT; INSERT INTO notes(body) VALUES ('x')`,
			`ROLLBACK; DELETE FROM notes`,
			`SET TRANSACTION READ WRITE; DELETE FROM notes`,
			`SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE FROM notes`,
			`BEGIN; DELETE FROM notes; COMMIT`,
			`END; DELETE FROM notes`,
			`SELECT 1; DELETE FROM notes`,
			`WITH d AS (DELETE FROM notes RETURNING *) SELECT * FROM d`,
			`CREATE TABLE t(x int)`,
			`DROP TABLE notes`,
			`TRUNCATE notes`,
			`SET statement_timeout = 0; SELECT pg_sleep(100)`,
			`DO $$ BEGIN DELETE FROM notes; END $$`,
			`SELECT set_config('default_transaction_read_only', 'off', false); DELETE FROM notes`,
		} {
			if _, err := sqldb.Query(t.Context(), db, stmt, nil, nil); err == nil {
				t.Errorf("Query(%q) read-only = nil error, want a refusal", stmt)
			}
		}
		// Statements that run alone and change nothing that outlives the
		// call; the write after each is still refused.
		for _, stmt := range []string{
			`COMMIT`, `ROLLBACK`, `SET TRANSACTION READ WRITE`, `SET default_transaction_read_only = off`,
			`SET statement_timeout = 0`, `SELECT set_config('default_transaction_read_only', 'off', false)`,
		} {
			sqldb.Query(t.Context(), db, stmt, nil, nil)
			if _, err := sqldb.Query(t.Context(), db, `DELETE FROM notes`, nil, nil); err == nil {
				t.Errorf("after %q, a read-only DELETE succeeded", stmt)
			}
		}
		if n := count(t); n != 3 {
			t.Errorf("after the escapes, notes has %d rows, want 3", n)
		}
	})

	// A change refused in a read-only session says so, and matches
	// sqldb.ErrReadOnly as SQLite's refusal does.
	t.Run("read-only message", func(t *testing.T) {
		_, err := sqldb.Query(t.Context(), db, `DELETE FROM notes`, nil, nil)
		if !errors.Is(err, sqldb.ErrReadOnly) || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("a read-only DELETE = %v, want an error that matches sqldb.ErrReadOnly", err)
		}
		if _, err := sqldb.Query(t.Context(), db, `SELECT nonsense FROM nowhere`, nil, nil); errors.Is(err, sqldb.ErrReadOnly) {
			t.Errorf("an unknown table = %v, matches sqldb.ErrReadOnly", err)
		}
	})

	// A column of a type outside pgx's map (void, an enum, a domain) is
	// named by the type's name, not its number.
	t.Run("type names", func(t *testing.T) {
		if _, err := db.Exec(`CREATE TYPE mood AS ENUM ('happy', 'sad'); CREATE DOMAIN posint AS int CHECK (VALUE > 0)`); err != nil {
			t.Fatal(err)
		}
		res, err := sqldb.Query(t.Context(), db, `SELECT pg_sleep(0) AS nothing, 'happy'::mood AS m, 3::posint AS p, 'x'::text AS t`, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range res.Columns {
			got = append(got, c.Type)
		}
		if want := []string{"VOID", "MOOD", "INT4", "TEXT"}; !slices.Equal(got, want) {
			t.Errorf("column types = %q, want %q", got, want)
		}
		if res.Rows[0][1] != "happy" {
			t.Errorf("the enum's value = %#v", res.Rows[0][1])
		}
	})

	// Each call leaves its connection as it found it: on a pool of one
	// connection, which every query shares, the program sees nothing of a
	// lock, a prepared statement, a setting or a temporary table that a
	// statement left, and its own prepared statement still runs.
	t.Run("session state", func(t *testing.T) {
		one, err := sqldb.Open(t.Context(), admin+"&max_open_conns=1")
		if err != nil {
			t.Fatal(err)
		}
		defer one.Close()
		own, err := one.Prepare(`SELECT count(*) FROM notes WHERE id > $1`)
		if err != nil {
			t.Fatal(err)
		}
		defer own.Close()
		var searchPath string
		if err := one.QueryRow(`SHOW search_path`).Scan(&searchPath); err != nil {
			t.Fatal(err)
		}
		w := &sqldb.QueryOptions{Write: true}
		for _, c := range []struct {
			stmt  string
			opts  *sqldb.QueryOptions
			check string // a query of the program that must return 0
		}{
			{`SELECT pg_advisory_lock(42)`, nil, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'`},
			{`PREPARE leftover AS SELECT 1`, nil, `SELECT count(*) FROM pg_prepared_statements WHERE from_sql`},
			{`PREPARE leftover AS SELECT 1`, w, `SELECT count(*) FROM pg_prepared_statements WHERE from_sql`},
			{`SET search_path = nowhere`, w, `SELECT count(*) WHERE current_setting('search_path') <> '` + searchPath + `'`},
			{`SELECT set_config('app.leftover', 'x', false)`, w, `SELECT count(*) WHERE coalesce(current_setting('app.leftover', true), '') <> ''`},
			{`CREATE TEMP TABLE leftover(x int)`, w, `SELECT count(*) FROM pg_class WHERE relname = 'leftover'`},
			{`LISTEN leftover`, nil, `SELECT count(*) FROM pg_listening_channels()`},
		} {
			if _, err := sqldb.Query(t.Context(), one, c.stmt, nil, c.opts); err != nil {
				t.Fatalf("Query(%q): %v", c.stmt, err)
			}
			var n int
			if err := one.QueryRow(c.check).Scan(&n); err != nil {
				t.Fatalf("after %q, %s: %v", c.stmt, c.check, err)
			}
			if n != 0 {
				t.Errorf("after %q, the program's %s = %d, want 0", c.stmt, c.check, n)
			}
			if err := own.QueryRow(0).Scan(&n); err != nil || n != 3 {
				t.Errorf("after %q, the program's prepared statement = %d, %v; want 3", c.stmt, n, err)
			}
			if err := one.QueryRow(`SELECT count(*) FROM notes WHERE body <> $1`, "x").Scan(&n); err != nil {
				t.Errorf("after %q, the program's query with an argument: %v", c.stmt, err)
			}
		}
	})

	t.Run("write", func(t *testing.T) {
		w := &sqldb.QueryOptions{Write: true}
		res, err := sqldb.Query(t.Context(), db, `INSERT INTO notes(body) VALUES ($1) RETURNING id`, []any{"four"}, w)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 {
			t.Errorf("INSERT RETURNING rows = %v", res.Rows)
		}
		if _, err := sqldb.Query(t.Context(), db, `INSERT INTO notes(body) VALUES ('a'); INSERT INTO notes(body) VALUES ('b')`, nil, w); err == nil {
			t.Error("two statements in a writable session = nil error")
		}
		if _, err := sqldb.Query(t.Context(), db, `DELETE FROM notes WHERE body = 'four'`, nil, w); err != nil {
			t.Fatal(err)
		}
		if n := count(t); n != 3 {
			t.Errorf("notes has %d rows, want 3", n)
		}
	})

	t.Run("rows affected", func(t *testing.T) {
		w := &sqldb.QueryOptions{Write: true}
		for _, c := range []struct {
			stmt string
			args []any
			want int64 // -1 for none
			text string
		}{
			{`INSERT INTO notes(body) SELECT 'n' || g FROM generate_series(1, $1::int) g`, []any{"2"}, 2, "(2 rows changed)"},
			{`DELETE FROM notes WHERE body LIKE 'n%'`, nil, 2, "(2 rows changed)"},
			{`DELETE FROM notes WHERE false`, nil, 0, "(0 rows changed)"},
			{`COMMENT ON TABLE notes IS 'notes'`, nil, -1, "(0 rows)"},
			{`SELECT count(*) FROM notes`, nil, -1, "(1 row)"},
		} {
			res, err := sqldb.Query(t.Context(), db, c.stmt, c.args, w)
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
		if n := count(t); n != 3 {
			t.Errorf("notes has %d rows, want 3", n)
		}
	})

	t.Run("pg_sleep", func(t *testing.T) {
		for _, stmt := range []string{`SELECT pg_sleep(60)`, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`} {
			start := time.Now()
			_, err := sqldb.Query(t.Context(), db, stmt, nil, &sqldb.QueryOptions{Timeout: 300 * time.Millisecond})
			if qerr, ok := errors.AsType[*sqldb.QueryError](err); !ok || !qerr.TimedOut || !errors.Is(err, sqldb.ErrStatementTimeout) {
				t.Errorf("Query(%q) = %v, want a *QueryError that timed out and matches sqldb.ErrStatementTimeout", stmt, err)
			}
			if d := time.Since(start); d > time.Minute { // a margin no load reaches: the statement would not end
				t.Errorf("Query(%q) ran %v past a 300ms timeout", stmt, d)
			}
		}
		// The server ends it too, whatever the client does.
		tx, err := db.BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		var n int
		if err := tx.QueryRow(`SELECT 1`).Scan(&n); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("millions of rows", func(t *testing.T) {
		start := time.Now()
		res, err := sqldb.Query(t.Context(), db, `SELECT generate_series(1, 100000000)`, nil, &sqldb.QueryOptions{MaxRows: 50, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Minute { // a margin no load reaches: the statement would not end
			t.Errorf("50 rows of 100M took %v: the rest were read", d)
		}
		if len(res.Rows) != 50 || res.Truncated == "" {
			t.Errorf("100M rows under a 50-row limit: %d rows, truncated %q", len(res.Rows), res.Truncated)
		}
		res, err = sqldb.Query(t.Context(), db, `SELECT repeat('x', 1000) FROM generate_series(1, 1000000)`, nil, &sqldb.QueryOptions{MaxBytes: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 10 || res.Truncated == "" {
			t.Errorf("1000-byte rows under a 10000-byte limit: %d rows, truncated %q", len(res.Rows), res.Truncated)
		}
	})

	// A value far past the byte limit is not read: the memory the call
	// allocates is bounded by the limit, not by the value, and the result
	// says the limit stopped it. The pool still serves the program.
	t.Run("huge value", func(t *testing.T) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := sqldb.Query(t.Context(), db, `SELECT 'a' UNION ALL SELECT repeat('x', 10000000)`, nil, &sqldb.QueryOptions{Timeout: time.Minute})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		grew := after.TotalAlloc - before.TotalAlloc
		t.Logf("a row of 10 MB after a short one, under a %d-byte limit: %d bytes allocated", sqldb.DefaultMaxBytes, grew)
		if grew > 16<<20 {
			t.Errorf("a row of 10 MB under a %d-byte limit allocated %d bytes", sqldb.DefaultMaxBytes, grew)
		}
		if len(res.Rows) != 1 || !strings.Contains(res.Truncated, "byte limit") {
			t.Errorf("rows %v, truncated %q; want the first row and the byte limit", res.Rows, res.Truncated)
		}
		before = after
		res, err = sqldb.Query(t.Context(), db, `SELECT repeat('x', 30000000)`, nil, &sqldb.QueryOptions{Timeout: time.Minute})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		grew = after.TotalAlloc - before.TotalAlloc
		t.Logf("a value of 30 MB under a %d-byte limit: %d bytes allocated", sqldb.DefaultMaxBytes, grew)
		if grew > 16<<20 {
			t.Errorf("a value of 30 MB under a %d-byte limit allocated %d bytes", sqldb.DefaultMaxBytes, grew)
		}
		if len(res.Rows) != 0 || !strings.Contains(res.Truncated, "byte limit") {
			t.Errorf("rows %d, truncated %q; want none and the byte limit", len(res.Rows), res.Truncated)
		}
		// Rows within the limit are read whole, even those whose binary
		// form is several times their text's length.
		res, err = sqldb.Query(t.Context(), db, `SELECT repeat('x', 250000) AS s UNION ALL SELECT array_agg(1::int8)::text FROM generate_series(1, 1) UNION ALL SELECT NULL`, nil, nil)
		if err != nil || len(res.Rows) != 3 || res.Truncated != "" {
			t.Errorf("rows within the limit: %d rows, truncated %q, %v", len(res.Rows), res.Truncated, err)
		}
		res, err = sqldb.Query(t.Context(), db, `SELECT array_agg(1::int8) FROM generate_series(1, 100000)`, nil, nil)
		if err != nil || len(res.Rows) != 1 || res.Truncated != "" {
			t.Errorf("an array of 100000 bigints: %d rows, truncated %q, %v", len(res.Rows), res.Truncated, err)
		}
		// Under a write, the row is not read either, and the statement is
		// not committed: an error says so.
		_, err = sqldb.Query(t.Context(), db, `INSERT INTO notes(body) VALUES (repeat('x', 10000000)) RETURNING body`, nil, &sqldb.QueryOptions{Write: true, Timeout: time.Minute})
		if !errors.Is(err, sqldb.ErrRowTooLarge) {
			t.Errorf("a write returning 10 MB = %v, want sqldb.ErrRowTooLarge", err)
		}
		if n := count(t); n != 3 {
			t.Errorf("notes has %d rows, want 3: the write was committed", n)
		}
	})

	t.Run("caller's context", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		if _, err := sqldb.Query(ctx, db, `SELECT pg_sleep(60)`, nil, nil); err == nil {
			t.Error("Query past the caller's deadline = nil error")
		}
	})

	t.Run("schema", func(t *testing.T) {
		tables, err := sqldb.Schema(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		if len(tables) != 2 || tables[0].Name != "notes" || tables[1].Name != "tags" {
			t.Fatalf("Schema = %+v", tables)
		}
		tags := tables[1]
		if len(tags.ForeignKeys) != 1 || tags.ForeignKeys[0].RefTable != "notes" || tags.Columns[0].PrimaryKey != 1 || tags.Columns[1].PrimaryKey != 2 || !tags.Columns[0].NotNull {
			t.Errorf("tags = %+v", tags)
		}
	})

	// As whom a URL connects: the server's, another role with its password.
	as := func(role, password string) string {
		u, _ := url.Parse(srv.URL)
		u.User = url.UserPassword(role, password)
		return u.String()
	}

	// A role that could reach the database host is refused, unless the URL
	// or the options allow it; so is a connection made after the role
	// became one.
	t.Run("privileged roles", func(t *testing.T) {
		if _, err := db.Exec(`
			CREATE ROLE priv_super LOGIN SUPERUSER PASSWORD 'pw-priv';
			CREATE ROLE priv_read LOGIN PASSWORD 'pw-priv' IN ROLE pg_read_server_files;
			CREATE ROLE priv_write LOGIN PASSWORD 'pw-priv' IN ROLE pg_write_server_files;
			CREATE ROLE priv_mid NOLOGIN IN ROLE pg_execute_server_program;
			CREATE ROLE priv_inherited LOGIN PASSWORD 'pw-priv' IN ROLE priv_mid;
			CREATE ROLE priv_noinherit LOGIN NOINHERIT PASSWORD 'pw-priv' IN ROLE hands;
			CREATE ROLE priv_createrole LOGIN CREATEROLE PASSWORD 'pw-priv';
			CREATE ROLE priv_plain LOGIN PASSWORD 'pw-priv'`); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ url, why string }{
			{srv.URL, `the role "hands" is a superuser`},
			{as("priv_super", "pw-priv"), `the role "priv_super" is a superuser`},
			{as("priv_read", "pw-priv"), `the role "priv_read" is a member of pg_read_server_files`},
			{as("priv_write", "pw-priv"), `the role "priv_write" is a member of pg_write_server_files`},
			{as("priv_inherited", "pw-priv"), `the role "priv_inherited" is a member of pg_execute_server_program`},
			{as("priv_noinherit", "pw-priv"), `the role "priv_noinherit" is a member of the superuser "hands"`},
			{as("priv_createrole", "pw-priv"), `the role "priv_createrole" has CREATEROLE`},
			{as("priv_plain", "pw-priv") + "&allow_superuser=false", `the role`},
		} {
			if c.url == as("priv_plain", "pw-priv")+"&allow_superuser=false" {
				if _, err := db.Exec(`ALTER ROLE priv_plain SUPERUSER`); err != nil {
					t.Fatal(err)
				}
			}
			pdb, err := sqldb.Open(t.Context(), c.url)
			if err == nil {
				pdb.Close()
				t.Errorf("Open(%s) = nil error, want a privileged role refused", c.url)
				continue
			}
			if !errors.Is(err, pgdb.ErrPrivilegedRole) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "allow_superuser=true") ||
				strings.Contains(err.Error(), "pw-priv") || strings.Contains(err.Error(), srv.Password) {
				t.Errorf("Open(%s) = %v\nwant an error that wraps ErrPrivilegedRole, says %s and allow_superuser=true, and holds no password", c.url, err, c.why)
			}
			pdb, err = sqldb.Open(t.Context(), strings.Replace(c.url, "&allow_superuser=false", "", 1)+"&allow_superuser=true")
			if err != nil {
				t.Errorf("Open(%s) with allow_superuser=true = %v", c.url, err)
				continue
			}
			pdb.Close()
		}
		if _, err := db.Exec(`ALTER ROLE priv_plain NOSUPERUSER`); err != nil {
			t.Fatal(err)
		}

		// Every new connection checks: one made after the role became a
		// superuser is refused.
		plain, err := sqldb.Open(t.Context(), as("priv_plain", "pw-priv")+"&max_open_conns=1")
		if err != nil {
			t.Fatal(err)
		}
		defer plain.Close()
		if _, err := sqldb.Query(t.Context(), plain, `SELECT 1`, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`ALTER ROLE priv_plain SUPERUSER`); err != nil {
			t.Fatal(err)
		}
		plain.SetMaxIdleConns(0) // closes the idle connection
		if _, err := sqldb.Query(t.Context(), plain, `SELECT 1`, nil, nil); !errors.Is(err, pgdb.ErrPrivilegedRole) {
			t.Errorf("a query on a new connection of a role become superuser = %v, want ErrPrivilegedRole", err)
		}

		if pdb, err := sqldb.Open(t.Context(), srv.URL+"&allow_superuser=yes-please"); err == nil || !strings.Contains(err.Error(), "allow_superuser=yes-please: want true or false") {
			if pdb != nil {
				pdb.Close()
			}
			t.Errorf("Open with allow_superuser=yes-please = %v", err)
		}
	})

	t.Run("OpenConfig", func(t *testing.T) {
		cfg, err := pgx.ParseConfig(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pgdb.OpenConfig(t.Context(), cfg, nil)
		if !errors.Is(err, pgdb.ErrPrivilegedRole) || !strings.Contains(err.Error(), "Options.AllowSuperuser") || strings.Contains(err.Error(), srv.Password) {
			t.Errorf("OpenConfig of a superuser = %v, want ErrPrivilegedRole naming Options.AllowSuperuser, without the password", err)
		}
		cdb, err := pgdb.OpenConfig(t.Context(), cfg, &pgdb.Options{AllowSuperuser: true, MaxOpenConns: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer cdb.Close()
		if n := cdb.Stats().MaxOpenConnections; n != 2 {
			t.Errorf("MaxOpenConnections = %d, want 2", n)
		}
		if _, err := sqldb.Query(t.Context(), cdb, `SELECT 1`, nil, nil); err != nil {
			t.Error(err)
		}
	})

	// The role the package documentation sets up, by its very statements:
	// it reads what it was granted, and the server refuses the rest, in a
	// writable session too, so that no refusal is the read-only
	// transaction's.
	t.Run("least-privilege role", func(t *testing.T) {
		pw := rand.Text()
		stmts := documentedRole(t)
		readme, err := os.ReadFile("../../README.md")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), "```sql\n"+stmts+"\n```") {
			t.Errorf("README.md does not give the statements of the package documentation:\n%s", stmts)
		}
		for _, s := range []string{"'CHANGE-ME'", "DATABASE app "} {
			if !strings.Contains(stmts, s) {
				t.Fatalf("the documented statements have no %s to replace:\n%s", s, stmts)
			}
		}
		stmts = strings.ReplaceAll(stmts, "'CHANGE-ME'", "'"+pw+"'")
		stmts = strings.ReplaceAll(stmts, "DATABASE app ", "DATABASE postgres ")
		if _, err := db.Exec(`CREATE TABLE secrets(v text); INSERT INTO secrets VALUES ('s')`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(stmts); err != nil {
			t.Fatalf("the documented statements: %v\n%s", err, stmts)
		}
		ro, err := sqldb.Open(t.Context(), as("hands_sql", pw))
		if err != nil {
			t.Fatalf("Open as the documented role = %v", err)
		}
		defer ro.Close()
		res, err := sqldb.Query(t.Context(), ro, `SELECT n.body, count(t.tag) FROM notes n LEFT JOIN tags t ON t.note = n.id GROUP BY n.id ORDER BY n.id`, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 3 || res.Rows[0][0] != "one" {
			t.Errorf("the role's query = %v", res.Rows)
		}
		// Another session of the role, which the model must not end.
		other, err := ro.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		var pid int
		if err := other.QueryRowContext(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		var hands int
		if err := db.QueryRow(`SELECT pg_backend_pid()`).Scan(&hands); err != nil {
			t.Fatal(err)
		}
		w := &sqldb.QueryOptions{Write: true}
		for _, c := range []struct {
			stmt string
			args []any
		}{
			{`COPY (SELECT 1) TO PROGRAM 'true'`, nil},
			{`SELECT pg_read_file('PG_VERSION')`, nil},
			{`SELECT lo_import('/etc/hostname')`, nil},
			{`SELECT rolpassword FROM pg_authid`, nil},
			{`SET ROLE hands`, nil},
			{`SELECT pg_terminate_backend($1)`, []any{pid}},
			{`SELECT pg_cancel_backend($1)`, []any{pid}},
			{`SELECT pg_terminate_backend($1)`, []any{hands}},
			{`SELECT v FROM secrets`, nil},
			{`INSERT INTO notes(body) VALUES ('x')`, nil},
			{`CREATE TABLE planted(x int)`, nil},
			{`CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE sql AS 'SELECT $1'`, nil},
		} {
			_, err := sqldb.Query(t.Context(), ro, c.stmt, c.args, w)
			pe, ok := errors.AsType[*pgconn.PgError](err)
			if !ok || pe.Code != "42501" {
				t.Errorf("%s as the documented role = %v, want a refusal for want of privilege (42501)", c.stmt, err)
			}
		}
		if err := other.PingContext(t.Context()); err != nil {
			t.Errorf("the role's other session ended: %v", err)
		}
		if n := count(t); n != 3 {
			t.Errorf("notes has %d rows, want 3", n)
		}
	})

	// No message names the password: a wrong password, a wrong port, a bad
	// parameter, a refused statement.
	t.Run("messages", func(t *testing.T) {
		u, _ := url.Parse(srv.URL)
		wrong := *u
		wrong.User = url.UserPassword("hands", "Sekr1t-wrong-pw")
		closed := *u
		closed.Host = "127.0.0.1:1"
		bad := *u
		bad.RawQuery = "sslmode=disable&pool=9"
		// The password in the query, where libpq and pgx read it too, and
		// sslpassword, the key's.
		query := *u
		query.User = url.User("hands")
		query.RawQuery = "sslmode=disable&password=Sekr1t-wrong-pw"
		sslpw := query
		sslpw.RawQuery = "sslmode=disable&sslpassword=Sekr1t-wrong-pw"
		for _, s := range []string{wrong.String(), closed.String(), bad.String(), strings.Replace(srv.URL, "sslmode=disable", "sslmode=nonsense", 1),
			query.String(), query.String() + "&pool=9", query.String() + "&options=%zz", sslpw.String(), sslpw.String() + "&pool=9",
			strings.Replace(query.String(), "Sekr1t", "Sekr1t%zz", 1), strings.Replace(srv.URL, "@", "%zzSekr1t-wrong-pw@", 1)} {
			db, err := sqldb.Open(t.Context(), s)
			if err == nil {
				db.Close()
				t.Errorf("Open(%s) = nil error", s)
				continue
			}
			for _, secret := range []string{srv.Password, "Sekr1t-wrong-pw"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("Open's error holds the password: %v", err)
				}
			}
		}
		_, err := sqldb.Query(t.Context(), db, `SELECT nonsense FROM nowhere`, nil, nil)
		if err == nil || strings.Contains(err.Error(), srv.Password) || strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("a refused statement's error = %v", err)
		}
	})
}
