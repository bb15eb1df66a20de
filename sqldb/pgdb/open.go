package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hands-go/hands/sqldb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Schemes are the URL schemes this package registers.
const (
	Scheme      = "postgres"
	SchemeLong  = "postgresql"
	defaultPool = 10
)

func init() {
	sqldb.DefaultURLMux().Register(Scheme, opener{})
	sqldb.DefaultURLMux().Register(SchemeLong, opener{})
	sqldb.RegisterEngine(stdlib.GetDefaultDriver(), Engine{})
}

type opener struct{}

// libpq's and pgx's connection parameters that the URL may carry.
var known = []string{
	"sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "sslsni", "sslnegotiation",
	"connect_timeout", "application_name", "search_path", "target_session_attrs", "options",
	"host", "port", "user", "password", "dbname", "passfile", "service", "servicefile",
	"krbsrvname", "krbspn", "min_read_buffer_size", "require_auth",
	"max_open_conns", "max_idle_time",
}

func (opener) OpenDB(ctx context.Context, u *url.URL) (*sql.DB, error) {
	if err := sqldb.CheckParams(u, known...); err != nil {
		return nil, err
	}
	q := u.Query()
	conns := defaultPool
	if s := q.Get("max_open_conns"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("pgdb: max_open_conns=%s: want a whole number of 1 or more", s)
		}
		conns = n
	}
	idle := 5 * time.Minute
	if s := q.Get("max_idle_time"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("pgdb: max_idle_time=%s: want a positive duration, such as 5m", s)
		}
		idle = d
	}
	q.Del("max_open_conns")
	q.Del("max_idle_time")
	c := *u
	c.RawQuery = q.Encode()
	cfg, err := pgx.ParseConfig(c.String())
	if err != nil {
		return nil, fmt.Errorf("pgdb: %s: %w", u.Redacted(), redact(err))
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(idle)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("pgdb: connect to %s: %w", u.Redacted(), redact(err))
	}
	return db, nil
}

// redact keeps what pgx says of a failed connection but not the
// configuration it quotes, which may hold a password.
func redact(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return ce.Unwrap()
	}
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return errors.New("the URL does not parse")
	}
	return err
}
