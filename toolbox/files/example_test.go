package files_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/files"
	"gocloud.dev/blob"
)

// host_file writes to a bucket — here an in-memory one — and answers with
// the file's public URL.
func ExampleHostFile() {
	ctx := context.Background()
	bucket, err := blob.OpenBucket(ctx, "mem://")
	if err != nil {
		log.Fatal(err)
	}
	defer bucket.Close()

	hostFile := files.HostFile(bucket, "https://files.example.com/", nil)

	for _, args := range []string{
		`{"key":"reports/q1 summary.txt","content":"hello"}`,
		`{"key":"../secrets.txt","content":"x"}`,
	} {
		res := tool.Run(ctx, hostFile, tool.Call{Name: "host_file", Args: json.RawMessage(args)})
		fmt.Println(res.Content)
	}
	attrs, err := bucket.Attributes(ctx, "reports/q1 summary.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(attrs.ContentType)
	// Output:
	// https://files.example.com/reports/q1%20summary.txt
	// The arguments for host_file are invalid:
	// - /key: must not contain a '..' segment; name the file by its path from the top of the bucket
	// Fix these and call host_file again.
	// text/plain; charset=utf-8
}
