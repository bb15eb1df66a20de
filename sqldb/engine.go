package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"
	"sync"
)

// An Engine runs a statement a model wrote, and lists a schema, in one
// database's dialect. The database enforces the rules, never a parse of the
// statement: each driver package registers the engine of its driver with
// RegisterEngine.
type Engine interface {
	// Run runs the one statement stmt with args on db and passes its rows to
	// read, within a session set up so that the database itself refuses
	// what the session does not allow: any change when s.Write is false,
	// more than one statement, leaving the bound database (ATTACH), loading
	// code, and changing the session's rules. It ends the statement at
	// s.Timeout on the database's side as well as through ctx. A write is
	// committed when the statement completes and read returns nil. It
	// returns how many rows the statement inserted, updated or deleted, or
	// -1 when it changed none by its kind or the engine cannot tell. The
	// connection it used goes back to db's pool as it found it, or is
	// closed: nothing the statement did to the session (a lock, a prepared
	// statement, a setting, a temporary object) reaches the program's own
	// queries.
	Run(ctx context.Context, db *sql.DB, s Session, stmt string, args []any, read func(*sql.Rows) error) (rowsAffected int64, err error)
	// Schema lists the tables and views that a query may read, with their
	// columns and keys.
	Schema(ctx context.Context, db *sql.DB) ([]Table, error)
}

// A TypeNamer is an Engine whose driver names some column types by a
// number rather than a name: pgx, for a type outside its own map (void, an
// enum), gives its OID. After the statement, Query passes it the result's
// columns, whose Types it rewrites in place where it knows better; an error
// leaves them as they were.
type TypeNamer interface {
	NameTypes(ctx context.Context, db *sql.DB, cols []Column) error
}

// A Session is what an Engine allows one statement.
type Session struct {
	// Write allows the statement to change data and the schema.
	Write bool
	// Timeout ends the statement on the database's side; it is positive.
	Timeout int64 // milliseconds
	// MaxBytes is the result's byte limit (QueryOptions.MaxBytes). An engine
	// may stop reading a row that cannot fit before the row is in memory,
	// with an error that wraps ErrRowTooLarge (pgdb bounds the size of a
	// message from the server by it).
	MaxBytes int
	// MaxValueBytes bounds one value the database builds or reads, where
	// the engine can say so (SQLite's length limit); zero leaves the
	// engine's limit.
	MaxValueBytes int
}

var engines sync.Map // reflect.Type of a driver.Driver → Engine

// RegisterEngine makes e the engine of every *sql.DB whose driver has the
// dynamic type of d. A driver package calls it in init.
func RegisterEngine(d driver.Driver, e Engine) {
	engines.Store(reflect.TypeOf(d), e)
}

// EngineOf returns the engine of db's driver, if a driver package imported
// by the program registered one.
func EngineOf(db *sql.DB) (Engine, bool) {
	e, ok := engines.Load(reflect.TypeOf(db.Driver()))
	if !ok {
		return nil, false
	}
	return e.(Engine), true
}

// A Table is a table or view of the database.
type Table struct {
	// Schema is the namespace the table lives in, such as "public"; empty
	// for SQLite's main database.
	Schema string `json:"schema,omitempty"`
	// Name is the table's name.
	Name string `json:"name"`
	// View reports a view.
	View bool `json:"view,omitempty"`
	// Columns are the table's columns, in order.
	Columns []TableColumn `json:"columns"`
	// ForeignKeys are the references from this table to others.
	ForeignKeys []ForeignKey `json:"foreignKeys,omitempty"`
}

// A TableColumn is one column of a table.
type TableColumn struct {
	Name string `json:"name"`
	// Type is the declared type, such as "INTEGER" or "text".
	Type string `json:"type"`
	// NotNull reports a column that cannot hold NULL.
	NotNull bool `json:"notNull,omitempty"`
	// PrimaryKey is the column's position in the primary key, from 1; 0
	// when it is not part of it.
	PrimaryKey int `json:"primaryKey,omitempty"`
}

// A ForeignKey is a reference from columns of one table to another's.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"refTable"`
	RefColumns []string `json:"refColumns"`
}
