package weburl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/toolbox/internal/weburl"
)

// TestCheck takes absolute http and https URLs with a host, and refuses
// everything else with one issue at the path given, worded for a model.
func TestCheck(t *testing.T) {
	for _, ok := range []string{"https://example.com/", "http://127.0.0.1:8080/x?y=1", "HTTPS://Example.com"} {
		if err := weburl.Check("/url", ok); err != nil {
			t.Errorf("Check(%q) = %v", ok, err)
		}
	}
	for raw, want := range map[string]string{
		"example.com/page":     "not :",
		"javascript:alert(1)":  "not javascript:",
		"file:///etc/passwd":   "not file:",
		"https:///nohost":      "must name a host",
		"http://:80/":          "must name a host",
		"%":                    "absolute http or https URL",
		"ftp://example.com/x":  "not ftp:",
		"https://[::1/broken]": "absolute http or https URL",
	} {
		err := weburl.Check("/steps/0/url", raw)
		serr, ok := errors.AsType[*schema.Error](err)
		if !ok || len(serr.Issues) != 1 || serr.Issues[0].Path != "/steps/0/url" || !strings.Contains(serr.Issues[0].Message, want) {
			t.Errorf("Check(%q) = %v, want one issue at /steps/0/url saying %q", raw, err, want)
		}
	}
}
