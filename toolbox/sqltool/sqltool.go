package sqltool

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/tool"
)

// Options configure the tool made by Query. The zero value selects
// every default: read-only, sqldb's limits.
type Options struct {
	// Name is the tool's name. If empty, "sql_query".
	Name string
	// Description tells the model what the tool does. If empty, one that
	// names the database's dialect and whether it may write.
	Description string
	// Write lets statements change data and the schema. The tool is then
	// annotated as destructive, so that approval policies catch it.
	Write bool
	// WriteSetting names, in the description the model reads, what an
	// operator sets to allow writes, such as an environment variable. If
	// empty, none is named.
	WriteSetting string
	// MaxRows, MaxBytes, MaxValueBytes and Timeout bound each statement
	// (see sqldb.QueryOptions); zero selects sqldb's defaults.
	MaxRows       int
	MaxBytes      int
	MaxValueBytes int
	Timeout       time.Duration
}

// maxSQLBytes bounds a statement's text.
const maxSQLBytes = 64 << 10

// QueryArgs is the input of sql_query.
type QueryArgs struct {
	// SQL is one statement.
	SQL string `json:"sql" jsonschema:"exactly one SQL statement; put values in params and refer to them as $1, $2 (PostgreSQL) or ? (SQLite)" tool:"minLength=1,maxLength=65536"`
	// Params are the values of the statement's parameters, in order, as
	// text, which the database converts to the parameter's type.
	Params []string `json:"params,omitempty" jsonschema:"the values of the statement's parameters, in order, written as text, such as \"42\" or \"2024-05-01\"; the database converts each to its column's type; write NULL in the statement for a null" tool:"maxItems=100"`
}

// Query returns the sql_query tool: it runs one statement on db with
// sqldb.Query and returns the columns with their types, then the rows, as
// structured output, and a table as the text the model reads. It is
// read-only unless opts.Write, which the database enforces (see package
// sqldb), and bounded in rows, bytes and time; the rows past a limit are
// not read, and the text says so. A statement the database refuses comes
// back to the model with the database's message; a change refused because
// the tool is read-only matches sqldb.ErrReadOnly and names
// opts.WriteSetting. opts may be nil.
//
// Query panics if db is nil.
func Query(db *sql.DB, opts *Options) *tool.Tool[QueryArgs, *sqldb.Result] {
	if db == nil {
		panic("sqltool.Query: db is nil")
	}
	if opts == nil {
		opts = &Options{}
	}
	desc := opts.Description
	if desc == "" {
		mode := "Read-only: the database refuses any change"
		if opts.WriteSetting != "" {
			mode += " (the operator allows writes with " + opts.WriteSetting + ")"
		}
		mode += "."
		if opts.Write {
			mode = "It may change data and the schema."
		}
		desc = fmt.Sprintf("Run one SQL statement on the %s database and get its columns and rows. %s "+
			"Call sql_schema first to learn the tables. Use params for values, never string concatenation. "+
			"Long results are cut; add LIMIT and WHERE to narrow them.", dialect(db), mode)
	}
	ann := tool.Annotations{ReadOnly: true, Idempotent: true}
	if opts.Write {
		ann = tool.Annotations{Destructive: true}
	}
	q := &sqldb.QueryOptions{Write: opts.Write, MaxRows: opts.MaxRows, MaxBytes: opts.MaxBytes, MaxValueBytes: opts.MaxValueBytes, Timeout: opts.Timeout}
	return tool.New(cmp.Or(opts.Name, "sql_query"), desc,
		func(ctx context.Context, a QueryArgs) (*sqldb.Result, error) {
			args := make([]any, len(a.Params))
			for i, p := range a.Params {
				args[i] = p
			}
			res, err := sqldb.Query(ctx, db, a.SQL, args, q)
			if errors.Is(err, sqldb.ErrReadOnly) && opts.WriteSetting != "" {
				return nil, fmt.Errorf("%w (the operator allows writes with %s)", err, opts.WriteSetting)
			}
			return res, err
		},
		tool.WithTitle("Run an SQL statement"),
		tool.WithAnnotations(ann),
		tool.WithLimits(tool.Limits{MaxBytes: 2*maxSQLBytes + 64<<10}))
}

