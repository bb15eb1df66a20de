package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/hands-go/hands/internal/htmlmd"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/internal/weburl"
)

// minOutputBytes is the smallest output limit: room for the note that
// says what was cut.
const minOutputBytes = 1 << 10

// BrowseArgs is the input of browse.
type BrowseArgs struct {
	// URL is the page to load.
	URL string `json:"url" jsonschema:"the page to load: an absolute http or https URL" tool:"format=uri,maxLength=2048"`
	// WaitFor is a CSS selector to wait for before the page is read.
	WaitFor string `json:"waitFor,omitempty" jsonschema:"a CSS selector to wait for before the page is read, for pages that render their content late" tool:"maxLength=512"`
}

// Validate checks that the URL is http or https and names a host.
func (a *BrowseArgs) Validate() error { return checkURL("/url", a.URL) }

// checkURL reports an issue at path if u is not an absolute http or https
// URL with a host.
func checkURL(path, raw string) error { return weburl.Check(path, raw) }

// A Page is what browse returns: the page as the browser rendered it.
type Page struct {
	// URL is the page's address after redirects.
	URL string `json:"url" jsonschema:"the page's URL after redirects"`
	// Title is the page's title.
	Title string `json:"title" jsonschema:"the page's title"`
	// Markdown is the rendered page as Markdown.
	Markdown string `json:"markdown" jsonschema:"the rendered page as Markdown"`
	// Notes say what the page tried and was refused, and whether it was
	// read before it finished loading.
	Notes []string `json:"notes,omitempty" jsonschema:"what the page tried and was refused (private addresses, dialogs, downloads), and whether it was read before it finished loading"`
}

// ModelText is the page as the model reads it: its title and URL, the
// notes, then the Markdown.
func (p *Page) ModelText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\nURL: %s\n", cmpOr(p.Title, "(untitled)"), p.URL)
	for _, n := range p.Notes {
		b.WriteString("Note: " + n + "\n")
	}
	b.WriteString("\n")
	b.WriteString(p.Markdown)
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Browse returns the browse tool: it loads a page in the browser, runs its
// JavaScript, and returns the rendered page as Markdown, with its final
// URL and title (structured output, and text for the model).
//
// The page is read once it has loaded, or, for a page that never finishes
// loading, at half the call's timeout, with a note saying so. What it
// returns is at most Options.MaxOutputBytes long. See the package
// documentation for what a page may and may not reach.
func (b *Browser) Browse() *tool.Tool[BrowseArgs, *Page] {
	return tool.New("browse",
		"Load a web page (http or https) in a browser that runs its JavaScript, and return the rendered page as Markdown, with its final URL and title. "+
			"Use it for pages that build their content with JavaScript; fetch_markdown is cheaper for static pages.",
		func(ctx context.Context, a BrowseArgs) (*Page, error) {
			var p *Page
			err := b.withTab(ctx, func(t *tab) error {
				if err := b.load(t, a.URL, a.WaitFor); err != nil {
					return err
				}
				var err error
				p, err = b.read(t)
				return err
			})
			if err != nil {
				return nil, err
			}
			return p, nil
		},
		tool.WithTimeout(b.opts.Timeout), tool.WithTitle("Browse a web page"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}))
}

// load navigates the tab to rawURL and waits for it to load (at most half
// the time left), then for the selector waitFor, if any.
func (b *Browser) load(t *tab, rawURL, waitFor string) error {
	tool.Progress(t.ctx, "loading "+rawURL)
	wait := b.opts.Timeout / 2
	if dl, ok := t.ctx.Deadline(); ok {
		wait = time.Until(dl) / 2
	}
	nctx, cancel := context.WithTimeout(t.ctx, wait)
	err := chromedp.Do(nctx, chromedp.Navigate(rawURL))
	cancel()
	switch {
	case err == nil:
	case t.ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		// The page has not finished loading: read what there is.
		chromedp.Do(t.ctx, chromedp.Stop())
		t.note(fmt.Sprintf("the page had not finished loading after %s; it was read as it was", wait.Round(time.Second)))
	default:
		if t.ctx.Err() != nil {
			return t.fail("", err)
		}
		if le, ok := errors.AsType[*chromedp.LoadError](err); ok {
			if r, ok := refusedPage(t, rawURL); ok {
				return &opError{op: "load " + rawURL, err: r.err}
			}
			return &opError{op: "load " + rawURL, err: fmt.Errorf("%w: %s", ErrLoad, le.ErrorText)}
		}
		return errOf("load "+rawURL, err)
	}
	// A page whose own address the guard refused shows the proxy's
	// refusal: that is the answer, not the page.
	if loc, err := chromedp.Run(t.ctx, chromedp.Location()); err == nil {
		if r, ok := refusedPage(t, loc); ok {
			return &opError{op: "load " + rawURL, err: r.err}
		}
	}
	if waitFor != "" {
		tool.Progress(t.ctx, "waiting for "+waitFor)
		if err := chromedp.Do(t.ctx, chromedp.WaitReady(chromedp.CSS(waitFor))); err != nil {
			return t.fail("wait for "+waitFor, err)
		}
	}
	return nil
}

