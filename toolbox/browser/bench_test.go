package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/hands-go/hands/toolbox/netguard"
)

// benchPage serves one small page with a script.
func benchPage(b *testing.B) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><title>t</title></head><body><h1>Bench</h1><p id="p">x</p><script>document.getElementById("p").textContent = "rendered"</script></body></html>`)
	}))
	b.Cleanup(s.Close)
	return s
}

// benchBrowser returns a started Browser allowed to reach s.
func benchBrowser(b *testing.B, s *httptest.Server) *Browser {
	g, err := netguard.New(netguard.Options{Allow: []string{strings.TrimPrefix(s.URL, "http://")}})
	if err != nil {
		b.Fatal(err)
	}
	br, err := New(&Options{ExecPath: chromiumB(b), Guard: g})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { br.Close() })
	return br
}

func chromiumB(b *testing.B) string {
	p := FindChromium()
	if p == "" {
		b.Skip("no Chromium")
	}
	return p
}

// BenchmarkBrowse is one browse call: a browser context of its own, a
// page, the load through the guarded proxy, the read and the conversion.
func BenchmarkBrowse(b *testing.B) {
	s := benchPage(b)
	tl := benchBrowser(b, s).Browse()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tl.Call(context.Background(), BrowseArgs{URL: s.URL}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScreenshot is one screenshot call of the viewport.
func BenchmarkScreenshot(b *testing.B) {
	s := benchPage(b)
	tl := benchBrowser(b, s).Screenshot()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tl.Call(context.Background(), ScreenshotArgs{URL: s.URL}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDirect is the baseline: chromedp alone, a new tab in a new
// browser context of one browser, navigate, read the HTML (or take a
// screenshot), close — no proxy, no guard, no conversion.
func BenchmarkDirect(b *testing.B) {
	s := benchPage(b)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumB(b)), chromedp.DisableGPU)...)
	defer cancelA()
	root, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(root); err != nil {
		b.Fatal(err)
	}
	for _, shot := range []bool{false, true} {
		name := "html"
		if shot {
			name = "screenshot"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
				var err error
				if shot {
					err = chromedp.Do(ctx, chromedp.Navigate(s.URL), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
						_, err := chromedp.CaptureScreenshot()(ctx, t)
						return err
					}))
				} else {
					err = chromedp.Do(ctx, chromedp.Navigate(s.URL), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
						_, err := chromedp.OuterHTML(chromedp.CSS("html"))(ctx, t)
						return err
					}))
				}
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
