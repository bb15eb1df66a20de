// Package sqlitekv is an embedded, persistent key-value store for package
// kv: one SQLite file, through the pure-Go driver of package
// sqldb/sqlitedb. It is the default store of `hands serve`, in the user's
// data directory.
//
//	import _ "github.com/hands-go/hands/kv/sqlitekv"
//
//	store, err := kv.Open(ctx, "sqlite:///home/me/.local/share/hands/kv.db")
//
// The URL names the file as sqlitedb's do (sqlite:///absolute/kv.db,
// sqlite://./relative/kv.db); the file and its directory are created when
// missing. It takes no query parameters.
//
// Keys are stored as data in one table, never as file names, so no key
// reaches outside the file, whatever it holds ("../", "/", NUL). Several
// processes may share the file: SQLite locks it, in WAL mode. Every commit
// is synced to the disk (synchronous=FULL), so a Put that returned survives
// a power loss. Expired entries are never returned, and are deleted by a
// sweep every 256th Put.
package sqlitekv

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/hands-go/hands/sqldb/sqlitedb"
)

// Scheme is the URL scheme this package registers on kv's mux.
const Scheme = "sqlite"

func init() { kv.DefaultURLMux().Register(Scheme, opener{}) }

type opener struct{}

func (opener) OpenStore(ctx context.Context, u *url.URL) (driver.Store, error) {
	if err := kv.CheckParams(u); err != nil {
		return nil, err
	}
	path, err := sqlitedb.Path(u)
	if err != nil {
		return nil, err
	}
	return Open(ctx, path)
}

// Store is a driver.Store in a SQLite file.
type Store struct {
	db   *sql.DB
	puts atomic.Uint32
}

// Open opens, or creates, the store in the file at path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqlitedb.OpenFile(ctx, path, &sqlitedb.Options{Durable: true})
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kv (
		key TEXT PRIMARY KEY,
		value BLOB NOT NULL,
		metadata BLOB,
		expires INTEGER -- Unix milliseconds; NULL for never
	) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db}, nil
}

// DB returns the store's database, through kv.Store.As.
func (s *Store) As(target any) bool {
	if p, ok := target.(**sql.DB); ok {
		*p = s.db
		return true
	}
	return false
}

func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMillis(ms sql.NullInt64) time.Time {
	if !ms.Valid {
		return time.Time{}
	}
	return time.UnixMilli(ms.Int64)
}

// Get implements driver.Store.
func (s *Store) Get(ctx context.Context, key string, now time.Time) (driver.Entry, error) {
	var e driver.Entry
	var exp sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT value, metadata, expires FROM kv WHERE key = ? AND (expires IS NULL OR expires > ?)`, key, now.UnixMilli()).
		Scan(&e.Value, &e.Metadata, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return e, driver.ErrNotFound
	}
	if e.Value == nil {
		e.Value = []byte{}
	}
	e.Expires = fromMillis(exp)
	return e, err
}

// Put implements driver.Store.
func (s *Store) Put(ctx context.Context, key string, e driver.Entry) error {
	value := e.Value
	if value == nil {
		value = []byte{}
	}
	var meta any
	if e.Metadata != nil {
		meta = []byte(e.Metadata)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO kv(key, value, metadata, expires) VALUES (?, ?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, metadata = excluded.metadata, expires = excluded.expires`,
		key, value, meta, millis(e.Expires)); err != nil {
		return err
	}
	if s.puts.Add(1)%256 == 0 {
		s.db.ExecContext(ctx, `DELETE FROM kv WHERE expires <= ?`, time.Now().UnixMilli())
	}
	return nil
}

// Delete implements driver.Store.
func (s *Store) Delete(ctx context.Context, key string, now time.Time) (bool, error) {
	var live bool
	err := s.db.QueryRowContext(ctx, `DELETE FROM kv WHERE key = ? RETURNING expires IS NULL OR expires > ?`, key, now.UnixMilli()).Scan(&live)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return live, err
}

// List implements driver.Store: a range of the primary key.
func (s *Store) List(ctx context.Context, prefix, after string, limit int, now time.Time) ([]driver.Key, bool, error) {
	q, args := listQuery(prefix, after, now, limit)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var keys []driver.Key
	for rows.Next() {
		var k driver.Key
		var exp sql.NullInt64
		if err := rows.Scan(&k.Name, &k.Metadata, &exp); err != nil {
			return nil, false, err
		}
		k.Expires = fromMillis(exp)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(keys) > limit
	return keys[:min(limit, len(keys))], more, nil
}

// Close implements driver.Store.
func (s *Store) Close() error { return s.db.Close() }

// listQuery returns the statement of a List and its arguments: one range of
// the primary key, whose bounds are given apart so that SQLite searches the
// index from the first key of the page rather than from the first key with
// the prefix.
// A page then costs the same wherever it is: the keys it reads, and the
// expired ones it skips.
func listQuery(prefix, after string, now time.Time, limit int) (string, []any) {
	q := `SELECT key, metadata, expires FROM kv WHERE key >= ?`
	args := []any{prefix}
	if after >= prefix && after != "" {
		q, args[0] = `SELECT key, metadata, expires FROM kv WHERE key > ?`, after
	}
	if prefix != "" {
		// Keys are UTF-8, in which the byte 0xff never occurs: every key
		// with the prefix sorts before prefix+"\xff".
		q += ` AND key < ?`
		args = append(args, prefix+"\xff")
	}
	return q + ` AND (expires IS NULL OR expires > ?) ORDER BY key LIMIT ?`, append(args, now.UnixMilli(), limit+1)
}
