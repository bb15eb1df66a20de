package bench

// The two pure-Go SQLite drivers, measured on the same work so that the
// choice of package sqldb/sqlitedb rests on numbers: modernc.org/sqlite
// (SQLite translated from C to Go) and github.com/ncruces/go-sqlite3
// (SQLite compiled to WebAssembly and translated to Go by wasm2go), both
// through database/sql on a WAL file.

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"
	_ "modernc.org/sqlite"                   // registers "sqlite"
)

var sqliteDrivers = []struct{ name, driver, prefix string }{
	{"modernc", "sqlite", ""},
	{"ncruces", "sqlite3", "file:"},
}

// openSQLite opens a WAL database of 1000 rows of 100 bytes with one
// connection.
func openSQLite(b *testing.B, driver, prefix string) *sql.DB {
	b.Helper()
	db, err := sql.Open(driver, prefix+filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	for _, s := range []string{`PRAGMA journal_mode=WAL`, `PRAGMA synchronous=NORMAL`, `CREATE TABLE t(k TEXT PRIMARY KEY, v BLOB)`} {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 1000 {
		if _, err := db.Exec(`INSERT INTO t VALUES (?, ?)`, fmt.Sprintf("key%04d", i), make([]byte, 100)); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// BenchmarkSQLiteDrivers runs a point query, an insert, a scan of 1000
// rows and a recursive CTE of 100000 steps on each driver.
func BenchmarkSQLiteDrivers(b *testing.B) {
	for _, d := range sqliteDrivers {
		b.Run("point/"+d.name, func(b *testing.B) {
			db := openSQLite(b, d.driver, d.prefix)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var v []byte
				if err := db.QueryRow(`SELECT v FROM t WHERE k = ?`, fmt.Sprintf("key%04d", i%1000)).Scan(&v); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run("insert/"+d.name, func(b *testing.B) {
			db := openSQLite(b, d.driver, d.prefix)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := db.Exec(`INSERT OR REPLACE INTO t VALUES (?, ?)`, fmt.Sprintf("new%d", i), make([]byte, 100)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run("scan1000/"+d.name, func(b *testing.B) {
			db := openSQLite(b, d.driver, d.prefix)
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.Query(`SELECT k, v FROM t`)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					var k string
					var v []byte
					if err := rows.Scan(&k, &v); err != nil {
						b.Fatal(err)
					}
					n++
				}
				rows.Close()
				if n != 1000 {
					b.Fatalf("scanned %d rows, want 1000", n)
				}
			}
		})
		b.Run("cte100k/"+d.name, func(b *testing.B) {
			db := openSQLite(b, d.driver, d.prefix)
			b.ReportAllocs()
			for b.Loop() {
				var n int
				if err := db.QueryRow(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c`).Scan(&n); err != nil || n != 100000 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkSQLiteDriverRatio interleaves the two drivers on each workload,
// timing both in every iteration, and reports ncruces' time over
// modernc's: on a shared machine both see the same moments, so the ratio
// varies far less than either time.
func BenchmarkSQLiteDriverRatio(b *testing.B) {
	work := map[string]func(b *testing.B, db *sql.DB, i int){
		"point": func(b *testing.B, db *sql.DB, i int) {
			var v []byte
			if err := db.QueryRow(`SELECT v FROM t WHERE k = ?`, fmt.Sprintf("key%04d", i%1000)).Scan(&v); err != nil {
				b.Fatal(err)
			}
		},
		"insert": func(b *testing.B, db *sql.DB, i int) {
			if _, err := db.Exec(`INSERT OR REPLACE INTO t VALUES (?, ?)`, fmt.Sprintf("new%d", i), make([]byte, 100)); err != nil {
				b.Fatal(err)
			}
		},
		"scan1000": func(b *testing.B, db *sql.DB, i int) {
			rows, err := db.Query(`SELECT k, v FROM t LIMIT 1000`)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
				var k string
				var v []byte
				if err := rows.Scan(&k, &v); err != nil {
					b.Fatal(err)
				}
			}
			rows.Close()
		},
		"cte10k": func(b *testing.B, db *sql.DB, i int) {
			var n int
			if err := db.QueryRow(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) SELECT count(*) FROM c`).Scan(&n); err != nil || n != 10000 {
				b.Fatal(n, err)
			}
		},
	}
	for _, name := range []string{"point", "insert", "scan1000", "cte10k"} {
		b.Run(name, func(b *testing.B) {
			m := openSQLite(b, "sqlite", "")
			n := openSQLite(b, "sqlite3", "file:")
			f := work[name]
			var tm, tn time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				f(b, m, i)
				t1 := time.Now()
				f(b, n, i)
				tm += t1.Sub(t0)
				tn += time.Since(t1)
				i++
			}
			b.ReportMetric(float64(tn)/float64(tm), "ncruces/modernc")
			b.ReportMetric(float64(tm.Nanoseconds())/float64(b.N), "modernc-ns/op")
			b.ReportMetric(float64(tn.Nanoseconds())/float64(b.N), "ncruces-ns/op")
		})
	}
}
