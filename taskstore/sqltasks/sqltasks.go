// Package sqltasks keeps MCP tasks in a SQL database, PostgreSQL or
// SQLite, so that every replica of a server that shares the database
// answers for every task: a taskstore.Store on a *sql.DB.
//
// A table holds one row a task: its record (taskstore.MarshalRecord), its
// owner and expiry for the indexes, and the bytes of results it holds; a
// second table holds one row of counts (tasks, and bytes of results, over
// all). Every change is a transaction that reads the task's row (FOR
// UPDATE on PostgreSQL; SQLite's transactions are IMMEDIATE, so one writes
// at a time), applies a step of package taskstore in Go, and writes the row
// back, so that the rules are the same as every other store's. Create and
// Finish lock the counts' row, which makes their checks and writes one
// step across replicas; Create removes the expired tasks first (on
// PostgreSQL, with its checks, in one statement, so that it holds the
// lock for three statements: creations across replicas queue on it). A poll
// (Get) is one statement, without a transaction or a lock, unless the
// task's lease has lapsed, which it then writes as a change.
// What one call reads does not grow with the tasks held: the counts over
// all come from their row, the expired tasks and a task by its ID from
// the indexes, and Create counts an owner's tasks only when
// Limits.MaxOwnerTasks bounds them, never those of the owner "", who may
// hold every task.
//
// The store reads time from PostgreSQL's clock (clock_timestamp), so
// replicas whose clocks differ agree on leases and expiry; SQLite, on one
// machine, from the process's.
package sqltasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/taskstore"
)

// The dialects of Options.Dialect.
const (
	Postgres = "postgres"
	SQLite   = "sqlite"
)

// DefaultTable is the table of a store unless Options.Table says
// otherwise; the counts are in DefaultTable + "_counts".
const DefaultTable = "hands_tasks"

// maxRetries bounds the attempts of one change that the database aborted
// to break a deadlock or a serialization conflict.
const maxRetries = 20

// Options configure a Store. A nil *Options selects every default.
type Options struct {
	// Dialect is Postgres or SQLite. If empty, it is told from the
	// database's driver (pgx, or a driver whose type names sqlite).
	Dialect string
	// Table names the store's table, a plain identifier
	// ([A-Za-z_][A-Za-z0-9_]*). If empty, DefaultTable.
	Table string
	// Now is the store's clock. Nil selects PostgreSQL's, or the
	// process's for SQLite.
	Now func() time.Time
}

// A Store is a taskstore.Store in a SQL database.
type Store struct {
	db      *sql.DB
	dialect string
	now     func() time.Time
	q       queries
}

