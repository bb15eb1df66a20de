// Package browsertest starts a headless Chromium for tests that drive a web
// page with chromedp.
package browsertest
