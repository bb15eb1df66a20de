package pgdb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hands-go/hands/sqldb"
	"github.com/jackc/pgx/v5"
)

// Engine is PostgreSQL's sqldb.Engine. See the package documentation for
// what it allows.
type Engine struct{}

// Run implements sqldb.Engine.
func (Engine) Run(ctx context.Context, db *sql.DB, s sqldb.Session, stmt string, args []any, read func(*sql.Rows) error) error {
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
