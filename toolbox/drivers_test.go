package toolbox_test

// The database drivers the benchmarks open databases with: a program
// imports the drivers of the schemes it uses.
import (
	_ "github.com/hands-go/hands/sqldb/pgdb"
	_ "github.com/hands-go/hands/sqldb/sqlitedb"
)
