package main

// The schemes HANDS_BUCKET, HANDS_KV and HANDS_SQL may name. bind opens a
// resource through the drivers a program imports; the command imports these.
import (
	_ "github.com/hands-go/hands/kv/memkv"       // mem:// stores
	_ "github.com/hands-go/hands/kv/rediskv"     // redis:// and rediss:// stores
	_ "github.com/hands-go/hands/kv/sqlitekv"    // sqlite:// stores, the default
	_ "github.com/hands-go/hands/sqldb/pgdb"     // postgres:// databases
	_ "github.com/hands-go/hands/sqldb/sqlitedb" // sqlite:// databases
	_ "gocloud.dev/blob/fileblob"                // file:// buckets
	_ "gocloud.dev/blob/memblob"                 // mem:// buckets
	_ "gocloud.dev/blob/s3blob"                  // s3:// buckets, and S3-compatible stores through endpoint=
)
