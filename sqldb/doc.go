// Package sqldb opens SQL databases from URLs, as plain *sql.DB values, and
// runs a statement that a model wrote within bounds that the database
// itself enforces.
//
// # Opening
//
// A driver package registers the opener of its URL scheme on
// DefaultURLMux in init, the way gocloud.dev's drivers do; Open dispatches:
//
//	import _ "github.com/hands-go/hands/sqldb/sqlitedb" // sqlite:///path/app.db, pure Go
//	import _ "github.com/hands-go/hands/sqldb/pgdb"     // postgres://user@host/db, through pgx
//
//	db, err := sqldb.Open(ctx, "sqlite:///var/lib/app/app.db")
//
// The result is an ordinary *sql.DB with the pool limits the driver set,
// usable for anything database/sql does; close it on shutdown. Openers
// reject query parameters they do not know, ping the database so that a
// wrong address is found at once, and never put a credential in an error:
// neither the password of the URL's user information nor the value of a
// parameter such as password or sslpassword, even in a URL that does not
// parse.
// Package bind opens a *sql.DB field from its URL the same way.
//
// # Running a model's statement
//
// Query runs one statement with its parameters through the Engine that the
// driver package registered for its driver, and returns the columns with
// their types, then the rows (and, for a write, how many rows it changed), within QueryOptions' limits: rows, bytes and
// time. The limits are the database's, not a parse of the SQL:
//
//   - Read-only unless QueryOptions.Write: a read-only transaction
//     (PostgreSQL) or query_only and an authorizer (SQLite). A change the
//     database refuses for it matches ErrReadOnly, whatever the engine.
//   - One statement per call: PostgreSQL's extended protocol and SQLite's
//     driver refuse a second, so "COMMIT; DELETE …" is an error.
//   - Time: statement_timeout on the server, an interrupt for SQLite, and
//     the context for both.
//   - Rows and bytes: the rows past a limit are not read, and the result
//     says why it stopped (Result.Truncated).
//
// Schema lists the tables, columns, types and keys, which is what a model
// needs to write a correct query. Package toolbox builds the sql_query and
// sql_schema tools on these two.
package sqldb
