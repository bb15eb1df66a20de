package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
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

	hostFile := toolbox.HostFile(bucket, "https://files.example.com/", nil)

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

// fetch_markdown turns a page into Markdown. The page here is served on
// 127.0.0.1, which the address guard refuses unless AllowPrivate is set.
func ExampleFetchMarkdown() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<h1>Hello</h1><p>A <strong>small</strong> page.</p><ul><li>one</li><li>two</li></ul>`)
	}))
	defer srv.Close()
	args := json.RawMessage(fmt.Sprintf(`{"url":%q}`, srv.URL))
	ctx := context.Background()

	guarded := toolbox.FetchMarkdown(nil)
	res := tool.Run(ctx, guarded, tool.Call{Name: "fetch_markdown", Args: args})
	fmt.Println(res.IsError)

	trusted := toolbox.FetchMarkdown(&toolbox.FetchOptions{AllowPrivate: true})
	res = tool.Run(ctx, trusted, tool.Call{Name: "fetch_markdown", Args: args})
	fmt.Println(res.Content)
	// Output:
	// true
	// # Hello
	//
	// A **small** page.
	//
	// - one
	// - two
}
