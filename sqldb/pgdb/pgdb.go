// Package pgdb opens PostgreSQL databases for package sqldb: postgres://
// and postgresql:// URLs, through pgx's database/sql driver
// (github.com/jackc/pgx/v5/stdlib). It registers its opener and its Engine
// in init:
//
//	import _ "github.com/hands-go/hands/sqldb/pgdb"
//
//	db, err := sqldb.Open(ctx, "postgres://hands_sql@db.internal:5432/app?sslmode=verify-full")
//
// The URL is libpq's, with pgx's parameters (sslmode, connect_timeout,
// application_name, pool parameters aside); three more are this package's:
//
//	max_open_conns=N      the pool's size (default 10)
//	max_idle_time=DUR     how long an idle connection is kept (default 5m)
//	allow_superuser=true  bind a privileged role (see The role below)
//
// pgx's own default_query_exec_mode and statement_cache_capacity are
// refused: a model's statement always goes through the extended protocol.
// The opener pings the server, so a wrong host or password is found when
// the database is bound. No error names a password: the URL is shown with
// the password of its user information and the value of every parameter
// that bears a credential (password, sslpassword, and the like) redacted,
// even when it does not parse; sslkey and passfile name files and are
// shown. OpenConfig opens a pgx.ConnConfig that the program completed
// itself, with the same checks.
//
// # The role
//
// A superuser's statement reaches the database host, even in a read-only
// transaction: COPY … TO PROGRAM runs a shell command, pg_read_file and
// lo_import read any file the server can, pg_authid holds every role's
// password hash, SET ROLE becomes any role and pg_terminate_backend ends
// any session. Members of pg_execute_server_program, pg_read_server_files
// and pg_write_server_files run programs, read files and write them, and a
// role with CREATEROLE may grant itself those roles before PostgreSQL 16.
// Every connection checks its role first and refuses one that is any of
// these or a member of one, inherited or not (SET ROLE reaches a role
// whose privileges are not inherited), with an error that matches
// ErrPrivilegedRole, unless the URL says allow_superuser=true or
// Options.AllowSuperuser is set.
//
// Bind a role of its own that may read only what the model may: a role
// can end the other sessions of its own role (pg_terminate_backend), and
// those of the application would be among them. As a superuser, in the
// database bound (here app, whose tables notes and tags the model reads):
//
//	CREATE ROLE hands_sql LOGIN PASSWORD 'CHANGE-ME'
//		NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
//		CONNECTION LIMIT 10;
//	REVOKE CREATE ON SCHEMA public FROM PUBLIC;
//	REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC;
//	GRANT CONNECT ON DATABASE app TO hands_sql;
//	GRANT USAGE ON SCHEMA public TO hands_sql;
//	GRANT SELECT ON notes, tags TO hands_sql;
//
// The REVOKE statements take from PUBLIC, that is from every role but the
// superusers: CREATE on the schema public (already so since PostgreSQL
// 15), so that a writing model cannot plant a function or a table that
// another role's search_path finds; and ending or canceling a session, so
// that the model cannot end the other sessions of its own pool (before
// PostgreSQL 14, the function is pg_terminate_backend(integer)). Grant
// them back to a role that needs them. Function privileges are the database's,
// so run them in each database the role may connect to. For a model that
// writes (sqldb.QueryOptions.Write), grant INSERT, UPDATE and DELETE on
// the tables it may change, and no more. With this role the model's
// statement reads notes and tags; COPY … TO PROGRAM, pg_read_file,
// lo_import, pg_authid, SET ROLE to another role, pg_terminate_backend, a
// table not granted and, in a writable session, a write or a CREATE are
// refused by the server, which the package's tests check against these
// very statements.
//
// # What a model's statement may do
//
// Engine.Run runs the statement in a transaction of its own, BEGIN READ
// ONLY unless the session writes, with SET LOCAL statement_timeout, and
// sends it through the extended protocol, where the server refuses more
// than one statement: "COMMIT; DELETE …" is an error, not an escape. A
// read-only transaction is always rolled back, so a SET in it does not
// outlive the call; a lone COMMIT ends it early but the call runs nothing
// after it. The role's own privileges still apply, in a read-only
// transaction as in another: bind the role above.
package pgdb
