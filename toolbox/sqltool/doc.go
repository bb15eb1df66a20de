// Package sqltool holds the tools that let a model read a database, and
// write to it if the operator allows:
//
//   - [Query], sql_query: run one SQL statement on a *sql.DB, read-only
//     unless the operator allows writes, bounded in rows, bytes and time by
//     the database itself (package sqldb); the model reads a table, and
//     clients get the columns and rows as structured output.
//   - [Schema], sql_schema: the tables, columns, types and keys.
//
// The database comes in through the constructor, opened by package sqldb
// with the driver of its scheme imported:
//
//	import _ "github.com/hands-go/hands/sqldb/sqlitedb"
//
//	db, err := sqldb.Open(ctx, "sqlite:///var/lib/app/app.db")
//	...
//	reg, err := tool.NewRegistry(&tool.Scope{Tools: []tool.Interface{
//		sqltool.Query(db, nil), // read-only
//		sqltool.Schema(db, ""),
//	}})
//
// A statement the database refuses comes back to the model with the
// database's message; a change refused because the tool is read-only
// matches sqldb.ErrReadOnly.
package sqltool
