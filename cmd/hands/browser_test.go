package main

import (
	"strings"
	"testing"
)

// TestBrowserSetting serves the browser tools only when HANDS_BROWSER names
// a browser, offers script steps only with HANDS_BROWSER_SCRIPT, and
// refuses a value that names none; printing the schemas starts no browser.
func TestBrowserSetting(t *testing.T) {
	inTempDir(t)
	out, _, err := runCmd(t, "schema")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, `"browse"`) {
		t.Errorf("without HANDS_BROWSER, schema lists the browser tools")
	}
	t.Setenv("HANDS_BROWSER", "ws://127.0.0.1:9/devtools/browser/x")
	out, _, err = runCmd(t, "schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"browse"`, `"screenshot"`, `"browser_execute"`} {
		if !strings.Contains(out, name) {
			t.Errorf("with HANDS_BROWSER, schema does not list %s", name)
		}
	}
	if strings.Contains(out, `|script"`) {
		t.Errorf("without HANDS_BROWSER_SCRIPT, browser_execute offers script steps")
	}
	t.Setenv("HANDS_BROWSER_SCRIPT", "true")
	if out, _, _ = runCmd(t, "schema", "browser_execute"); !strings.Contains(out, `"script"`) {
		t.Errorf("with HANDS_BROWSER_SCRIPT, browser_execute offers no script steps:\n%s", out)
	}
	t.Setenv("HANDS_BROWSER", "firefox")
	if _, _, err := runCmd(t, "schema"); err == nil || !strings.Contains(err.Error(), "HANDS_BROWSER") {
		t.Errorf("HANDS_BROWSER=firefox: %v, want an error naming the setting", err)
	}
}
