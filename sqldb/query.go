package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults of QueryOptions.
const (
	DefaultMaxRows  = 1000
	DefaultMaxBytes = 256 << 10
	DefaultTimeout  = 10 * time.Second
	// DefaultMaxValueBytes is the default of QueryOptions.MaxValueBytes.
	DefaultMaxValueBytes = 16 << 20
)

// ErrNoEngine reports a *sql.DB whose driver registered no Engine.
var ErrNoEngine = errors.New("sqldb: no engine for this database driver")

// ErrStatementTimeout is matched by the *QueryError of a statement stopped
// at its time limit, whatever the engine: an Engine wraps it in the error
// of a statement that the database itself ended at Session.Timeout
// (PostgreSQL's statement_timeout), which can come before the context's
// deadline, and Query wraps it in the error of one ended by that deadline.
var ErrStatementTimeout = errors.New("sqldb: statement timeout")

// ErrRowTooLarge is matched by the error of a write whose result held a row
// too large for QueryOptions.MaxBytes: an engine that stops reading such a
// row before it is in memory (pgdb) wraps it. A read's result is then
// truncated at the byte limit instead; a write is not committed.
var ErrRowTooLarge = errors.New("sqldb: a row of the result is larger than the byte limit")

// ErrReadOnly is matched by the *QueryError of a statement that would have
// changed the database in a read-only session, whatever the engine: the
// engine wraps it in the database's refusal.
var ErrReadOnly = errors.New("sqldb: the session is read-only")

// QueryOptions bound one Query. The zero value selects every default.
type QueryOptions struct {
	// Write lets the statement change data. If false, the database refuses
	// any change.
	Write bool
	// MaxRows is the most rows returned; the rest are not read. If zero or
	// less, DefaultMaxRows.
	MaxRows int
	// MaxBytes bounds the values returned, counted as the length of their
	// text; the rest are not read. It bounds the memory of a call too:
	// pgdb does not read a row whose message from the server is over
	// 8×MaxBytes + 64 KiB, and sqlitedb's length limit is at least
	// MaxBytes. If zero or less, DefaultMaxBytes.
	MaxBytes int
	// Timeout ends the statement. If zero or less, DefaultTimeout.
	Timeout time.Duration
	// MaxValueBytes bounds one value that the statement builds or reads,
	// where the engine can (SQLite's SQLITE_LIMIT_LENGTH, which applies to
	// a stored value as soon as it is read, even by substr()): a statement
	// that needs a longer one fails with an error that names the limit. It
	// bounds the memory of a call on SQLite. If zero or less,
	// DefaultMaxValueBytes, or MaxBytes if that is larger.
	MaxValueBytes int
}

// A Result is a statement's columns, then its rows.
type Result struct {
	// Columns name each column and its type as the database reports it.
	Columns []Column `json:"columns"`
	// Rows hold each row's values, in column order: string, int64,
	// float64, bool, time.Time or nil. A value that is not UTF-8 text is
	// given as a string of hexadecimal digits prefixed with "\x".
	Rows [][]any `json:"rows"`
	// Truncated says why rows were left out, such as "row limit 1000";
	// empty when every row is here.
	Truncated string `json:"truncated,omitempty"`
	// RowsAffected is how many rows the statement inserted, updated or
	// deleted, where the engine can tell: SQLite for every INSERT, UPDATE
	// or DELETE, PostgreSQL for one that returns no rows. It is nil for a
	// statement that changes no rows by its kind (a SELECT, a CREATE TABLE)
	// and for a read.
	RowsAffected *int64 `json:"rowsAffected,omitempty"`
}

// A Column is one column of a result.
type Column struct {
	Name string `json:"name"`
	// Type is the database's name for the column's type, such as "INTEGER"
	// or "TEXT", looked up by a TypeNamer engine where the driver gives a
	// number; empty when the database does not know (an expression in
	// SQLite).
	Type string `json:"type"`
}

// A QueryError is a statement that the database refused or that failed.
// Its text is the database's own message, which never holds the
// connection string.
type QueryError struct {
	// TimedOut reports a statement ended by the timeout; Err then wraps
	// ErrStatementTimeout.
	TimedOut bool
	// Err is the database's error, wrapped in ErrStatementTimeout when
	// the statement was stopped at its time limit.
	Err error
}