// refusedPage returns the guard's refusal of the page at rawURL, if the
// guard refused it.
func refusedPage(t *tab, rawURL string) (refusal, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return refusal{}, false
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	for _, r := range t.refusals() {
		if r.target == host || r.target == u.Host {
			return r, true
		}
	}
	return refusal{}, false
}

// readScript returns the page's URL, title and rendered HTML, cut at the
// given length.
const readScript = `(() => {
	const h = document.documentElement ? document.documentElement.outerHTML : "";
	return {url: location.href, title: document.title, html: h.length > %d ? h.slice(0, %[1]d) : h, cut: h.length > %[1]d};
})()`

// read returns the tab's page as Markdown.
func (b *Browser) read(t *tab) (*Page, error) {
	var r struct {
		URL   string `json:"url"`
		Title string `json:"title"`
		HTML  string `json:"html"`
		Cut   bool   `json:"cut"`
	}
	var err error
	r.URL, r.Title, r.HTML, r.Cut, err = func() (string, string, string, bool, error) {
		v, err := chromedp.Run(t.ctx, chromedp.Evaluate[struct {
			URL   string `json:"url"`
			Title string `json:"title"`
			HTML  string `json:"html"`
			Cut   bool   `json:"cut"`
		}](fmt.Sprintf(readScript, DefaultMaxHTMLBytes)))
		return v.URL, v.Title, v.HTML, v.Cut, err
	}()
	if err != nil {
		return nil, t.fail("read the page", err)
	}
	tool.Progress(t.ctx, fmt.Sprintf("converting %d bytes of HTML", len(r.HTML)))
	md, cut, err := htmlmd.Convert(t.ctx, []byte(r.HTML), r.URL)
	if err != nil {
		return nil, t.fail("convert the page to Markdown", err)
	}
	if cut {
		md = fmt.Appendf(md, "\n\n[truncated: the page has more than %d HTML elements and text nodes, and only the first %[1]d were converted]", htmlmd.MaxNodes)
	}
	p := &Page{URL: r.URL, Title: r.Title, Notes: t.takeNotes()}
	if r.Cut {
		p.Notes = append(p.Notes, fmt.Sprintf("the rendered HTML is over %d bytes; only its start was converted", DefaultMaxHTMLBytes))
	}
	text := string(md)
	if strings.TrimSpace(text) == "" {
		text = "(the page has no text content)"
	}
	p.Markdown = truncate(text, b.opts.MaxOutputBytes-len(p.URL)-len(p.Title)-notesLen(p.Notes))
	return p, nil
}

func notesLen(notes []string) int {
	n := 0
	for _, s := range notes {
		n += len(s) + 8
	}
	return n
}