// queries are the statements of a store, for its dialect and table.
type queries struct {
	lockTask, lockCounts, clock                               string
	sweep, countOwner, insert, update, addCounts, list, exist string
	get, getClock                                             string // Get's, with the store's clock or PostgreSQL's
	// PostgreSQL's Create in fewer round trips while the counts are
	// locked: sweep, exist and countOwner in one statement, and insert
	// with addCounts in another.
	sweepCheck, insertCount string
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// New returns a store on db, which the caller keeps and closes, and
// creates its tables if they do not exist. Replicas that start at once
// on a database without the tables may call it at once.
func New(ctx context.Context, db *sql.DB, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Store{db: db, dialect: opts.Dialect, now: opts.Now}
	if s.dialect == "" {
		s.dialect = Postgres
		if strings.Contains(strings.ToLower(fmt.Sprintf("%T", db.Driver())), "sqlite") {
			s.dialect = SQLite
		}
	}
	if s.dialect != Postgres && s.dialect != SQLite {
		return nil, fmt.Errorf("sqltasks: the dialect %q is neither %q nor %q", s.dialect, Postgres, SQLite)
	}
	table := opts.Table
	if table == "" {
		table = DefaultTable
	}
	if !identifier.MatchString(table) {
		return nil, fmt.Errorf("sqltasks: the table name %q is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)", table)
	}
	if s.dialect == SQLite && s.now == nil {
		s.now = time.Now
	}
	blob, forUpdate := "BYTEA", " FOR UPDATE"
	if s.dialect == SQLite {
		blob, forUpdate = "BLOB", ""
	}
	counts := table + "_counts"
	s.q = queries{
		lockTask:   "SELECT version, record FROM " + table + " WHERE id = ?" + forUpdate,
		lockCounts: "SELECT tasks, held FROM " + counts + " WHERE id = 1" + forUpdate,
		clock:      "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
		sweep:      "DELETE FROM " + table + " WHERE expires <= ? RETURNING held",
		countOwner: "SELECT count(*) FROM " + table + " WHERE owner = ? AND expires > ?",
		exist:      "SELECT expires FROM " + table + " WHERE id = ?",
		insert:     "INSERT INTO " + table + " (id, owner, expires, held, version, record) VALUES (?, ?, ?, 0, 1, ?)",
		update:     "UPDATE " + table + " SET version = version + 1, held = ?, record = ? WHERE id = ?",
		addCounts:  "UPDATE " + counts + " SET tasks = tasks + ?, held = held + ? WHERE id = 1",
		list:       "SELECT record FROM " + table + " WHERE owner = ? AND expires > ?",
		get:        "SELECT record FROM " + table + " WHERE id = ?",
		getClock:   "SELECT record, CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) FROM " + table + " WHERE id = ?",
	}
	if s.dialect == Postgres {
		// A data-modifying WITH: the main query reads the table as it was
		// before the DELETE, and the rows it counts are not expired, so
		// not among those deleted. The owner's tasks are counted only
		// when a bound applies to them (the first argument of the count):
		// the owner "" is not bounded and may hold every task, which
		// counting would read on every Create.
		s.q.sweepCheck = "WITH gone AS (DELETE FROM " + table + " WHERE expires <= ? RETURNING held) " +
			"SELECT (SELECT count(*) FROM gone), (SELECT CAST(COALESCE(sum(held), 0) AS BIGINT) FROM gone), " +
			"EXISTS (SELECT 1 FROM " + table + " WHERE id = ? AND expires > ?), " +
			"(SELECT count(*) FROM " + table + " WHERE ? AND owner = ? AND expires > ?)"
		s.q.insertCount = "WITH added AS (INSERT INTO " + table + " (id, owner, expires, held, version, record) VALUES (?, ?, ?, 0, 1, ?) RETURNING 1) " +
			"UPDATE " + counts + " SET tasks = tasks + ?, held = held + ? WHERE id = 1 AND EXISTS (SELECT 1 FROM added)"
		for _, p := range []*string{&s.q.sweepCheck, &s.q.insertCount, &s.q.lockTask, &s.q.lockCounts, &s.q.sweep, &s.q.countOwner, &s.q.exist, &s.q.insert, &s.q.update, &s.q.addCounts, &s.q.list, &s.q.get, &s.q.getClock} {
			*p = dollars(*p)
		}
	}
	if err := s.createTables(ctx, table, counts, blob); err != nil {
		return nil, fmt.Errorf("sqltasks: create the store's tables: %w", err)
	}
	return s, nil
}

// createTables creates the store's tables and indexes if they do not
// exist, in one transaction. On PostgreSQL, whose CREATE ... IF NOT
// EXISTS fails when another session creates the same object at the same
// time (a unique violation in its catalogue), the transaction first takes
// an advisory lock named after the table, so that replicas starting at
// once create the tables one after the other; SQLite writes one
// transaction at a time anyway.
func (s *Store) createTables(ctx context.Context, table, counts, blob string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect == Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "hands sqltasks "+table); err != nil {
			return err
		}
	}
	for _, stmt := range []string{
		"CREATE TABLE IF NOT EXISTS " + table + " (id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires BIGINT NOT NULL, held BIGINT NOT NULL, version BIGINT NOT NULL, record " + blob + " NOT NULL)",
		"CREATE INDEX IF NOT EXISTS " + table + "_expires ON " + table + " (expires)",
		"CREATE INDEX IF NOT EXISTS " + table + "_owner ON " + table + " (owner, expires)",
		"CREATE TABLE IF NOT EXISTS " + counts + " (id INTEGER PRIMARY KEY, tasks BIGINT NOT NULL, held BIGINT NOT NULL)",
		"INSERT INTO " + counts + " (id, tasks, held) VALUES (1, 0, 0) ON CONFLICT (id) DO NOTHING",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// dollars numbers the placeholders of q as PostgreSQL writes them.
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// micros returns t in Unix microseconds, rounded up when up is set.
func micros(t time.Time, up bool) int64 {
	n := t.UnixNano()
	us := n / 1000
	if up && n%1000 != 0 {
		us++
	}
	return us
}

// inTx runs f in a transaction, with the store's now, and commits it if f
// returns nil; it runs f again when the database aborted the transaction
// to break a deadlock or a serialization conflict.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx, now time.Time) error) error {
	var err error
	for range maxRetries {
		err = s.tryTx(ctx, f)
		if !retryable(err) {
			return err
		}
	}
	return err
}

