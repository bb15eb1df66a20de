package web

import "github.com/hands-go/hands/internal/htmlmd"

// HTMLToMarkdown is the conversion of fetch_markdown, for tests of its
// bounds that need no server.
var HTMLToMarkdown = htmlmd.Convert
