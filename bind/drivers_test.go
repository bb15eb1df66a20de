package bind_test

// The drivers the tests open buckets, databases and stores with: a program imports the
// drivers of the schemes it uses, as gocloud.dev intends.
import (
	_ "github.com/hands-go/hands/kv/memkv"
	_ "github.com/hands-go/hands/kv/rediskv"
	_ "github.com/hands-go/hands/sqldb/pgdb"
	_ "github.com/hands-go/hands/sqldb/sqlitedb"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)