func (s *Store) tryTx(ctx context.Context, f func(tx *sql.Tx, now time.Time) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqltasks: begin: %w", err)
	}
	defer tx.Rollback()
	var now time.Time
	if s.now != nil {
		now = s.now()
	} else {
		var us int64
		if err := tx.QueryRowContext(ctx, s.q.clock).Scan(&us); err != nil {
			return fmt.Errorf("sqltasks: read the clock: %w", err)
		}
		now = time.UnixMicro(us)
	}
	if err := f(tx, now); err != nil {
		return err
	}
	return tx.Commit()
}

// retryable reports whether err is PostgreSQL's deadlock or serialization
// failure, or SQLite's busy database, after which a transaction may be run
// again.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		switch coded.SQLState() {
		case "40P01", "40001":
			return true
		}
	}
	msg := err.Error()
	return strings.Contains(msg, "SQLSTATE 40P01") || strings.Contains(msg, "SQLSTATE 40001") || strings.Contains(msg, "database is locked")
}

// Create implements taskstore.Store.
func (s *Store) Create(ctx context.Context, n taskstore.New, lim taskstore.Limits) (*taskstore.Task, error) {
	var created *taskstore.Task
	err := s.inTx(ctx, func(tx *sql.Tx, now time.Time) error {
		var tasks, held int64
		if err := tx.QueryRowContext(ctx, s.q.lockCounts).Scan(&tasks, &held); err != nil {
			return fmt.Errorf("sqltasks: read the counts: %w", err)
		}
		us := micros(now, false)
		var swept, freed, owned int64
		var exists bool
		if s.dialect == Postgres {
			if err := tx.QueryRowContext(ctx, s.q.sweepCheck, s.sweepCheckArgs(n, lim, us)...).Scan(&swept, &freed, &exists, &owned); err != nil {
				return fmt.Errorf("sqltasks: create: %w", err)
			}
		} else {
			var err error
			if swept, freed, err = s.sweep(ctx, tx, now); err != nil {
				return err
			}
			var expires int64
			switch err := tx.QueryRowContext(ctx, s.q.exist, n.ID).Scan(&expires); {
			case err == nil:
				exists = true // expired ones were swept
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("sqltasks: create: %w", err)
			}
			if !exists && ownerBounded(n, lim) {
				if err := tx.QueryRowContext(ctx, s.q.countOwner, n.Owner, us).Scan(&owned); err != nil {
					return fmt.Errorf("sqltasks: count the owner's tasks: %w", err)
				}
			}
		}
		tasks -= swept
		switch {
		case exists:
			return taskstore.ErrExists
		case lim.MaxTasks > 0 && tasks >= int64(lim.MaxTasks):
			return &taskstore.LimitError{Err: taskstore.ErrLimit, Limit: taskstore.LimitTasks, Max: int64(lim.MaxTasks)}
		case ownerBounded(n, lim) && owned >= int64(lim.MaxOwnerTasks):
			return &taskstore.LimitError{Err: taskstore.ErrLimit, Limit: taskstore.LimitOwnerTasks, Max: int64(lim.MaxOwnerTasks)}
		}
		t := taskstore.NewTask(n, now)
		rec, err := taskstore.MarshalRecord(t)
		if err != nil {
			return err
		}
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx, s.q.insertCount, n.ID, n.Owner, micros(t.Expires, true), rec, 1-swept, -freed); err != nil {
				return fmt.Errorf("sqltasks: create: %w", err)
			}
		} else {
			if _, err := tx.ExecContext(ctx, s.q.insert, n.ID, n.Owner, micros(t.Expires, true), rec); err != nil {
				return fmt.Errorf("sqltasks: create: %w", err)
			}
			if _, err := tx.ExecContext(ctx, s.q.addCounts, 1-swept, -freed); err != nil {
				return fmt.Errorf("sqltasks: count: %w", err)
			}
		}
		created = t
		return nil
	})
	return created, err
}

