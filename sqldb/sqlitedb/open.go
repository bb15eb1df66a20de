package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/sqldb"
	"github.com/ncruces/go-sqlite3"
	sqlitedriver "github.com/ncruces/go-sqlite3/driver"
)

// Scheme is the URL scheme this package registers.
const Scheme = "sqlite"

func init() {
	sqldb.DefaultURLMux().Register(Scheme, opener{})
	db, err := sqlitedriver.Open(":memory:")
	if err == nil {
		sqldb.RegisterEngine(db.Driver(), Engine{})
		db.Close()
	}
}

type opener struct{}

// Options configure OpenFile. The zero value selects every default.
type Options struct {
	// ReadOnly opens the file read-only; it must exist.
	ReadOnly bool
	// MaxOpenConns is the pool's size. If zero or less, 4.
	MaxOpenConns int
	// BusyTimeout is how long a statement waits for another connection's
	// lock. If zero or less, 5s.
	BusyTimeout time.Duration
	// Durable syncs the log to the disk at every commit (PRAGMA
	// synchronous=FULL), so that a commit that returned survives a power
	// loss or a crash of the operating system. Otherwise synchronous is
	// NORMAL, which in WAL mode syncs only at checkpoints: a commit
	// survives a crash of the process, but the last ones before a power
	// loss may be rolled back (the database stays consistent).
	Durable bool
}

func (opener) OpenDB(ctx context.Context, u *url.URL) (*sql.DB, error) {
	if err := sqldb.CheckParams(u, "mode", "max_open_conns", "busy_timeout"); err != nil {
		return nil, err
	}
	path, err := Path(u)
	if err != nil {
		return nil, err
	}
	var opts Options
	q := u.Query()
	switch q.Get("mode") {
	case "":
	case "ro":
		opts.ReadOnly = true
	default:
		return nil, fmt.Errorf("sqlitedb: mode=%s: the only mode is ro", q.Get("mode"))
	}
	if s := q.Get("max_open_conns"); s != "" {
		if opts.MaxOpenConns, err = strconv.Atoi(s); err != nil || opts.MaxOpenConns < 1 {
			return nil, fmt.Errorf("sqlitedb: max_open_conns=%s: want a whole number of 1 or more", s)
		}
	}
	if s := q.Get("busy_timeout"); s != "" {
		if opts.BusyTimeout, err = time.ParseDuration(s); err != nil || opts.BusyTimeout <= 0 {
			return nil, fmt.Errorf("sqlitedb: busy_timeout=%s: want a positive duration, such as 5s", s)
		}
	}
	return OpenFile(ctx, path, &opts)
}

// Path returns the file a sqlite:// URL names: sqlite:///abs/file.db or
// sqlite://./rel/file.db.
func Path(u *url.URL) (string, error) {
	switch {
	case u.Opaque != "":
		return "", errors.New("sqlitedb: write sqlite:///absolute/file.db or sqlite://./relative/file.db")
	case u.Host == "" && u.Path != "":
		return filepath.FromSlash(u.Path), nil
	case u.Host == "." && u.Path != "":
		return filepath.FromSlash("." + u.Path), nil
	}
	return "", fmt.Errorf("sqlitedb: %s names no file: write sqlite:///absolute/file.db or sqlite://./relative/file.db", u.Redacted())
}

// OpenFile opens the SQLite database in the file at path, creating it and
// its directory unless opts.ReadOnly, in WAL mode, and checks that it is a
// database. Read-only, a missing file is an error that names the path and
// matches fs.ErrNotExist. opts may be nil.
func OpenFile(ctx context.Context, path string, opts *Options) (*sql.DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	conns := opts.MaxOpenConns
	if conns <= 0 {
		conns = 4
	}
	mode := "rwc"
	if opts.ReadOnly {
		mode = "ro"
		// SQLite's own error would say only "unable to open database
		// file", of the file's name.
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("sqlitedb: %s: no database there, and a read-only open creates none; check the path (%w)", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sqlitedb: create the database's directory: %w", err)
	}
	dsn := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=" + mode + "&_txlock=immediate"}).String()
	if !strings.HasPrefix(filepath.ToSlash(path), "/") {
		dsn = "file:" + url.PathEscape(filepath.ToSlash(path)) + "?mode=" + mode + "&_txlock=immediate"
	}
	db, err := sqlitedriver.Open(dsn, func(c *sqlite3.Conn) error {
		c.BusyTimeout(busy)
		if !opts.ReadOnly {
			if opts.Durable {
				return c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL`)
			}
			return c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL`)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitedb: open %s: %w", filepath.Base(path), err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitedb: open %s: %w", filepath.Base(path), err)
	}
	return db, nil
}
