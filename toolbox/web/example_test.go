package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/web"
)

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

	guarded := web.FetchMarkdown(nil)
	res := tool.Run(ctx, guarded, tool.Call{Name: "fetch_markdown", Args: args})
	fmt.Println(res.IsError)

	trusted := web.FetchMarkdown(&web.FetchOptions{AllowPrivate: true})
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
