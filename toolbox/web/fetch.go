package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/htmlmd"
	"github.com/hands-go/hands/internal/mediatype"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox"
	"github.com/hands-go/hands/toolbox/internal/weburl"
	"github.com/hands-go/hands/toolbox/netguard"
	"golang.org/x/net/html/charset"
)

// Defaults of FetchOptions.
const (
	// DefaultFetchMaxBytes is the default size limit of a fetched body: 2 MiB.
	DefaultFetchMaxBytes = 2 << 20
	// DefaultFetchMaxOutputBytes is the default size limit of what the tool
	// returns: 256 KiB.
	DefaultFetchMaxOutputBytes = 256 << 10
	// DefaultFetchTimeout is the default time limit of one call: the fetch,
	// redirects and reading the body included, and the conversion to
	// Markdown.
	DefaultFetchTimeout = 20 * time.Second
	// MaxRedirects is how many redirects fetch_markdown follows.
	MaxRedirects = 5
)

// FetchOptions configure the tool made by FetchMarkdown. The zero value
// selects every default, and the address guard.
type FetchOptions struct {
	// Name is the tool's name. If empty, it is "fetch_markdown".
	Name string
	// Client sends the requests. If nil, a client built on
	// http.DefaultTransport's settings is used. Its Transport must be nil or
	// an *http.Transport, which is cloned and given the guarded dialer (and
	// no proxy, since a proxy would dial the page on the guard's behalf);
	// any other RoundTripper is used as it is, and only with AllowPrivate.
	// The client's own CheckRedirect, if any, runs after the tool's checks;
	// its Timeout is replaced by the tool's.
	Client *http.Client
	// MaxBytes is the largest body, in bytes, the tool reads. If zero or
	// less, DefaultFetchMaxBytes.
	MaxBytes int64
	// MaxOutputBytes is the most the tool returns, in bytes. Longer
	// Markdown or text is cut at a character boundary and ends with a note,
	// within the limit, that says how many bytes were left out. If zero or
	// less, DefaultFetchMaxOutputBytes; a limit under 1 KiB is raised to 1
	// KiB, room for the note.
	MaxOutputBytes int
	// Timeout bounds each call, the conversion to Markdown included: at the
	// deadline the call ends with a *tool.TimeoutError, whatever it was
	// doing. If zero or less, DefaultFetchTimeout.
	Timeout time.Duration
	// AllowPrivate turns the address guard off, so that loopback, private,
	// link-local (including cloud metadata endpoints) and other non-public
	// addresses can be fetched. Set it only for a trusted network.
	AllowPrivate bool
	// AllowPrivateSetting names, in a refusal the model reads, what an
	// operator sets to allow non-public addresses, such as an environment
	// variable of the program. If empty, "FetchOptions.AllowPrivate".
	AllowPrivateSetting string
	// Allow lists exact endpoints, "host:port", that may be fetched
	// although they are not public addresses, so that one internal service
	// is reachable without turning the guard off (netguard.Options.Allow).
	// FetchMarkdown panics if an entry is not a host and a port; check a
	// list from outside with netguard.ParseList.
	Allow []string
	// UserAgent is sent with each request. If empty, DefaultUserAgent.
	UserAgent string
}

// DefaultUserAgent is the User-Agent that fetch_markdown sends unless
// FetchOptions.UserAgent says otherwise.
const DefaultUserAgent = "hands-fetch_markdown/1.0"

// FetchArgs is the input of fetch_markdown.
type FetchArgs struct {
	// URL is the page to fetch.
	URL string `json:"url" jsonschema:"the page to fetch: an absolute http or https URL" tool:"format=uri,maxLength=2048"`
}

// Validate checks that the URL is http or https and names a host.
func (a *FetchArgs) Validate() error { return weburl.Check("/url", a.URL) }

