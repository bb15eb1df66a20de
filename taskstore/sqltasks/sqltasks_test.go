package sqltasks_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/sqldb"
	_ "github.com/hands-go/hands/sqldb/pgdb"
	"github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/sqltasks"
	"github.com/hands-go/hands/taskstore/taskstoretest"
)

// TestConformancePostgres runs the store kit on a real PostgreSQL, each
// case in a table of its own.
func TestConformancePostgres(t *testing.T) {
	srv := pgtest.Start(t)
	db, err := sqldb.Open(t.Context(), srv.URL+"&allow_superuser=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	run(t, db)
}

// TestConformanceSQLite runs the store kit on a SQLite file.
func TestConformanceSQLite(t *testing.T) {
	db, err := sqlitedb.OpenFile(t.Context(), filepath.Join(t.TempDir(), "tasks.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	run(t, db)
}

func run(t *testing.T, db *sql.DB) {
	var n atomic.Int64
	taskstoretest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		s, err := sqltasks.New(context.Background(), db, &sqltasks.Options{Table: fmt.Sprintf("tasks_%d", n.Add(1)), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestServerClock reads time from PostgreSQL's clock when the store has
// none of its own: a task created is stamped between two readings of it.
func TestServerClock(t *testing.T) {
	srv := pgtest.Start(t)
	db, err := sqldb.Open(t.Context(), srv.URL+"&allow_superuser=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := sqltasks.New(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	serverNow := func() time.Time {
		var us int64
		if err := db.QueryRowContext(t.Context(), "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)").Scan(&us); err != nil {
			t.Fatal(err)
		}
		return time.UnixMicro(us)
	}
	before := serverNow()
	task, err := s.Create(t.Context(), taskstore.New{ID: "a", TTL: time.Hour, Lease: time.Minute}, taskstore.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	after := serverNow()
	if task.Created.Before(before) || task.Created.After(after) {
		t.Errorf("created at %v, not within the server's clock readings %v and %v", task.Created, before, after)
	}
	if _, err := sqltasks.New(t.Context(), db, &sqltasks.Options{Table: "x; DROP TABLE y"}); err == nil {
		t.Error("New with a table name that is not an identifier succeeded")
	}
}

// TestNewConcurrently: replicas that start at once on a database without
// the store's tables all open the store; PostgreSQL's CREATE TABLE IF
// NOT EXISTS is not safe for concurrent use on its own. Each round starts
// the replicas on a table of its own.
func TestNewConcurrently(t *testing.T) {
	srv := pgtest.Start(t)
	const replicas, rounds = 8, 10
	dbs := make([]*sql.DB, replicas)
	for i := range dbs {
		// A pool of its own, as each replica has, already connected.
		db, err := sqldb.Open(t.Context(), srv.URL+"&allow_superuser=true")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	for round := range rounds {
		table := fmt.Sprintf("round_%d", round)
		errs := make([]error, replicas)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, db := range dbs {
			wg.Go(func() {
				<-start
				_, errs[i] = sqltasks.New(t.Context(), db, &sqltasks.Options{Table: table})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, replica %d: %v", round, i, err)
			}
		}
	}
}

// BenchmarkGet measures a poll of a task on PostgreSQL: tasks/get of a
// working task, on any replica.
func BenchmarkGet(b *testing.B) {
	srv := pgtest.Start(b)
	db, err := sqldb.Open(b.Context(), srv.URL+"&allow_superuser=true")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s, err := sqltasks.New(b.Context(), db, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Create(b.Context(), taskstore.New{ID: "a", Owner: "user ada", TTL: time.Hour, Lease: time.Hour}, taskstore.Limits{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if task, err := s.Get(b.Context(), "a"); err != nil || task.Status != taskstore.Working {
			b.Fatal(task, err)
		}
	}
}

// BenchmarkCreate measures creating tasks on PostgreSQL, one at a time
// and 16 at once (as replicas do), in a steady state: each task expires
// at once and is swept by a later Create. Creations lock the one row of
// counts, so that 16 at once measures how long they hold it.
func BenchmarkCreate(b *testing.B) {
	srv := pgtest.Start(b)
	db, err := sqldb.Open(b.Context(), srv.URL+"&allow_superuser=true")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(16)
	s, err := sqltasks.New(b.Context(), db, nil)
	if err != nil {
		b.Fatal(err)
	}
	lim := taskstore.Limits{MaxTasks: 1 << 20, MaxOwnerTasks: 1 << 20}
	var n atomic.Int64
	create := func(b *testing.B) {
		id := fmt.Sprint(n.Add(1))
		if _, err := s.Create(b.Context(), taskstore.New{ID: id, Owner: "user ada", TTL: time.Microsecond, Lease: time.Microsecond}, lim); err != nil {
			b.Error(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			create(b)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				create(b)
			}
		})
	})
}
