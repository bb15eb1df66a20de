package sqltool_test

// The database drivers the tests open databases with: a program imports
// the drivers of the schemes it uses.
import _ "github.com/hands-go/hands/sqldb/sqlitedb"
