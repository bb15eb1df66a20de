package toolbox_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/internal/redistest"
	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/hands-go/hands/kv/rediskv"
	"github.com/hands-go/hands/kv/sqlitekv"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/kvtool"
	"github.com/hands-go/hands/toolbox/sqltool"
	"github.com/redis/go-redis/v9"
)

// BenchmarkSQLQuery reads one row of 1000 by its key three ways: the
// driver directly (database/sql), sqldb.Query (a read-only session: a
// connection of its own, query_only, the authorizer and the limits), and
// the sql_query tool (arguments validated, the result encoded and
// rendered).
func BenchmarkSQLQuery(b *testing.B) {
	ctx := context.Background()
	db, err := sqldb.Open(ctx, "sqlite://"+filepath.ToSlash(b.TempDir())+"/bench.db")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		db.Exec(`INSERT INTO notes(body) VALUES (?)`, fmt.Sprintf("note number %d", i))
	}
	const stmt = `SELECT id, body FROM notes WHERE id = ?`
	b.Run("driver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var id int
			var body string
			if err := db.QueryRowContext(ctx, stmt, 500).Scan(&id, &body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqldb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := sqldb.Query(ctx, db, stmt, []any{500}, nil)
			if err != nil || len(res.Rows) != 1 {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		t := sqltool.Query(db, nil)
		call := tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"SELECT id, body FROM notes WHERE id = ?","params":["500"]}`)}
		b.ReportAllocs()
		for b.Loop() {
			if res := tool.Run(ctx, t, call); res.IsError {
				b.Fatal(res.Err)
			}
		}
	})
}

// BenchmarkKV measures the key-value stores: for each of the embedded
// default (sqlitekv) and Redis (rediskv, a server on 127.0.0.1), a Get
// through the driver, through kv.Store, and through the kv_get tool, and a
// Put through kv.Store. Redis is skipped where redis-server is missing.
func BenchmarkKV(b *testing.B) {
	ctx := context.Background()
	stores := map[string]func(b *testing.B) driver.Store{
		"sqlite": func(b *testing.B) driver.Store {
			s, err := sqlitekv.Open(ctx, filepath.Join(b.TempDir(), "kv.db"))
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		"redis": func(b *testing.B) driver.Store {
			srv := redistest.Start(b)
			opts, err := redis.ParseURL(srv.URL)
			if err != nil {
				b.Fatal(err)
			}
			return rediskv.New(redis.NewClient(opts), "bench:")
		},
	}
	for _, name := range []string{"sqlite", "redis"} {
		b.Run(name, func(b *testing.B) {
			d := stores[name](b)
			s := kv.New(d, nil)
			defer s.Close()
			for i := range 1000 {
				if err := s.Put(ctx, fmt.Sprintf("user/%d/name", i), []byte("Ada Lovelace"), nil); err != nil {
					b.Fatal(err)
				}
			}
			now := time.Now()
			b.Run("get/driver", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.Get(ctx, "user/500/name", now); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("get/store", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Get(ctx, "user/500/name"); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("get/tool", func(b *testing.B) {
				get := kvtool.Tools(s)[0]
				call := tool.Call{Name: "kv_get", Args: json.RawMessage(`{"key":"user/500/name"}`)}
				b.ReportAllocs()
				for b.Loop() {
					if res := tool.Run(ctx, get, call); res.IsError {
						b.Fatal(res.Err)
					}
				}
			})
			b.Run("put/store", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := s.Put(ctx, fmt.Sprintf("user/%d/name", i%1000), []byte("Ada Lovelace"), nil); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}

// BenchmarkOverheadRatio interleaves a direct driver call with the same read
// through a tool, each iteration timing both, and reports the ratio of
// their total times: on a shared machine the two see the same moments, so
// the ratio varies far less than either time.
func BenchmarkOverheadRatio(b *testing.B) {
	ctx := context.Background()
	ratio := func(b *testing.B, direct, via func()) {
		b.Helper()
		var d, v time.Duration
		for b.Loop() {
			t0 := time.Now()
			direct()
			t1 := time.Now()
			via()
			d += t1.Sub(t0)
			v += time.Since(t1)
		}
		b.ReportMetric(float64(v)/float64(d), "ratio")
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "direct-ns/op")
		b.ReportMetric(float64(v.Nanoseconds())/float64(b.N), "tool-ns/op")
	}
	b.Run("sql_query/sqlite", func(b *testing.B) {
		db, err := sqldb.Open(ctx, "sqlite://"+filepath.ToSlash(b.TempDir())+"/bench.db")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)`)
		for i := range 1000 {
			db.Exec(`INSERT INTO notes(body) VALUES (?)`, fmt.Sprintf("note number %d", i))
		}
		t := sqltool.Query(db, nil)
		call := tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"SELECT id, body FROM notes WHERE id = ?","params":["500"]}`)}
		ratio(b, func() {
			var id int
			var body string
			if err := db.QueryRowContext(ctx, `SELECT id, body FROM notes WHERE id = ?`, 500).Scan(&id, &body); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if res := tool.Run(ctx, t, call); res.IsError {
				b.Fatal(res.Err)
			}
		})
	})
	kvRatio := func(b *testing.B, d driver.Store) {
		s := kv.New(d, nil)
		defer s.Close()
		if err := s.Put(ctx, "user/500/name", []byte("Ada Lovelace"), nil); err != nil {
			b.Fatal(err)
		}
		get := kvtool.Tools(s)[0]
		call := tool.Call{Name: "kv_get", Args: json.RawMessage(`{"key":"user/500/name"}`)}
		ratio(b, func() {
			if _, err := d.Get(ctx, "user/500/name", time.Now()); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if res := tool.Run(ctx, get, call); res.IsError {
				b.Fatal(res.Err)
			}
		})
	}
	b.Run("kv_get/sqlite", func(b *testing.B) {
		d, err := sqlitekv.Open(ctx, filepath.Join(b.TempDir(), "kv.db"))
		if err != nil {
			b.Fatal(err)
		}
		kvRatio(b, d)
	})
	b.Run("kv_get/redis", func(b *testing.B) {
		srv := redistest.Start(b)
		opts, err := redis.ParseURL(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		kvRatio(b, rediskv.New(redis.NewClient(opts), "bench:"))
	})
}

// BenchmarkKVStoreRatio interleaves the embedded store (sqlitekv) and Redis
// (rediskv, on 127.0.0.1) on the same Get and Put through kv.Store, and
// reports Redis' time over the embedded store's, with the operations per
// second of each.
func BenchmarkKVStoreRatio(b *testing.B) {
	ctx := context.Background()
	lite, err := sqlitekv.Open(ctx, filepath.Join(b.TempDir(), "kv.db"))
	if err != nil {
		b.Fatal(err)
	}
	srv := redistest.Start(b)
	opts, err := redis.ParseURL(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	stores := [2]*kv.Store{kv.New(lite, nil), kv.New(rediskv.New(redis.NewClient(opts), "bench:"), nil)}
	defer stores[0].Close()
	defer stores[1].Close()
	for _, s := range stores {
		for i := range 1000 {
			if err := s.Put(ctx, fmt.Sprintf("user/%d/name", i), []byte("Ada Lovelace"), nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, op := range []string{"get", "put"} {
		b.Run(op, func(b *testing.B) {
			var took [2]time.Duration
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("user/%d/name", i%1000)
				for j, s := range stores {
					t0 := time.Now()
					var err error
					if op == "get" {
						_, err = s.Get(ctx, key)
					} else {
						err = s.Put(ctx, key, []byte("Ada Lovelace"), nil)
					}
					took[j] += time.Since(t0)
					if err != nil {
						b.Fatal(err)
					}
				}
				i++
			}
			b.ReportMetric(float64(took[1])/float64(took[0]), "redis/sqlite")
			b.ReportMetric(float64(b.N)/took[0].Seconds(), "sqlite-ops/s")
			b.ReportMetric(float64(b.N)/took[1].Seconds(), "redis-ops/s")
		})
	}
}

// BenchmarkSQLRows reads 100 rows of two columns, a number and a short
// text, on SQLite and on PostgreSQL (a server on 127.0.0.1, started by the
// benchmark; skipped without one), three ways interleaved in each
// iteration: database/sql directly, sqldb.Query, and the sql_query tool
// (arguments validated, the result encoded and its table rendered). It
// reports each one's time and the ratios tool/sqldb and sqldb/driver.
func BenchmarkSQLRows(b *testing.B) {
	ctx := context.Background()
	const stmt = `SELECT id, body FROM notes ORDER BY id LIMIT 100`
	run := func(b *testing.B, db *sql.DB) {
		for i := range 1000 {
			if _, err := db.Exec(`INSERT INTO notes(body) VALUES ('note number ' || `+map[bool]string{true: "?", false: "$1::text"}[dialectIsSQLite(db)]+`)`, fmt.Sprint(i)); err != nil {
				b.Fatal(err)
			}
		}
		t := sqltool.Query(db, nil)
		call := tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"` + stmt + `"}`)}
		var took [3]time.Duration
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			rows, err := db.QueryContext(ctx, stmt)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var id int64
				var body string
				if err := rows.Scan(&id, &body); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if err := rows.Close(); err != nil || n != 100 {
				b.Fatal(n, err)
			}
			t1 := time.Now()
			res, err := sqldb.Query(ctx, db, stmt, nil, nil)
			if err != nil || len(res.Rows) != 100 {
				b.Fatal(err)
			}
			t2 := time.Now()
			if r := tool.Run(ctx, t, call); r.IsError {
				b.Fatal(r.Err)
			}
			took[0] += t1.Sub(t0)
			took[1] += t2.Sub(t1)
			took[2] += time.Since(t2)
		}
		n := float64(b.N)
		b.ReportMetric(float64(took[0].Nanoseconds())/n, "driver-ns/op")
		b.ReportMetric(float64(took[1].Nanoseconds())/n, "sqldb-ns/op")
		b.ReportMetric(float64(took[2].Nanoseconds())/n, "tool-ns/op")
		b.ReportMetric(float64(took[2])/float64(took[1]), "tool/sqldb")
		b.ReportMetric(float64(took[1])/float64(took[0]), "sqldb/driver")
	}
	b.Run("sqlite", func(b *testing.B) {
		db, err := sqldb.Open(ctx, "sqlite://"+filepath.ToSlash(b.TempDir())+"/bench.db")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)`); err != nil {
			b.Fatal(err)
		}
		run(b, db)
	})
	b.Run("postgres", func(b *testing.B) {
		srv := pgtest.Start(b)
		db, err := sqldb.Open(ctx, srv.URL+"&allow_superuser=true") // the test server's role is its superuser
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE notes(id serial PRIMARY KEY, body text NOT NULL)`); err != nil {
			b.Fatal(err)
		}
		run(b, db)
	})
}

func dialectIsSQLite(db *sql.DB) bool {
	return strings.Contains(strings.ToLower(fmt.Sprintf("%T", db.Driver())), "sqlite")
}