// Error returns the database's message after the package's prefix, said
// once.
func (e *QueryError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "sqldb: ")
	if e.TimedOut {
		return "sqldb: the statement ran past its time limit and was stopped: " + msg
	}
	return "sqldb: " + msg
}

// Unwrap returns Err.
func (e *QueryError) Unwrap() error { return e.Err }

// Query runs the one statement stmt, with its parameters args, on db through
// the Engine of db's driver, and returns at most opts.MaxRows rows and
// opts.MaxBytes of values. The database enforces read-only access unless
// opts.Write: see Engine. opts may be nil.
func Query(ctx context.Context, db *sql.DB, stmt string, args []any, opts *QueryOptions) (*Result, error) {
	e, ok := EngineOf(db)
	if !ok {
		return nil, fmt.Errorf("%w (%T); import its driver package, such as sqldb/sqlitedb", ErrNoEngine, db.Driver())
	}
	return query(ctx, e, db, stmt, args, opts)
}

func query(ctx context.Context, e Engine, db *sql.DB, stmt string, args []any, opts *QueryOptions) (*Result, error) {
	if opts == nil {
		opts = &QueryOptions{}
	}
	maxRows, maxBytes, timeout := opts.MaxRows, opts.MaxBytes, opts.Timeout
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxValue := opts.MaxValueBytes
	if maxValue <= 0 {
		maxValue = max(DefaultMaxValueBytes, maxBytes)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A read stops the statement once a limit is reached, rather than let
	// the driver drain the rows left (pgx reads them all on Close). A write
	// runs to its end, so that what it did is what the result says.
	run, stop := context.WithCancel(ctx)
	defer stop()
	res := &Result{Columns: []Column{}, Rows: [][]any{}}
	s := Session{Write: opts.Write, Timeout: max(timeout.Milliseconds(), 1), MaxBytes: maxBytes, MaxValueBytes: maxValue}
	affected, err := e.Run(run, db, s, stmt, args, func(rows *sql.Rows) error {
		err := collect(rows, res, maxRows, maxBytes)
		if err == nil && res.Truncated != "" && !opts.Write {
			stop()
		}
		return err
	})
	if errors.Is(err, ErrRowTooLarge) && !opts.Write {
		// The engine stopped before the row was in memory.
		res.Truncated, err = fmt.Sprintf("byte limit %d reached; select fewer or shorter columns", maxBytes), nil
	}
	if err != nil && !(res.Truncated != "" && !opts.Write && ctx.Err() == nil) {
		// The database's own timeout wraps ErrStatementTimeout already
		// (pgdb's statement_timeout); the deadline of ctx, which every
		// engine obeys, is wrapped here, so that a statement stopped at its
		// time limit matches the sentinel whatever the engine.
		timedOut := errors.Is(err, ErrStatementTimeout)
		if !timedOut && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			timedOut, err = true, fmt.Errorf("%w: %w", ErrStatementTimeout, err)
		}
		return nil, &QueryError{TimedOut: timedOut, Err: err}
	}
	if affected >= 0 && opts.Write {
		res.RowsAffected = &affected
	}
	if n, ok := e.(TypeNamer); ok {
		n.NameTypes(ctx, db, res.Columns) // on failure, the driver's names stay
	}
	return res, nil
}

