// Package sqlitedb opens SQLite databases for package sqldb: sqlite:// URLs,
// through github.com/ncruces/go-sqlite3, which is pure Go (no cgo). It
// registers its opener and its Engine in init:
//
//	import _ "github.com/hands-go/hands/sqldb/sqlitedb"
//
//	db, err := sqldb.Open(ctx, "sqlite:///var/lib/app/data.db")
//
// # URLs
//
//	sqlite:///absolute/path.db    a file by its absolute path
//	sqlite://./relative/path.db   a file relative to the working directory
//
// The file and its directory are created when missing, unless mode=ro. The
// query parameters are:
//
//	mode=ro              open the file read-only; it must exist, and a
//	                     missing one is an error that names its path
//	max_open_conns=N     the pool's size (default 4)
//	busy_timeout=DUR     how long a writer waits for a lock (default 5s)
//
// Any other parameter is an error. The database is opened in WAL mode, so
// readers do not wait for a writer, with synchronous=NORMAL: a commit
// survives a crash of the process, but the last commits before a power
// loss or a crash of the operating system may be rolled back, the database
// staying consistent. OpenFile's Options.Durable syncs every commit
// instead (FULL), as package kv/sqlitekv does.
//
// # What a model's statement may do
//
// Engine.Run installs, for the one statement, an authorizer (SQLite's own
// check, made while the statement is compiled) that refuses ATTACH and
// DETACH, every PRAGMA except the read-only schema ones (table_info,
// table_xinfo, table_list, index_list, index_info, index_xinfo,
// foreign_key_list), BEGIN, COMMIT, ROLLBACK and SAVEPOINT, the functions
// load_extension and the like, and, unless the session writes, anything but
// reading. A read-only session also sets PRAGMA query_only. A refused
// statement's error gives the reason in these terms, not SQLite's "not
// authorized": a change in a read-only session matches sqldb.ErrReadOnly
// and says what the statement would have changed. The driver
// refuses a second statement after the first, ATTACH is limited to zero
// databases, and the longest value the statement may build or read is
// limited (SQLITE_LIMIT_LENGTH, at sqldb.QueryOptions.MaxValueBytes, 16 MiB
// by default): SQLite applies it to a stored value as soon as it is read,
// so it is kept well above the result's byte limit, which cuts long values
// instead, and its error names it. The statement is interrupted at its
// timeout.
//
// The connection then goes back to the pool as it was: the authorizer,
// query_only and the limits are undone, and a connection whose write
// session made or dropped a temporary table, view, index or trigger is
// closed rather than pooled.
package sqlitedb
