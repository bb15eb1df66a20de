// Package pgdb opens PostgreSQL databases for package sqldb: postgres://
// and postgresql:// URLs, through pgx's database/sql driver
// (github.com/jackc/pgx/v5/stdlib). It registers its opener and its Engine
// in init:
//
//	import _ "github.com/hands-go/hands/sqldb/pgdb"
//
//	db, err := sqldb.Open(ctx, "postgres://app@db.internal:5432/app?sslmode=verify-full")
//
// The URL is libpq's, with pgx's parameters (sslmode, connect_timeout,
// application_name, pool parameters aside); two more set the pool:
//
//	max_open_conns=N   the pool's size (default 10)
//	max_idle_time=DUR  how long an idle connection is kept (default 5m)
//
// pgx's own default_query_exec_mode and statement_cache_capacity are
// refused: a model's statement always goes through the extended protocol.
// The opener pings the server, so a wrong host or password is found when
// the database is bound; no error names the password.
//
// # What a model's statement may do
//
// Engine.Run runs the statement in a transaction of its own, BEGIN READ
// ONLY unless the session writes, with SET LOCAL statement_timeout, and
// sends it through the extended protocol, where the server refuses more
// than one statement: "COMMIT; DELETE …" is an error, not an escape. A
// read-only transaction is always rolled back, so a SET in it does not
// outlive the call; a lone COMMIT ends it early but the call runs nothing
// after it. The database role's own privileges still apply: a
// superuser can read files with pg_read_file in a read-only transaction,
// so bind a role that may read only what the model may.
package pgdb