// ownerBounded reports whether Create checks the tasks of n's owner
// against a bound: Limits.MaxOwnerTasks bounds every owner but "".
func ownerBounded(n taskstore.New, lim taskstore.Limits) bool {
	return n.Owner != "" && lim.MaxOwnerTasks > 0
}

// sweepCheckArgs returns the arguments of the statement with which
// Create sweeps and checks on PostgreSQL, at now in microseconds.
func (s *Store) sweepCheckArgs(n taskstore.New, lim taskstore.Limits, us int64) []any {
	return []any{us, n.ID, us, ownerBounded(n, lim), n.Owner, us}
}

// sweep removes the tasks expired at now, and returns how many, and the
// bytes of results they held.
func (s *Store) sweep(ctx context.Context, tx *sql.Tx, now time.Time) (tasks, held int64, err error) {
	rows, err := tx.QueryContext(ctx, s.q.sweep, micros(now, false))
	if err != nil {
		return 0, 0, fmt.Errorf("sqltasks: remove the expired tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h int64
		if err := rows.Scan(&h); err != nil {
			return 0, 0, err
		}
		tasks++
		held += h
	}
	return tasks, held, rows.Err()
}

// change reads the task with the ID in a transaction, applies step to it
// at the store's now, and writes it back if step changed it (changed, or
// an error of ErrLeaseLost). counted has the counts' row locked first,
// for a step whose check reads the bytes held over all tasks; step gets
// them.
func (s *Store) change(ctx context.Context, id string, counted bool, step func(t *taskstore.Task, held int64, now time.Time) (changed bool, err error)) (*taskstore.Task, error) {
	var out *taskstore.Task
	var stepErr error
	err := s.inTx(ctx, func(tx *sql.Tx, now time.Time) error {
		stepErr = nil
		var held int64
		if counted {
			var tasks int64
			if err := tx.QueryRowContext(ctx, s.q.lockCounts).Scan(&tasks, &held); err != nil {
				return fmt.Errorf("sqltasks: read the counts: %w", err)
			}
		}
		var version int64
		var rec []byte
		switch err := tx.QueryRowContext(ctx, s.q.lockTask, id).Scan(&version, &rec); {
		case errors.Is(err, sql.ErrNoRows):
			return taskstore.ErrTaskNotFound
		case err != nil:
			return fmt.Errorf("sqltasks: read %s: %w", id, err)
		}
		t, err := taskstore.UnmarshalRecord(rec)
		if err != nil {
			return err
		}
		if !now.Before(t.Expires) {
			return taskstore.ErrTaskNotFound
		}
		before := t.HeldBytes()
		changed, err := step(t, held, now)
		if err != nil && !errors.Is(err, taskstore.ErrLeaseLost) {
			return err
		}
		stepErr = err
		if changed || err != nil {
			rec, err := taskstore.MarshalRecord(t)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q.update, t.HeldBytes(), rec, id); err != nil {
				return fmt.Errorf("sqltasks: write %s: %w", id, err)
			}
			if d := t.HeldBytes() - before; d != 0 {
				if _, err := tx.ExecContext(ctx, s.q.addCounts, 0, d); err != nil {
					return fmt.Errorf("sqltasks: count: %w", err)
				}
			}
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	if stepErr != nil {
		return nil, stepErr
	}
	return out, nil
}

// Get implements taskstore.Store. It reads the task with one statement,
// outside a transaction and without a lock, since a poll changes nothing:
// only a task whose lease has lapsed, which it reads again and writes
// failed in a transaction as any change, costs more.
func (s *Store) Get(ctx context.Context, id string) (*taskstore.Task, error) {
	var rec []byte
	var now time.Time
	var err error
	if s.now != nil {
		now = s.now()
		err = s.db.QueryRowContext(ctx, s.q.get, id).Scan(&rec)
	} else {
		var us int64
		err = s.db.QueryRowContext(ctx, s.q.getClock, id).Scan(&rec, &us)
		now = time.UnixMicro(us)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, taskstore.ErrTaskNotFound
	case err != nil:
		return nil, fmt.Errorf("sqltasks: read %s: %w", id, err)
	}
	t, err := taskstore.UnmarshalRecord(rec)
	if err != nil {
		return nil, err
	}
	if !now.Before(t.Expires) {
		return nil, taskstore.ErrTaskNotFound
	}
	if !taskstore.LapseAt(t.Clone(), now) {
		return t, nil
	}
	// Lapsed as read: read again under the lock, where a renewal that
	// committed meanwhile is seen, and write the lapse.
	return s.change(ctx, id, false, func(t *taskstore.Task, _ int64, now time.Time) (bool, error) {
		return taskstore.LapseAt(t, now), nil
	})
}

// Update implements taskstore.Store.
func (s *Store) Update(ctx context.Context, id string, c taskstore.Change) (*taskstore.Task, error) {
	return s.change(ctx, id, false, func(t *taskstore.Task, _ int64, now time.Time) (bool, error) {
		return true, taskstore.StepUpdate(t, c, now)
	})
}

// Answer implements taskstore.Store.
func (s *Store) Answer(ctx context.Context, id string, answers map[string]json.RawMessage) (*taskstore.Task, error) {
	return s.change(ctx, id, false, func(t *taskstore.Task, _ int64, now time.Time) (bool, error) {
		return true, taskstore.StepAnswer(t, answers, now)
	})
}

// Cancel implements taskstore.Store.
func (s *Store) Cancel(ctx context.Context, id, message string) (*taskstore.Task, error) {
	return s.change(ctx, id, false, func(t *taskstore.Task, _ int64, now time.Time) (bool, error) {
		return true, taskstore.StepCancel(t, message, now)
	})
}

// Finish implements taskstore.Store.
func (s *Store) Finish(ctx context.Context, id string, o taskstore.Outcome, lim taskstore.Limits) (*taskstore.Task, error) {
	return s.change(ctx, id, true, func(t *taskstore.Task, held int64, now time.Time) (bool, error) {
		return true, taskstore.StepFinish(t, o, lim, held, now)
	})
}

// List implements taskstore.Store. A task whose lease has lapsed is listed
// failed, as Get returns it, without being written so.
func (s *Store) List(ctx context.Context, owner string) ([]*taskstore.Task, error) {
	var list []*taskstore.Task
	err := s.inTx(ctx, func(tx *sql.Tx, now time.Time) error {
		list = nil
		rows, err := tx.QueryContext(ctx, s.q.list, owner, micros(now, false))
		if err != nil {
			return fmt.Errorf("sqltasks: list: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var rec []byte
			if err := rows.Scan(&rec); err != nil {
				return err
			}
			t, err := taskstore.UnmarshalRecord(rec)
			if err != nil {
				return err
			}
			if !now.Before(t.Expires) {
				continue
			}
			taskstore.LapseAt(t, now)
			list = append(list, t)
		}
		return rows.Err()
	})
	slices.SortFunc(list, func(a, b *taskstore.Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return list, err
}

var _ taskstore.Store = (*Store)(nil)
