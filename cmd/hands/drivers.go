package main

// The schemes HANDS_BUCKET, HANDS_KV, HANDS_SQL and HANDS_IMAGE may name.
// bind and image.Open open a resource through the drivers a program
// imports; the command imports these.
import (
	_ "github.com/hands-go/hands/kv/memkv"                  // mem:// stores
	_ "github.com/hands-go/hands/kv/rediskv"                // redis:// and rediss:// stores
	_ "github.com/hands-go/hands/kv/sqlitekv"               // sqlite:// stores, the default
	_ "github.com/hands-go/hands/sqldb/pgdb"                // postgres:// databases
	_ "github.com/hands-go/hands/sqldb/sqlitedb"            // sqlite:// databases
	_ "github.com/hands-go/hands/toolbox/image/geminiimage" // gemini:// image models, on the Gemini SDK
	_ "github.com/hands-go/hands/toolbox/image/openaiimage" // openai:// image models, on the OpenAI SDK
	_ "gocloud.dev/blob/fileblob"                           // file:// buckets
	_ "gocloud.dev/blob/memblob"                            // mem:// buckets
	_ "gocloud.dev/blob/s3blob"                             // s3:// buckets, and S3-compatible stores through endpoint=
)
