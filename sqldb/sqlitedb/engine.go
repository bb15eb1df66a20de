package sqlitedb

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/hands-go/hands/sqldb"
	"github.com/ncruces/go-sqlite3"
)

// Engine is SQLite's sqldb.Engine. See the package documentation for what
// it allows.
type Engine struct{}

// rawConn is the driver connection of github.com/ncruces/go-sqlite3/driver.
type rawConn interface{ Raw() *sqlite3.Conn }

// schemaPragmas are the pragmas that only read the schema.
var schemaPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true,
}

// deniedFunctions load code or reach outside the database.
var deniedFunctions = map[string]bool{"load_extension": true, "readfile": true, "writefile": true, "edit": true, "fts3_tokenizer": true}

// A policy is the authorizer of one session: see the package
// documentation. It keeps the reason of its first refusal, so that the
// error says it in the session's terms rather than SQLite's "not
// authorized".
type policy struct {
	write  bool
	reason string
	// readOnly reports that the refusal was of a change in a read-only
	// session.
	readOnly bool
	// dml reports that the statement itself, not a trigger, inserts,
	// updates or deletes rows, whose count sqlite3_changes then gives.
	dml bool
}

func (p *policy) authorize(action sqlite3.AuthorizerActionCode, arg3, arg4, _, trigger string) sqlite3.AuthorizerReturnCode {
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_READ, sqlite3.AUTH_RECURSIVE:
		return sqlite3.AUTH_OK
	case sqlite3.AUTH_FUNCTION:
		if deniedFunctions[strings.ToLower(arg4)] {
			return p.deny(false, "the function "+arg4+" is not allowed: it loads code or reaches outside the database")
		}
		return sqlite3.AUTH_OK
	case sqlite3.AUTH_PRAGMA:
		if schemaPragmas[strings.ToLower(arg3)] {
			return sqlite3.AUTH_OK
		}
		return p.deny(false, "PRAGMA "+arg3+" is not allowed: a statement may use only the pragmas that read the schema (table_info, table_xinfo, table_list, index_list, index_info, index_xinfo, foreign_key_list)")
	case sqlite3.AUTH_ATTACH, sqlite3.AUTH_DETACH:
		return p.deny(false, "ATTACH and DETACH are not allowed: a statement uses only the bound database")
	case sqlite3.AUTH_TRANSACTION, sqlite3.AUTH_SAVEPOINT:
		return p.deny(false, "BEGIN, COMMIT, ROLLBACK and SAVEPOINT are not allowed: each call is a transaction of its own")
	}
	if p.write {
		switch action {
		case sqlite3.AUTH_INSERT, sqlite3.AUTH_UPDATE, sqlite3.AUTH_DELETE:
			p.dml = p.dml || (trigger == "" && !schemaTable(arg3))
		}
		return sqlite3.AUTH_OK
	}
	return p.deny(true, fmt.Sprintf("%s, and it would %s", sqldb.ErrReadOnly.Error(), change(action, arg3, arg4)))
}

func (p *policy) deny(readOnly bool, reason string) sqlite3.AuthorizerReturnCode {
	if p.reason == "" {
		p.reason, p.readOnly = reason, readOnly
	}
	return sqlite3.AUTH_DENY
}

// change says what an action the authorizer refused would have done.
func change(action sqlite3.AuthorizerActionCode, arg3, arg4 string) string {
	if schemaTable(arg3) {
		// SQLite asks for its schema table before the CREATE or DROP.
		switch action {
		case sqlite3.AUTH_INSERT:
			return "add to the schema (CREATE)"
		case sqlite3.AUTH_DELETE:
			return "remove from the schema (DROP)"
		}
		return "change the schema"
	}
	switch action {
	case sqlite3.AUTH_INSERT:
		return "insert into " + arg3
	case sqlite3.AUTH_UPDATE:
		return "update " + arg3
	case sqlite3.AUTH_DELETE:
		return "delete from " + arg3
	case sqlite3.AUTH_CREATE_TABLE, sqlite3.AUTH_CREATE_TEMP_TABLE:
		return "create the table " + arg3
	case sqlite3.AUTH_CREATE_INDEX, sqlite3.AUTH_CREATE_TEMP_INDEX:
		return "create the index " + arg3
	case sqlite3.AUTH_CREATE_VIEW, sqlite3.AUTH_CREATE_TEMP_VIEW:
		return "create the view " + arg3
	case sqlite3.AUTH_CREATE_TRIGGER, sqlite3.AUTH_CREATE_TEMP_TRIGGER:
		return "create the trigger " + arg3
	case sqlite3.AUTH_CREATE_VTABLE:
		return "create the virtual table " + arg3
	case sqlite3.AUTH_DROP_TABLE, sqlite3.AUTH_DROP_TEMP_TABLE:
		return "drop the table " + arg3
	case sqlite3.AUTH_DROP_INDEX, sqlite3.AUTH_DROP_TEMP_INDEX:
		return "drop the index " + arg3
	case sqlite3.AUTH_DROP_VIEW, sqlite3.AUTH_DROP_TEMP_VIEW:
		return "drop the view " + arg3
	case sqlite3.AUTH_DROP_TRIGGER, sqlite3.AUTH_DROP_TEMP_TRIGGER:
		return "drop the trigger " + arg3
	case sqlite3.AUTH_DROP_VTABLE:
		return "drop the virtual table " + arg3
	case sqlite3.AUTH_ALTER_TABLE:
		return "alter the table " + arg4
	case sqlite3.AUTH_REINDEX:
		return "rebuild an index"
	case sqlite3.AUTH_ANALYZE:
		return "analyze the tables"
	}
	return "change the database"
}

