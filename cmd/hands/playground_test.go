package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hands-go/hands/internal/browsertest"
)

var screenshot = flag.String("screenshot", "", "write a picture of the playground to `FILE` (go test ./cmd/hands -run TestPlayground -screenshot ../../docs/playground.png)")

// TestPlayground opens the page that hands serve --http serves at / in
// headless Chromium, sends host_file a key it refuses, and checks that the
// issue is shown at the key's field. With -screenshot it writes a picture
// of the page, which the README shows.
func TestPlayground(t *testing.T) {
	picture := ""
	if *screenshot != "" {
		var err error
		if picture, err = filepath.Abs(*screenshot); err != nil {
			t.Fatal(err)
		}
	}
	inTempDir(t)
	t.Setenv("HANDS_BUCKET", "mem://")
	t.Setenv("HANDS_PUBLIC_URL", "https://files.example.com")
	browser := browsertest.New(t, 1280, 1000)
	line, stopServe := startServe(t, "--http", "127.0.0.1:0")
	m := regexp.MustCompile(`the playground at (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("startup line %q does not say where the playground is", line)
	}

	browser, stop := context.WithTimeout(browser, time.Minute)
	defer stop()
	key := `//*[@id=(//label[text()="key"]/@for)]`
	content := `//*[@id=(//label[text()="content"]/@for)]`
	if err := chromedp.Do(browser,
		chromedp.Navigate(m[1]+"#host_file"),
		chromedp.WaitVisible(key),
		chromedp.SendKeys(key, "../notes.md"),
		chromedp.SendKeys(content, "# Notes\n\nWritten from the playground."),
		chromedp.SetValue(chromedp.ID("dialect"), "openai-strict"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("dialect").dispatchEvent(new Event("change"))`),
		chromedp.Click(chromedp.ID("call")),
		chromedp.WaitVisible(chromedp.CSS("#result .result.error")),
	); err != nil {
		t.Fatal(err)
	}
	issues, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(".field:has(> ul.issues li) > ul.issues")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(issues, "..") {
		t.Errorf("the issue shown at a field is %q, want the refusal of the key", issues)
	}
	if picture != "" {
		png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(picture, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stopServe()
}
