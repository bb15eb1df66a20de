package image

import (
	"strings"
	"testing"
)

// TestOpenWithoutDriver names the package to import when a program did not
// link the backend a URL names, and tells an unknown scheme apart.
func TestOpenWithoutDriver(t *testing.T) {
	driversMu.Lock()
	saved := drivers[Gemini]
	delete(drivers, Gemini)
	driversMu.Unlock()
	t.Cleanup(func() {
		driversMu.Lock()
		if saved.driver != nil {
			drivers[Gemini] = saved
		}
		driversMu.Unlock()
	})
	_, err := Open("gemini://gemini-2.5-flash-image", func(string) string { return "k" })
	if err == nil || !strings.Contains(err.Error(), "toolbox/image/geminiimage") {
		t.Errorf("Open without the Gemini driver = %v, want an error naming its package", err)
	}
	_, err = Open("dalle://x", func(string) string { return "k" })
	if err == nil || !strings.Contains(err.Error(), "no backend for the scheme") {
		t.Errorf("Open of an unknown scheme = %v", err)
	}
}
