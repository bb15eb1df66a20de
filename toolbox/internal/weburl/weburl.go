// Package weburl checks the URLs a model gives the tools that open web
// pages (fetch_markdown, browse, screenshot, browser_execute), so that
// each refuses the same URLs with the same words.
package weburl

import (
	"fmt"
	"net/url"

	"github.com/hands-go/hands/schema"
)

// Check returns a *schema.Error with one issue at path if raw is not an
// absolute http or https URL that names a host, and nil if it is.
func Check(path, raw string) error {
	u, err := url.Parse(raw)
	var msg string
	switch {
	case err != nil:
		msg = "must be an absolute http or https URL"
	case u.Scheme != "http" && u.Scheme != "https":
		msg = fmt.Sprintf("must be an http or https URL, not %s:", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		msg = "must name a host, as in https://example.com/page"
	}
	if msg != "" {
		return &schema.Error{Issues: []schema.Issue{{Path: path, Keyword: "validate", Message: msg}}}
	}
	return nil
}