// dialect names db's database for a description.
func dialect(db *sql.DB) string {
	t := fmt.Sprintf("%T", db.Driver())
	switch {
	case strings.Contains(t, "stdlib"), strings.Contains(t, "pgx"), strings.Contains(t, "pq"):
		return "PostgreSQL"
	case strings.Contains(strings.ToLower(t), "sqlite"):
		return "SQLite"
	}
	return "SQL"
}

// SchemaArgs is the input of sql_schema: nothing.
type SchemaArgs struct{}

// maxSchemaTables bounds the tables sql_schema lists.
const maxSchemaTables = 500

// Tables is the output of sql_schema.
type Tables struct {
	// Tables are the tables and views, with their columns and keys.
	Tables []sqldb.Table `json:"tables"`
	// Truncated says why tables were left out; empty when all are here.
	Truncated string `json:"truncated,omitempty"`
}

// ModelText lists one table a line, as a model writes a CREATE TABLE: its
// columns with their types, primary key and NOT NULL, then its foreign
// keys.
func (s *Tables) ModelText() string {
	var b strings.Builder
	for _, t := range s.Tables {
		if t.View {
			b.WriteString("view ")
		}
		if t.Schema != "" {
			b.WriteString(t.Schema + ".")
		}
		b.WriteString(t.Name + "(")
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name)
			if c.Type != "" {
				b.WriteString(" " + c.Type)
			}
			if c.PrimaryKey > 0 {
				b.WriteString(" PRIMARY KEY")
				if c.PrimaryKey > 1 || countPK(t.Columns) > 1 {
					fmt.Fprintf(&b, " (%d)", c.PrimaryKey)
				}
			}
			if c.NotNull {
				b.WriteString(" NOT NULL")
			}
		}
		b.WriteString(")")
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(&b, " FOREIGN KEY (%s) REFERENCES %s(%s)", strings.Join(fk.Columns, ", "), fk.RefTable, strings.Join(fk.RefColumns, ", "))
		}
		b.WriteByte('\n')
	}
	if len(s.Tables) == 0 {
		b.WriteString("(no tables)\n")
	}
	if s.Truncated != "" {
		b.WriteString("(" + s.Truncated + ")\n")
	}
	return b.String()
}

func countPK(cols []sqldb.TableColumn) int {
	n := 0
	for _, c := range cols {
		if c.PrimaryKey > 0 {
			n++
		}
	}
	return n
}

// Schema returns the sql_schema tool: the tables and views of db, their
// columns, types and keys, what a model needs to write a correct query; at
// most 500 tables. name is the tool's name; empty means "sql_schema".
//
// Schema panics if db is nil.
func Schema(db *sql.DB, name string) *tool.Tool[SchemaArgs, *Tables] {
	if db == nil {
		panic("sqltool.Schema: db is nil")
	}
	return tool.New(cmp.Or(name, "sql_schema"),
		fmt.Sprintf("List the tables and views of the %s database with their columns, types, primary keys and foreign keys. Call it before writing a query.", dialect(db)),
		func(ctx context.Context, _ SchemaArgs) (*Tables, error) {
			ctx, cancel := context.WithTimeout(ctx, sqldb.DefaultTimeout)
			defer cancel()
			tables, err := sqldb.Schema(ctx, db)
			if err != nil {
				return nil, err
			}
			s := &Tables{Tables: tables}
			if s.Tables == nil {
				s.Tables = []sqldb.Table{}
			}
			if len(tables) > maxSchemaTables {
				s.Tables = tables[:maxSchemaTables]
				s.Truncated = fmt.Sprintf("%d more tables not shown", len(tables)-maxSchemaTables)
			}
			return s, nil
		},
		tool.WithTitle("List the database's tables"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true}))
}
