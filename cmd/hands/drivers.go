package main

// The bucket schemes HANDS_BUCKET may name. bind opens a bucket through the
// drivers a program imports; the command imports these three.
import (
	_ "gocloud.dev/blob/fileblob" // file:// buckets
	_ "gocloud.dev/blob/memblob"  // mem:// buckets
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets, and S3-compatible stores through endpoint=
)
