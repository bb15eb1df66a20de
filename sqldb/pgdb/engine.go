package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hands-go/hands/sqldb"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
// sqldb.ErrReadOnly.
func (e Engine) Run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) error {
	err := e.run(ctx, db, s, stmt, args, read)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == queryCanceled && ctx.Err() == nil {
		// Not the context: the server's statement_timeout.
		return fmt.Errorf("%w: %w", sqldb.ErrStatementTimeout, err)
	}
	if errors.As(err, &pe) && pe.Code == readOnlyRefused {
		return fmt.Errorf("%w: %w", sqldb.ErrReadOnly, err)
	}
	return err
}

func (Engine) run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) error {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: !s.Write})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", s.Timeout)); err != nil {
		return err
	}
	// The extended protocol: one statement, whatever the URL's default mode.
	rows, err := tx.QueryContext(ctx, stmt, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
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