// collect reads rows into res until the rows end or a limit is reached.
func collect(rows *sql.Rows, res *Result, maxRows, maxBytes int) error {
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	for _, t := range types {
		res.Columns = append(res.Columns, Column{Name: t.Name(), Type: t.DatabaseTypeName()})
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	used := 0
	for rows.Next() {
		if len(res.Rows) == maxRows {
			res.Truncated = fmt.Sprintf("row limit %d reached; add a LIMIT or a narrower WHERE", maxRows)
			return nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			if used+textLen(v) > maxBytes {
				res.Truncated = fmt.Sprintf("byte limit %d reached; select fewer or shorter columns", maxBytes)
				return nil
			}
			v, n := portable(v)
			used += n
			row[i] = v
		}
		res.Rows = append(res.Rows, row)
	}
	return rows.Err()
}

// textLen returns the length that portable gives v, without copying it.
func textLen(v any) int {
	switch x := v.(type) {
	case []byte:
		if utf8.Valid(x) {
			return len(x)
		}
		return 2 + 2*len(x)
	case string:
		return len(x)
	}
	_, n := portable(v)
	return n
}

// portable returns a scanned value as one that JSON writes plainly, and the
// length of its text.
func portable(v any) (any, int) {
	switch x := v.(type) {
	case nil:
		return nil, 4
	case []byte:
		if utf8.Valid(x) {
			return string(x), len(x)
		}
		return fmt.Sprintf(`\x%x`, x), 2 + 2*len(x)
	case string:
		return x, len(x)
	case time.Time:
		return x, 30
	case int64, float64, bool, int32, int, float32:
		return x, 8
	}
	s := fmt.Sprint(v)
	return s, len(s)
}

// Text renders a result as a table a model reads well: a header of names
// and types, one line per row with values separated by " | ", NULL for a
// null, a newline in a value written \n and a bar \|, the rows a write
// changed, and the reason rows were left out.
func (r *Result) Text() string {
	var b strings.Builder
	b.Grow(r.textSize())
	var num [64]byte
	for i, c := range r.Columns {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(c.Name)
		if c.Type != "" {
			b.WriteString(" (" + c.Type + ")")
		}
	}
	if len(r.Columns) > 0 {
		b.WriteByte('\n')
	}
	for _, row := range r.Rows {
		for i, v := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			switch x := v.(type) {
			case nil:
				b.WriteString("NULL")
			case string:
				writeCell(&b, x)
			case int64:
				b.Write(strconv.AppendInt(num[:0], x, 10))
			case float64:
				b.Write(strconv.AppendFloat(num[:0], x, 'g', -1, 64))
			case bool:
				b.Write(strconv.AppendBool(num[:0], x))
			case time.Time:
				b.Write(x.AppendFormat(num[:0], time.RFC3339Nano))
			default:
				fmt.Fprint(&b, x)
			}
		}
		b.WriteByte('\n')
	}
	switch {
	case r.RowsAffected != nil && len(r.Columns) == 0:
		b.WriteByte('(')
		b.Write(strconv.AppendInt(num[:0], *r.RowsAffected, 10))
		if *r.RowsAffected == 1 {
			b.WriteString(" row changed")
		} else {
			b.WriteString(" rows changed")
		}
	case len(r.Rows) == 1:
		b.WriteString("(1 row")
	default:
		b.WriteByte('(')
		b.Write(strconv.AppendInt(num[:0], int64(len(r.Rows)), 10))
		b.WriteString(" rows")
	}
	if r.RowsAffected != nil && len(r.Columns) > 0 {
		b.WriteString("; ")
		b.Write(strconv.AppendInt(num[:0], *r.RowsAffected, 10))
		b.WriteString(" changed")
	}
	if r.Truncated != "" {
		b.WriteString("; more not shown: " + r.Truncated)
	}
	b.WriteString(")")
	return b.String()
}

// textSize estimates the length of Text, so that its builder grows once.
func (r *Result) textSize() int {
	n := 64 + len(r.Truncated)
	for _, c := range r.Columns {
		n += len(c.Name) + len(c.Type) + 6
	}
	for _, row := range r.Rows {
		for _, v := range row {
			n += 3
			if s, ok := v.(string); ok {
				n += len(s)
			} else {
				n += 8
			}
		}
	}
	return n
}

// writeCell writes s with its newlines as \n and its bars as \|, so that a
// row stays one line and its cells stay apart.
func writeCell(b *strings.Builder, s string) {
	for {
		i := strings.IndexAny(s, "\n|")
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		if s[i] == '\n' {
			b.WriteString(`\n`)
		} else {
			b.WriteString(`\|`)
		}
		s = s[i+1:]
	}
}

// Schema lists the tables and views of db through the Engine of its driver.
func Schema(ctx context.Context, db *sql.DB) ([]Table, error) {
	e, ok := EngineOf(db)
	if !ok {
		return nil, fmt.Errorf("%w (%T); import its driver package, such as sqldb/sqlitedb", ErrNoEngine, db.Driver())
	}
	return e.Schema(ctx, db)
}

// ModelText returns Text, so that a tool whose output is a *Result shows
// the model the table while clients get the JSON.
func (r *Result) ModelText() string { return r.Text() }