// FetchMarkdown returns the fetch_markdown tool: it fetches a web page and
// returns it as Markdown. A text response that is not HTML (plain text,
// Markdown, JSON, XML, CSV) is returned as it is; a binary one (an image, a
// PDF, an archive) is refused with toolbox.ErrContentType. opts may be nil.
//
// # Limits
//
// A call may take FetchOptions.Timeout, fetch and conversion together,
// follow MaxRedirects redirects (to http and https URLs only; toolbox.ErrRedirect),
// and read FetchOptions.MaxBytes of body (toolbox.ErrTooLarge). A status other than
// 2xx is an error (toolbox.ErrStatus). What it returns is at most
// FetchOptions.MaxOutputBytes long: a longer page is cut, with a note
// saying so. The conversion's time and memory grow linearly with the page,
// whatever its markup; see the package documentation.
//
// # The address guard
//
// Unless FetchOptions.AllowPrivate is set, the tool connects only to public
// internet addresses and the endpoints FetchOptions.Allow lists. The check runs in the dialer, on the IP address about
// to be dialed — after DNS resolution, and again for every redirect — so a
// name that resolves to a private address and a redirect to one are refused
// like a literal address (netguard.ErrBlocked, as a *netguard.BlockedError). Refused are the
// unspecified, loopback, private (RFC 1918, fc00::/7), link-local
// (169.254.0.0/16 with the cloud metadata address 169.254.169.254,
// fe80::/10), multicast, shared (100.64.0.0/10), reserved, documentation
// and benchmarking ranges, and IPv6 forms of these IPv4 addresses
// (IPv4-mapped, NAT64, 6to4).
//
// FetchMarkdown panics if the guard is on and opts.Client has a Transport
// that is not an *http.Transport.
func FetchMarkdown(opts *FetchOptions) *tool.Tool[FetchArgs, string] {
	if opts == nil {
		opts = &FetchOptions{}
	}
	f := &fetcher{
		client:         newClient(opts),
		maxBytes:       opts.MaxBytes,
		maxOutputBytes: opts.MaxOutputBytes,
		userAgent:      cmp.Or(opts.UserAgent, DefaultUserAgent),
	}
	if f.maxBytes <= 0 {
		f.maxBytes = DefaultFetchMaxBytes
	}
	if f.maxOutputBytes <= 0 {
		f.maxOutputBytes = DefaultFetchMaxOutputBytes
	}
	f.maxOutputBytes = max(f.maxOutputBytes, minOutputBytes)
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	return tool.New(cmp.Or(opts.Name, "fetch_markdown"),
		"Fetch a web page (http or https) and return its content as Markdown. "+
			"Plain text, JSON and other text responses come back as they are; images, PDFs and other binary files are refused.",
		f.fetch, tool.WithTimeout(timeout), tool.WithTitle("Fetch a web page"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}))
}

// minOutputBytes is the smallest output limit: room for the note that
// says what was cut.
const minOutputBytes = 1 << 10

