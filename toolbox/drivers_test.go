package toolbox_test

// The blob drivers the tests open buckets with: a program imports the
// drivers of the schemes it uses, as gocloud.dev intends.
import (
	_ "github.com/hands-go/hands/sqldb/pgdb"
	_ "github.com/hands-go/hands/sqldb/sqlitedb"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
)