// schemaTable reports whether table is SQLite's own table of the schema,
// which a CREATE or a DROP writes.
func schemaTable(table string) bool {
	return strings.HasPrefix(table, "sqlite_") && (strings.HasSuffix(table, "_master") || strings.HasSuffix(table, "_schema"))
}

// A refusal is a statement the authorizer refused: its reason, holding
// SQLite's error, and sqldb.ErrReadOnly for a change in a read-only
// session.
type refusal struct {
	reason   string
	readOnly bool
	err      error
}

func (r *refusal) Error() string { return r.reason }

func (r *refusal) Unwrap() []error {
	if r.readOnly {
		return []error{sqldb.ErrReadOnly, r.err}
	}
	return []error{r.err}
}

// Run implements sqldb.Engine. The rows affected are sqlite3_changes after
// an INSERT, UPDATE or DELETE (not counting what triggers change).
func (e Engine) Run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) (int64, error) {
	affected := int64(-1)
	err := e.run(ctx, db, s, stmt, args, read, &affected)
	return affected, err
}

func (Engine) run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error, affected *int64) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var restore []int
	tempVersion := int64(-1)
	p := &policy{write: s.Write}
	err = conn.Raw(func(dc any) error {
		rc, ok := dc.(rawConn)
		if !ok {
			return fmt.Errorf("sqlitedb: the database's driver is %T, not github.com/ncruces/go-sqlite3/driver", dc)
		}
		c := rc.Raw()
		if !s.Write {
			if err := c.Exec(`PRAGMA query_only=on`); err != nil {
				return err
			}
		} else {
			v, err := tempSchemaVersion(c)
			if err != nil {
				return err
			}
			tempVersion = v
		}
		restore = []int{c.Limit(sqlite3.LIMIT_ATTACHED, 0)}
		if s.MaxValueBytes > 0 {
			restore = append(restore, c.Limit(sqlite3.LIMIT_LENGTH, s.MaxValueBytes))
		}
		return c.SetAuthorizer(p.authorize)
	})
	// Whatever happened, the connection goes back to the pool as it was, or
	// not at all: a write session that created or dropped a temporary
	// table, view, index or trigger (a temporary trigger fires on the
	// program's own writes) changed the connection, which is discarded.
	defer conn.Raw(func(dc any) error {
		rc, ok := dc.(rawConn)
		if !ok {
			return driver.ErrBadConn
		}
		c := rc.Raw()
		errs := []error{c.SetAuthorizer(nil), c.Exec(`PRAGMA query_only=off`)}
		if len(restore) > 0 {
			c.Limit(sqlite3.LIMIT_ATTACHED, restore[0])
		}
		if len(restore) > 1 {
			c.Limit(sqlite3.LIMIT_LENGTH, restore[1])
		}
		if s.Write {
			v, err := tempSchemaVersion(c)
			if err != nil || v != tempVersion {
				return driver.ErrBadConn
			}
		}
		if errors.Join(errs...) != nil || !c.GetAutocommit() {
			return driver.ErrBadConn // discarded, not reused
		}
		return nil
	})
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		if p.reason != "" && errors.Is(err, sqlite3.AUTH) {
			return &refusal{reason: p.reason, readOnly: p.readOnly, err: err}
		}
		return tooBig(err, s)
	}
	if err := read(rows); err != nil {
		rows.Close()
		return tooBig(err, s)
	}
	if err := rows.Close(); err != nil {
		return tooBig(err, s)
	}
	if p.dml {
		conn.Raw(func(dc any) error {
			*affected = dc.(rawConn).Raw().Changes()
			return nil
		})
	}
	return nil
}

// tooBig names the session's length limit in SQLite's error for a value
// over it, which says only "string or blob too big".
func tooBig(err error, s sqldb.Session) error {
	if s.MaxValueBytes > 0 && errors.Is(err, sqlite3.TOOBIG) {
		return fmt.Errorf("a value is over the length limit of %d bytes, which bounds every value the statement builds or reads, even one it only passes to length() or substr(); the program sets it (sqldb.QueryOptions.MaxValueBytes): %w", s.MaxValueBytes, err)
	}
	return err
}

// tempSchemaVersion returns the version of c's temporary schema, which
// every change to a temporary table, view, index or trigger moves.
func tempSchemaVersion(c *sqlite3.Conn) (int64, error) {
	st, _, err := c.Prepare(`PRAGMA temp.schema_version`)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	if !st.Step() {
		return 0, cmp.Or(st.Err(), errors.New("sqlitedb: PRAGMA temp.schema_version returned no row"))
	}
	return st.ColumnInt64(0), nil
}