// newClient returns the client the tool sends its requests with.
func newClient(opts *FetchOptions) *http.Client {
	var c http.Client
	if opts.Client != nil {
		c = *opts.Client
	}
	c.Timeout = 0 // the tool's own timeout rules, through the context
	if !opts.AllowPrivate {
		var t *http.Transport
		switch rt := c.Transport.(type) {
		case nil:
		case *http.Transport:
			t = rt
		default:
			panic(fmt.Sprintf("web.FetchMarkdown: Client.Transport is a %T; the address guard needs an *http.Transport or nil (or set AllowPrivate)", rt))
		}
		g, err := netguard.New(netguard.Options{Allow: opts.Allow, Setting: cmp.Or(opts.AllowPrivateSetting, "FetchOptions.AllowPrivate")})
		if err != nil {
			panic("web.FetchMarkdown: FetchOptions.Allow: " + err.Error())
		}
		t = g.Transport(t)
		c.Transport = t
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return fmt.Errorf("%w: stopped after %d redirects", toolbox.ErrRedirect, MaxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("%w: the page redirects to a non-http URL (%s:), and only http and https are fetched", toolbox.ErrRedirect, req.URL.Scheme)
		}
		tool.Progress(req.Context(), "redirected to "+req.URL.Redacted())
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &c
}

// A fetcher is the state of a fetch_markdown tool.
type fetcher struct {
	client         *http.Client
	maxBytes       int64
	maxOutputBytes int
	userAgent      string
}

// fetch is the handler of fetch_markdown. The tool's timeout bounds ctx,
// and the request and the conversion both end when ctx does.
func (f *fetcher) fetch(ctx context.Context, a FetchArgs) (string, error) {
	text, err := f.get(ctx, a.URL)
	if err != nil {
		return "", err
	}
	return truncate(orNote(text), f.maxOutputBytes), nil
}

func (f *fetcher) get(ctx context.Context, rawURL string) (string, error) {
	tool.Progress(ctx, "fetching "+rawURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", &toolbox.OpError{Op: "fetch " + rawURL, Err: err}
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			err = uerr.Err // the URL is said once, below
		}
		if berr, ok := errors.AsType[*netguard.BlockedError](err); ok {
			err = berr // not the dialer's wrapping
		}
		return "", &toolbox.OpError{Op: "fetch " + rawURL, Err: err}
	}
	defer resp.Body.Close()
	final := resp.Request.URL.Redacted()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("%w: the server answered %s", toolbox.ErrStatus, resp.Status)}
	}

	ct := resp.Header.Get("Content-Type")
	media := mediatype.Of(ct)
	kind := mediatype.Classify(media)
	if kind == mediatype.Binary {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("%w: the response is %s, not a web page or text", toolbox.ErrContentType, media)}
	}
	if resp.ContentLength > f.maxBytes {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("%w: the body is %d bytes and the limit is %d; fetch a smaller page", toolbox.ErrTooLarge, resp.ContentLength, f.maxBytes)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("read the body: %w", err)}
	}
	if int64(len(body)) > f.maxBytes {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("%w: the body is over the limit of %d bytes; fetch a smaller page", toolbox.ErrTooLarge, f.maxBytes)}
	}
	if kind == mediatype.Unknown {
		ct = http.DetectContentType(body)
		media = mediatype.Of(ct)
		if kind = mediatype.Classify(media); kind == mediatype.Binary {
			return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("%w: the response looks like %s, not a web page or text", toolbox.ErrContentType, media)}
		}
	}
	body = toUTF8(body, ct)

	if kind == mediatype.Text {
		return string(body), nil
	}
	tool.Progress(ctx, fmt.Sprintf("converting %d bytes of HTML", len(body)))
	md, cut, err := htmlmd.Convert(ctx, body, resp.Request.URL.String())
	if err != nil {
		return "", &toolbox.OpError{Op: "fetch " + final, Err: fmt.Errorf("convert to Markdown: %w", err)}
	}
	if cut {
		md = fmt.Appendf(md, "\n\n[truncated: the page has more than %d HTML elements and text nodes, and only the first %[1]d were converted]", htmlmd.MaxNodes)
	}
	return string(md), nil
}

// truncate returns s cut to at most limit bytes, at a character boundary,
// with a note at the end, within the limit, that says how many bytes were
// left out. limit must leave room for the note.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := func(left int) string {
		return fmt.Sprintf("\n\n[truncated: %d more bytes; the tool returns at most %d bytes of a page]", left, limit)
	}
	cut := limit - len(note(len(s))) // a smaller count is never longer
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(len(s)-cut)
}

// orNote returns s, or a note saying the page has no text.
func orNote(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(the page has no text content)"
	}
	return s
}

// toUTF8 decodes body from the charset its content type or its HTML names,
// and replaces invalid bytes.
func toUTF8(body []byte, contentType string) []byte {
	if enc, name, _ := charset.DetermineEncoding(body, contentType); name != "utf-8" && enc != nil {
		if decoded, err := enc.NewDecoder().Bytes(body); err == nil {
			body = decoded
		}
	}
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return body
}
