package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hands-go/hands/internal/redact"
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
	defaultIdle = 5 * time.Minute
)

func init() {
	sqldb.DefaultURLMux().Register(Scheme, opener{})
	sqldb.DefaultURLMux().Register(SchemeLong, opener{})
	sqldb.RegisterEngine(stdlib.GetDefaultDriver(), Engine{})
}

// ErrPrivilegedRole is the error, wrapped, of a database whose role could
// reach the database host: a superuser, a role that may create roles, or
// a member of one of them or of pg_read_server_files,
// pg_write_server_files or pg_execute_server_program.
var ErrPrivilegedRole = errors.New("pgdb: privileged role")

// Options configure OpenConfig. The zero value selects every default.
type Options struct {
	// MaxOpenConns is the pool's size. If zero or less, 10.
	MaxOpenConns int
	// MaxIdleTime is how long an idle connection is kept. If zero or less,
	// five minutes.
	MaxIdleTime time.Duration
	// AllowSuperuser lets the role be privileged (see ErrPrivilegedRole):
	// a model's statement may then run programs and read files on the
	// database host, even in a read-only transaction. If false, every
	// connection checks its role first and the refusal is its error.
	AllowSuperuser bool
}

// OpenConfig opens the database of cfg, such as one that pgx.ParseConfig
// returned and the program then completed (a password from a secret
// store, a TLS configuration), with the pool of opts (nil means the
// defaults). Like the opener of postgres:// URLs, it pings the server and
// refuses a privileged role unless opts allows it; no error names the
// password.
func OpenConfig(ctx context.Context, cfg *pgx.ConnConfig, opts *Options) (*sql.DB, error) {
	db, err := open(ctx, cfg, opts, "set Options.AllowSuperuser")
	if err != nil {
		return nil, fmt.Errorf("pgdb: connect to %s@%s:%d/%s: %w", cfg.User, cfg.Host, cfg.Port, cfg.Database, err)
	}
	return db, nil
}

// open opens the database of cfg; hint says how to allow a privileged
// role.
func open(ctx context.Context, cfg *pgx.ConnConfig, opts *Options, hint string) (*sql.DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	conns := opts.MaxOpenConns
	if conns <= 0 {
		conns = defaultPool
	}
	idle := opts.MaxIdleTime
	if idle <= 0 {
		idle = defaultIdle
	}
	var check []stdlib.OptionOpenDB
	if !opts.AllowSuperuser {
		check = append(check, stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
			return checkRole(ctx, c, hint)
		}))
	}
	db := stdlib.OpenDB(*cfg, check...)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(idle)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, redactConfig(err)
	}
	return db, nil
}

// privileged names the role that makes the session's role privileged, if
// any: the session's own role first, then a superuser, then by name.
// pg_has_role's MEMBER counts any membership, inherited or through a role
// whose privileges are not inherited, since SET ROLE reaches it.
const privileged = `SELECT r.rolname, r.rolsuper, r.rolname = session_user
FROM pg_catalog.pg_roles r
WHERE (r.rolsuper OR r.rolcreaterole OR r.rolname IN ('pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'))
	AND pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')
ORDER BY r.rolname = session_user DESC, r.rolsuper DESC, r.rolname
LIMIT 1`

// checkRole refuses a connection whose role is privileged.
func checkRole(ctx context.Context, c *pgx.Conn, hint string) error {
	var role string
	var super, self bool
	err := c.QueryRow(ctx, privileged).Scan(&role, &super, &self)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check the role's privileges: %w", err)
	}
	user := c.Config().User
	var why string
	switch {
	case self && super:
		why = fmt.Sprintf("the role %q is a superuser", role)
	case super:
		why = fmt.Sprintf("the role %q is a member of the superuser %q", user, role)
	case self:
		why = fmt.Sprintf("the role %q has CREATEROLE, with which it may grant itself pg_execute_server_program (before PostgreSQL 16) and create roles", role)
	case role == "pg_read_server_files" || role == "pg_write_server_files" || role == "pg_execute_server_program":
		why = fmt.Sprintf("the role %q is a member of %s", user, role)
	default:
		why = fmt.Sprintf("the role %q is a member of %q, which has CREATEROLE", user, role)
	}
	return &privilegedError{Err: ErrPrivilegedRole, msg: why + ": a model's statement could run programs or read files on the database host (COPY … TO PROGRAM, pg_read_file), even in a read-only transaction; " +
		"bind a role with only the privileges the tools need (see the documentation of package sqldb/pgdb), or " + hint}
}

// A privilegedError is ErrPrivilegedRole, in Err, with the role and the
// reason as its text.
type privilegedError struct {
	Err error
	msg string
}

func (e *privilegedError) Error() string { return e.msg }
func (e *privilegedError) Unwrap() error { return e.Err }

type opener struct{}

// libpq's and pgx's connection parameters that the URL may carry.
var known = []string{
	"sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "sslsni", "sslnegotiation",
	"connect_timeout", "application_name", "search_path", "target_session_attrs", "options",
	"host", "port", "user", "password", "dbname", "passfile", "service", "servicefile",
	"krbsrvname", "krbspn", "min_read_buffer_size", "require_auth",
	"max_open_conns", "max_idle_time", "allow_superuser",
}

func (opener) OpenDB(ctx context.Context, u *url.URL) (*sql.DB, error) {
	if err := sqldb.CheckParams(u, known...); err != nil {
		return nil, err
	}
	shown := redact.URL(u.String())
	q := u.Query()
	var opts Options
	if s := q.Get("max_open_conns"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("pgdb: max_open_conns=%s: want a whole number of 1 or more", s)
		}
		opts.MaxOpenConns = n
	}
	if s := q.Get("max_idle_time"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("pgdb: max_idle_time=%s: want a positive duration, such as 5m", s)
		}
		opts.MaxIdleTime = d
	}
	if s := q.Get("allow_superuser"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("pgdb: allow_superuser=%s: want true or false", s)
		}
		opts.AllowSuperuser = b
	}
	q.Del("max_open_conns")
	q.Del("max_idle_time")
	q.Del("allow_superuser")
	c := *u
	c.RawQuery = q.Encode()
	cfg, err := pgx.ParseConfig(c.String())
	if err != nil {
		return nil, fmt.Errorf("pgdb: %s: %w", shown, redact.Error(redactConfig(err), u.String()))
	}
	db, err := open(ctx, cfg, &opts, "add allow_superuser=true to the URL")
	if err != nil {
		return nil, fmt.Errorf("pgdb: connect to %s: %w", shown, redact.Error(err, u.String()))
	}
	return db, nil
}

// redactConfig keeps what pgx says of a failed connection but not the
// configuration it quotes, which may hold a password.
func redactConfig(err error) error {
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