// truncate returns s cut to at most limit bytes, at a character boundary,
// with a note at the end, within the limit, that says how many bytes were
// left out.
func truncate(s string, limit int) string {
	limit = max(limit, minOutputBytes/2)
	if len(s) <= limit {
		return s
	}
	note := func(left int) string {
		return fmt.Sprintf("\n\n[truncated: %d more bytes; the tool returns at most %d bytes]", left, limit)
	}
	cut := max(limit-len(note(len(s))), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(len(s)-cut)
}

// ScreenshotArgs is the input of screenshot.
type ScreenshotArgs struct {
	// URL is the page to capture.
	URL string `json:"url" jsonschema:"the page to capture: an absolute http or https URL" tool:"format=uri,maxLength=2048"`
	// FullPage captures the whole page rather than the viewport.
	FullPage bool `json:"fullPage,omitempty" jsonschema:"capture the whole page, not only the viewport (at most 8192 pixels tall)"`
	// Width and Height are the viewport, in CSS pixels.
	Width  int `json:"width,omitempty" jsonschema:"the viewport's width in CSS pixels" tool:"minimum=320,maximum=1920"`
	Height int `json:"height,omitempty" jsonschema:"the viewport's height in CSS pixels" tool:"minimum=240,maximum=1920"`
	// WaitFor is a CSS selector to wait for before the capture.
	WaitFor string `json:"waitFor,omitempty" jsonschema:"a CSS selector to wait for before the capture" tool:"maxLength=512"`
}

// Validate checks that the URL is http or https and names a host.
func (a *ScreenshotArgs) Validate() error { return checkURL("/url", a.URL) }

// Screenshot returns the screenshot tool: it loads a page and returns a
// PNG of its viewport, or of the whole page (at most MaxScreenshotHeight
// CSS pixels tall), as an image part. With Options.Host, the image is
// also hosted, and its URL returned as text and as a link part. An image
// over Options.MaxImageBytes as a PNG is sent as a JPEG; one over it even
// so is refused with ErrBrowserTooLarge.
func (b *Browser) Screenshot() *tool.Tool[ScreenshotArgs, []tool.Part] {
	desc := "Load a web page (http or https) in a browser and return a screenshot of it: the viewport, or the whole page with fullPage."
	if b.opts.Host != nil {
		desc += " The image is also hosted, and its public URL returned."
	}
	return tool.New("screenshot", desc,
		func(ctx context.Context, a ScreenshotArgs) ([]tool.Part, error) {
			var parts []tool.Part
			err := b.withTab(ctx, func(t *tab) error {
				w, h := cmpInt(a.Width, b.opts.Width), cmpInt(a.Height, b.opts.Height)
				if err := chromedp.Do(t.ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
					return t.fail("set the viewport", err)
				}
				if err := b.load(t, a.URL, a.WaitFor); err != nil {
					return err
				}
				img, mime, err := b.capture(t, a.FullPage)
				if err != nil {
					return err
				}
				info, err := chromedp.Run(t.ctx, chromedp.Evaluate[[2]string](`[location.href, document.title]`))
				if err != nil {
					return t.fail("read the page", err)
				}
				text := fmt.Sprintf("Screenshot of %s (%s), %d×%d viewport", info[0], cmpOr(info[1], "untitled"), w, h)
				if a.FullPage {
					text += ", whole page"
				}
				var link string
				if b.opts.Host != nil {
					sum := sha256.Sum256(img)
					key := "screenshots/" + hex.EncodeToString(sum[:12]) + extOf(mime)
					if link, err = b.opts.Host(t.ctx, key, img, mime); err != nil {
						return &opError{op: "host the screenshot", err: err}
					}
					text += "; hosted at " + link
				}
				for _, n := range t.takeNotes() {
					text += "\nNote: " + n
				}
				parts = []tool.Part{tool.Text(truncate(text, b.opts.MaxOutputBytes)), tool.Image(mime, img)}
				if link != "" {
					parts = append(parts, tool.Link(link, "screenshot", mime))
				}
				return nil
			})
			return parts, err
		},
		tool.WithTimeout(b.opts.Timeout), tool.WithTitle("Screenshot a web page"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: b.opts.Host == nil, OpenWorld: true}))
}

func cmpInt(a, def int) int {
	if a <= 0 {
		return def
	}
	return a
}

func extOf(mime string) string {
	if mime == "image/jpeg" {
		return ".jpg"
	}
	return ".png"
}

// capture takes a screenshot of the tab: a PNG, or a JPEG when the PNG is
// over the size limit.
func (b *Browser) capture(t *tab, full bool) ([]byte, string, error) {
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, FromSurface: new(true)}
	if full {
		m, err := chromedp.Run(t.ctx, func(ctx context.Context, tg *chromedp.Target) (*page.GetLayoutMetricsResult, error) {
			r, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
			return &r, err
		})
		if err != nil {
			return nil, "", t.fail("measure the page", err)
		}
		w, h := float64(b.opts.Width), float64(b.opts.Height)
		if m.CSSContentSize != nil {
			w, h = math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
		}
		if m.CSSLayoutViewport != nil {
			w = float64(m.CSSLayoutViewport.ClientWidth)
		}
		h = min(h, MaxScreenshotHeight)
		params.CaptureBeyondViewport = new(true)
		params.Clip = &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}
	}
	shoot := func(p page.CaptureScreenshotParams) ([]byte, error) {
		return chromedp.Run(t.ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, p)
			return r.Data, err
		})
	}
	img, err := shoot(params)
	if err != nil {
		return nil, "", t.fail("capture the page", err)
	}
	if len(img) <= b.opts.MaxImageBytes {
		return img, "image/png", nil
	}
	params.Format, params.Quality = page.CaptureScreenshotFormatJpeg, new(int64(70))
	if img, err = shoot(params); err != nil {
		return nil, "", t.fail("capture the page", err)
	}
	if len(img) > b.opts.MaxImageBytes {
		return nil, "", fmt.Errorf("%w: the screenshot is %d bytes even as a JPEG, and the limit is %d; capture the viewport, or a smaller one", ErrBrowserTooLarge, len(img), b.opts.MaxImageBytes)
	}
	return img, "image/jpeg", nil
}
