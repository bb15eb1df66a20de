package sqlitedb

import (
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

// authorizer returns the policy of a session: see the package
// documentation.
func authorizer(write bool) func(sqlite3.AuthorizerActionCode, string, string, string, string) sqlite3.AuthorizerReturnCode {
	return func(action sqlite3.AuthorizerActionCode, arg3, arg4, _, _ string) sqlite3.AuthorizerReturnCode {
		switch action {
		case sqlite3.AUTH_SELECT, sqlite3.AUTH_READ, sqlite3.AUTH_RECURSIVE:
			return sqlite3.AUTH_OK
		case sqlite3.AUTH_FUNCTION:
			if deniedFunctions[strings.ToLower(arg4)] {
				return sqlite3.AUTH_DENY
			}
			return sqlite3.AUTH_OK
		case sqlite3.AUTH_PRAGMA:
			if schemaPragmas[strings.ToLower(arg3)] {
				return sqlite3.AUTH_OK
			}
			return sqlite3.AUTH_DENY
		case sqlite3.AUTH_ATTACH, sqlite3.AUTH_DETACH, sqlite3.AUTH_TRANSACTION, sqlite3.AUTH_SAVEPOINT:
			return sqlite3.AUTH_DENY
		}
		if write {
			return sqlite3.AUTH_OK
		}
		return sqlite3.AUTH_DENY
	}
}

// Run implements sqldb.Engine.
func (Engine) Run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var restore []int
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
		}
		restore = []int{c.Limit(sqlite3.LIMIT_ATTACHED, 0)}
		if s.MaxValueBytes > 0 {
			restore = append(restore, c.Limit(sqlite3.LIMIT_LENGTH, s.MaxValueBytes))
		}
		return c.SetAuthorizer(authorizer(s.Write))
	})
	// Whatever happened, the connection goes back to the pool as it was, or
	// not at all.
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
		return err
	}
	if err := read(rows); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}
