package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// names are the executables looked for on PATH, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// Path returns the Chromium executable: $HANDS_CHROMIUM when set, or the
// first of the usual names found on PATH. It returns "" when there is none.
func Path() string {
	if p := os.Getenv("HANDS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts a headless Chromium for t, with a window of the given size
// and any extra options, and returns the context of a tab in it, which
// ends with the test. Without Chromium the test is skipped,
// except in CI (CI=true), where it fails: CI installs Chromium (.ci/run).
//
// When the test fails, a screenshot of the tab is written to the test's
// artifact directory (t.ArtifactDir; go test -artifacts keeps it) and its
// path logged.
func New(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium found (set HANDS_CHROMIUM, or install the chromium package); CI requires it")
		}
		t.Skip("no Chromium found: install it (apt-get install chromium) or set HANDS_CHROMIUM to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
				file := filepath.Join(t.ArtifactDir(), "screenshot.png")
				if err := os.WriteFile(file, png, 0o644); err == nil {
					t.Logf("screenshot of the page: %s", file)
				}
			}
		}
		cancel()
		cancelAlloc()
	})
	return ctx
}
