package claims

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
)

// SQL is a Store in a table of a SQL database, reached through
// database/sql with any driver: every process that uses the same table
// shares it. The table has the claimed ID as its primary key, so of two
// processes that claim one ID at once the database lets exactly one insert
// it. CreateTable makes the table.
type SQL struct {
	// DB is the database.
	DB *sql.DB
	// Table is the table's name, letters, digits and underscores, with an
	// optional schema before a dot. Empty means "hands_claims".
	Table string
	// Placeholder is how the driver writes the first bind parameter: "?"
	// (SQLite, MySQL) or "$1" (PostgreSQL). Empty means "?".
	Placeholder string
}

// tableName matches the table names SQL accepts.
var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// names returns the table and the placeholder to use.
func (s *SQL) names() (table, ph string, err error) {
	table, ph = s.Table, s.Placeholder
	if table == "" {
		table = "hands_claims"
	}
	if ph == "" {
		ph = "?"
	}
	if !tableName.MatchString(table) {
		return "", "", fmt.Errorf("claims: SQL.Table %q is not a plain table name", table)
	}
	if ph != "?" && ph != "$1" {
		return "", "", fmt.Errorf("claims: SQL.Placeholder %q: want \"?\" or \"$1\"", ph)
	}
	return table, ph, nil
}

// CreateTable creates the table if it does not exist: the claimed ID, its
// primary key, and when it was claimed.
func (s *SQL) CreateTable(ctx context.Context) error {
	table, _, err := s.names()
	if err != nil {
		return err
	}
	_, err = s.DB.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+
		" (id VARCHAR(64) NOT NULL PRIMARY KEY, claimed_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)")
	if err != nil {
		return fmt.Errorf("claims: create the claims table %s: %w", table, err)
	}
	return nil
}

// Claim inserts id. When the insert fails and a row for id exists, another
// claim holds it; the drivers' unique-violation errors differ, and this
// needs none of them.
func (s *SQL) Claim(ctx context.Context, id string) (bool, error) {
	table, ph, err := s.names()
	if err != nil {
		return false, err
	}
	_, insertErr := s.DB.ExecContext(ctx, "INSERT INTO "+table+" (id) VALUES ("+ph+")", id)
	if insertErr == nil {
		return true, nil
	}
	var n int
	if err := s.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table+" WHERE id = "+ph, id).Scan(&n); err != nil {
		return false, fmt.Errorf("claims: claim %q: %w", id, insertErr)
	}
	if n > 0 {
		return false, nil
	}
	return false, fmt.Errorf("claims: claim %q: %w", id, insertErr)
}
