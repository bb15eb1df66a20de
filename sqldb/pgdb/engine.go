package pgdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hands-go/hands/sqldb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"
)

// SQLSTATEs: a statement the server canceled, and a change in a read-only
// transaction.
const (
	queryCanceled   = "57014"
	readOnlyRefused = "25006"
)

// Engine is PostgreSQL's sqldb.Engine. See the package documentation for
// what it allows.
type Engine struct{}

// Run implements sqldb.Engine. A statement the server ended at
// statement_timeout is an error that wraps sqldb.ErrStatementTimeout, and
// one it refused as a change in a read-only transaction wraps
// sqldb.ErrReadOnly. The call has a connection of its own, which it resets
// with DISCARD ALL once the transaction has ended, so that no lock,
// prepared statement, setting, temporary table or LISTEN outlives it; a
// connection that cannot be reset is closed. The rows affected are those
// of the command tag of an INSERT, UPDATE, DELETE or MERGE that returns no
// rows; a write's statement is described first, and one without result
// columns runs through pgx, whose command tag database/sql does not pass
// on.
func (e Engine) Run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) (int64, error) {
	affected := int64(-1)
	err := e.run(ctx, db, s, stmt, args, read, &affected)
	return affected, wrap(ctx, s, err)
}

// wrap gives err the sentinels of package sqldb that it matches.
func wrap(ctx context.Context, s sqldb.Session, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == queryCanceled && ctx.Err() == nil {
		// Not the context: the server's statement_timeout.
		return fmt.Errorf("%w: %w", sqldb.ErrStatementTimeout, err)
	}
	if errors.As(err, &pe) && pe.Code == readOnlyRefused {
		return fmt.Errorf("%w: %w", sqldb.ErrReadOnly, err)
	}
	if tooLarge, ok := errors.AsType[*pgproto3.ExceededMaxBodyLenErr](err); ok {
		msg := fmt.Sprintf("the server sent a row of %d bytes, over the %d that a byte limit of %d allows; it was not read", tooLarge.ActualBodyLen, tooLarge.MaxExpectedBodyLen, s.MaxBytes)
		if s.Write {
			msg += ", and the statement was not committed"
		}
		return fmt.Errorf("%w: %s", sqldb.ErrRowTooLarge, msg)
	}
	return err
}

// maxMessage is PostgreSQL's own limit on a message
// (PQ_LARGE_MESSAGE_LIMIT), which pgproto3 takes by default; a call lowers
// it on its connection and puts it back.
const maxMessage = 0x3fffffff - 1

// messageLimit returns the largest message from the server that a call
// with the byte limit maxBytes reads: a row larger than this cannot fit the
// limit, which counts a value as the length of its text, since no value
// takes more than 8 times its text's length on the wire (a bigint of one
// digit, in binary), plus room for a row of many columns.
func messageLimit(maxBytes int) int {
	return min(8*maxBytes+64<<10, maxMessage)
}

// resetTimeout bounds the reset of a connection after a call; past it, the
// connection is closed instead.
const resetTimeout = 5 * time.Second

func (Engine) run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error, affected *int64) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Once the transaction has ended, the connection goes back to the pool
	// as a new one is, or not at all: DISCARD ALL releases the session's
	// advisory locks, prepared statements, settings, temporary tables and
	// LISTENs, which outlive a transaction (DISCARD ALL itself cannot run
	// inside one), and pgx forgets its own prepared statements, which the
	// server has just dropped.
	defer conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return driver.ErrBadConn
		}
		pc := c.Conn()
		if pc.IsClosed() {
			// pgx closes a connection it cannot use, such as one whose
			// row it refused, politely: it reads what the server still
			// sends. Close the socket now, so that neither side sends
			// the rest of a row no one reads.
			pc.PgConn().Conn().Close()
			return driver.ErrBadConn
		}
		if pc.PgConn().TxStatus() != 'I' {
			return driver.ErrBadConn
		}
		pc.PgConn().Frontend().SetMaxBodyLen(maxMessage)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resetTimeout)
		defer cancel()
		if _, err := pc.PgConn().Exec(rctx, "DISCARD ALL").ReadAll(); err != nil {
			return driver.ErrBadConn
		}
		if err := pc.DeallocateAll(rctx); err != nil {
			return driver.ErrBadConn
		}
		return nil
	})
	// A row is not read into memory when it could not fit the byte limit:
	// pgproto3 refuses a message over its limit from its header, and the
	// connection, then out of step, is closed.
	if s.MaxBytes > 0 {
		err := conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("pgdb: the database's driver is %T, not pgx's", dc)
			}
			c.Conn().PgConn().Frontend().SetMaxBodyLen(messageLimit(s.MaxBytes))
			return nil
		})
		if err != nil {
			return err
		}
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: !s.Write})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", s.Timeout)); err != nil {
		return err
	}
	// The extended protocol: one statement, whatever the URL's default mode.
	args = append([]any{pgx.QueryExecModeDescribeExec}, args...)
	if s.Write {
		var tag pgconn.CommandTag
		noRows := false
		err := conn.Raw(func(dc any) error {
			pc := dc.(*stdlib.Conn).Conn()
			sd, err := pc.PgConn().Prepare(ctx, "", stmt, nil)
			if err != nil || len(sd.Fields) > 0 {
				return err
			}
			noRows = true
			tag, err = pc.Exec(ctx, stmt, args...)
			return err
		})
		if err != nil {
			return err
		}
		if noRows {
			if tag.Insert() || tag.Update() || tag.Delete() || strings.HasPrefix(tag.String(), "MERGE") {
				*affected = tag.RowsAffected()
			}
			return tx.Commit()
		}
	}
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	if err := read(rows); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if !s.Write {
		return tx.Rollback()
	}
	return tx.Commit()
}
