package search

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
)

// Defaults and limits of Options.
const (
	// DefaultMaxResults is how many results a call returns unless the
	// model asks for fewer.
	DefaultMaxResults = 5
	// MaxResultsLimit is the most results a call may return, whatever the
	// options say.
	MaxResultsLimit = 20
	// DefaultMaxSnippetBytes is the longest snippet, in bytes.
	DefaultMaxSnippetBytes = 400
	// MaxTitleBytes is the longest title, in bytes.
	MaxTitleBytes = 200
	// MaxURLBytes is the longest URL a result may have; a longer one is
	// left out.
	MaxURLBytes = 2048
	// DefaultMaxBodyBytes is the largest response body read: 1 MiB.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultTimeout bounds one call.
	DefaultTimeout = 15 * time.Second
	// maxRedirects is how many redirects a request follows.
	maxRedirects = 3
)

// Options configure the tool made by WebSearch. The zero value selects
// every default.
type Options struct {
	// Name is the tool's name. If empty, "web_search".
	Name string
	// MaxResults is the most results a call returns. If zero or less,
	// DefaultMaxResults; at most MaxResultsLimit.
	MaxResults int
	// MaxSnippetBytes is the longest snippet, in bytes; a longer one is
	// cut at a character boundary and ends with "…". If zero or less,
	// DefaultMaxSnippetBytes.
	MaxSnippetBytes int
	// MaxBodyBytes is the largest response the tool reads. If zero or
	// less, DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Timeout bounds each call: at the deadline the call ends with a
	// *tool.TimeoutError, whatever the backend does. If zero or less,
	// DefaultTimeout.
	Timeout time.Duration
	// Guard is the address guard the requests dial through. The backend's
	// endpoint is trusted (netguard.Guard.Trust), so that an operator's
	// own SearXNG on a private address works; a redirect elsewhere is
	// guarded. If nil, the public internet and the endpoint only.
	Guard *netguard.Guard
	// Transport, if not nil, is cloned for the requests and given the
	// guard's dialer.
	Transport *http.Transport
}

// Args is the input of web_search.
type Args struct {
	// Query is what to search for.
	Query string `json:"query" jsonschema:"what to search the web for, as a person would type it" tool:"minLength=1,maxLength=400"`
	// Count is how many results to return.
	Count int `json:"count,omitempty" jsonschema:"how many results to return; the tool's limit applies" tool:"minimum=1,maximum=20"`
}

// Validate refuses a query of white space only.
func (a *Args) Validate() error {
	if strings.TrimSpace(a.Query) == "" {
		return errors.New("query is blank; write what to search for")
	}
	return nil
}

// A Result is one search hit.
type Result struct {
	// Title is the page's title, without markup, at most MaxTitleBytes.
	Title string `json:"title"`
	// URL is the page's address, http or https.
	URL string `json:"url"`
	// Snippet is what the backend says of the page, without markup, at
	// most Options.MaxSnippetBytes.
	Snippet string `json:"snippet,omitempty"`
}

// Results are a search's hits, best first.
type Results struct {
	// Query is the query searched for.
	Query string `json:"query"`
	// Backend names the backend that answered, such as "brave".
	Backend string `json:"backend"`
	// Results are the hits, best first.
	Results []Result `json:"results"`
}

// ModelText renders the results for a model: a numbered list, each hit's
// title, then its URL and snippet on lines of their own. Its length is at
// most a fixed overhead plus, per result, the title, URL and snippet
// limits and a few bytes of layout.
func (r *Results) ModelText() string {
	if len(r.Results) == 0 {
		return fmt.Sprintf("No results for %q.", r.Query)
	}
	var b strings.Builder
	for i, h := range r.Results {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, h.Title, h.URL)
		if h.Snippet != "" {
			b.WriteString("   " + h.Snippet + "\n")
		}
	}
	return b.String()
}

// WebSearch returns the web_search tool: it sends the model's query to
// backend and returns the ranked hits — title, URL and snippet — as
// structured output, and as a compact numbered list for the model to
// read. opts may be nil.
//
// # Limits
//
// A call returns at most Options.MaxResults hits, each snippet at most
// Options.MaxSnippetBytes and each title MaxTitleBytes, so what the model
// reads is bounded whatever the backend sends; the backend's response is
// read up to Options.MaxBodyBytes (ErrSearchTooLarge past it), and the
// call ends at Options.Timeout. A refused key (ErrSearchKey), a rate
// limit (ErrSearchRateLimited, with the Retry-After the backend sent), a
// failing backend (ErrSearchBackend) and a malformed answer
// (ErrSearchResponse) are *BackendError values whose text tells the model
// what happened and never shows the key.
func WebSearch(backend *Backend, opts *Options) *tool.Tool[Args, *Results] {
	if backend == nil {
		panic("search.WebSearch: nil backend")
	}
	if opts == nil {
		opts = &Options{}
	}
	s := &searcher{
		backend:    backend,
		maxResults: opts.MaxResults,
		maxSnippet: opts.MaxSnippetBytes,
		maxBody:    opts.MaxBodyBytes,
	}
	if s.maxResults <= 0 {
		s.maxResults = DefaultMaxResults
	}
	s.maxResults = min(s.maxResults, MaxResultsLimit)
	if s.maxSnippet <= 0 {
		s.maxSnippet = DefaultMaxSnippetBytes
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	guard, err := opts.Guard.Trust(netguard.Endpoint(backend.endpoint))
	if err != nil {
		panic("search.WebSearch: " + err.Error()) // Open checked the endpoint
	}
	s.client = &http.Client{
		Transport: guard.Transport(opts.Transport),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return nil
		},
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return tool.New(cmp.Or(opts.Name, "web_search"),
		fmt.Sprintf("Search the web and return the best results, each with its title, URL and a snippet (at most %d results). "+
			"Use it to find pages; fetch a page to read it whole.", s.maxResults),
		s.search, tool.WithTimeout(timeout), tool.WithTitle("Search the web"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}))
}

// A searcher is the state of a web_search tool.
type searcher struct {
	backend    *Backend
	client     *http.Client
	maxResults int
	maxSnippet int
	maxBody    int64
}

// search is the handler of web_search.
func (s *searcher) search(ctx context.Context, a Args) (*Results, error) {
	n := s.maxResults
	if a.Count > 0 {
		n = min(a.Count, n)
	}
	req, err := s.request(ctx, a.Query, n)
	if err != nil {
		return nil, s.fail(0, ErrSearchBackend, "build the request: "+err.Error())
	}
	tool.Progress(ctx, "searching "+s.backend.name)
	resp, err := s.client.Do(req)
	if err != nil {
		if berr, ok := errors.AsType[*netguard.BlockedError](err); ok {
			return nil, s.fail(0, ErrSearchBackend, berr.Error())
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		detail := err.Error()
		if uerr, ok := errors.AsType[*url.Error](err); ok {
			detail = uerr.Err.Error() // not the URL, which may hold the query
		}
		return nil, s.fail(0, ErrSearchBackend, "the request failed: "+detail)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, s.fail(resp.StatusCode, ErrSearchBackend, "reading the response failed: "+err.Error())
	}
	if int64(len(body)) > s.maxBody {
		return nil, s.fail(resp.StatusCode, ErrSearchTooLarge, fmt.Sprintf("the response is over the limit of %d bytes", s.maxBody))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, s.statusError(resp, body)
	}
	hits, err := s.parse(body)
	if err != nil {
		return nil, s.fail(resp.StatusCode, ErrSearchResponse, "the response is not the API's JSON: "+err.Error())
	}
	out := &Results{Query: a.Query, Backend: s.backend.name, Results: make([]Result, 0, min(len(hits), n))}
	for _, h := range hits {
		if len(out.Results) == n {
			break
		}
		if r, ok := s.clean(h); ok {
			out.Results = append(out.Results, r)
		}
	}
	return out, nil
}

// request builds the backend's request for query and n results.
func (s *searcher) request(ctx context.Context, query string, n int) (*http.Request, error) {
	u := *s.backend.endpoint
	switch s.backend.name {
	case Brave:
		q := u.Query()
		q.Set("q", query)
		q.Set("count", strconv.Itoa(n))
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-Subscription-Token", s.backend.key)
		return req, nil
	case Tavily:
		body, err := json.Marshal(struct {
			Query       string `json:"query"`
			MaxResults  int    `json:"max_results"`
			SearchDepth string `json:"search_depth"`
			Topic       string `json:"topic"`
		}{query, n, "basic", "general"})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.backend.key)
		return req, nil
	default: // SearXNG
		q := u.Query()
		q.Set("q", query)
		q.Set("format", "json")
		u.RawQuery = q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if s.backend.key != "" {
			req.Header.Set("Authorization", "Bearer "+s.backend.key)
		}
		return req, nil
	}
}

// A hit is one result as a backend sends it.
type hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"-"`
}

// parse decodes a backend's response into its hits, best first.
func (s *searcher) parse(body []byte) ([]hit, error) {
	type item struct {
		Title       string `json:"title"`
		URL         string `json:"url"`
		Description string `json:"description"` // Brave
		Content     string `json:"content"`     // Tavily, SearXNG
	}
	var items []item
	switch s.backend.name {
	case Brave:
		var r struct {
			Web *struct {
				Results []item `json:"results"`
			} `json:"web"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		if r.Web == nil && r.Type != "search" {
			return nil, errors.New(`neither "web" nor "type": "search"`)
		}
		if r.Web != nil {
			items = r.Web.Results
		}
	default: // Tavily and SearXNG
		var r struct {
			Results *[]item `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		if r.Results == nil {
			return nil, errors.New(`no "results"`)
		}
		items = *r.Results
	}
	hits := make([]hit, len(items))
	for i, it := range items {
		hits[i] = hit{Title: it.Title, URL: it.URL, Snippet: cmp.Or(it.Description, it.Content)}
	}
	return hits, nil
}

// clean bounds a hit for the model: its markup and entities removed, its
// title and snippet cut to their limits. A hit whose URL is not http or
// https, or is too long, is dropped.
func (s *searcher) clean(h hit) (Result, bool) {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(h.URL) > MaxURLBytes {
		return Result{}, false
	}
	title := cut(plain(h.Title), MaxTitleBytes)
	if title == "" {
		title = u.Host
	}
	return Result{Title: title, URL: h.URL, Snippet: cut(plain(h.Snippet), s.maxSnippet)}, true
}

// plain returns s without tags, with entities decoded and runs of white
// space made one space: the <strong> of Brave's snippets, the &amp; of
// others'.
func plain(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	text := html.UnescapeString(b.String())
	text = strings.Join(strings.Fields(text), " ")
	// A tag between a word and its punctuation left a space.
	for _, p := range []string{",", ".", ";", ":", "!", "?", ")"} {
		text = strings.ReplaceAll(text, " "+p, p)
	}
	return strings.ToValidUTF8(text, "\uFFFD")
}

// cut returns s cut to at most limit bytes at a character boundary, ending
// with "…" when cut.
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	n := max(limit-len(ellipsis), 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + ellipsis
}

// statusError turns a response other than 200 into a *BackendError.
func (s *searcher) statusError(resp *http.Response, body []byte) error {
	detail := s.message(body)
	if detail == "" {
		detail = http.StatusText(resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		if s.backend.name == SearXNG {
			// An instance without json in search.formats answers 403.
			return s.fail(resp.StatusCode, ErrSearchBackend, detail+"; the SearXNG instance refused the request: its settings.yml must list json in search.formats")
		}
		return s.fail(resp.StatusCode, ErrSearchKey, detail)
	case resp.StatusCode == http.StatusTooManyRequests:
		err := s.fail(resp.StatusCode, ErrSearchRateLimited, detail)
		err.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return err
	}
	return s.fail(resp.StatusCode, ErrSearchBackend, detail)
}

// message returns the error message of a backend's JSON error body, at
// most 200 bytes, without the key: Brave's {"error":{"detail":…}},
// Tavily's {"detail":{"error":…}}, or plain text.
func (s *searcher) message(body []byte) string {
	var e struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	var msg string
	if json.Unmarshal(body, &e) == nil {
		for _, raw := range []json.RawMessage{e.Error, e.Detail} {
			var text string
			var obj struct {
				Detail string `json:"detail"`
				Error  string `json:"error"`
			}
			switch {
			case json.Unmarshal(raw, &text) == nil && text != "":
				msg = text
			case json.Unmarshal(raw, &obj) == nil && cmp.Or(obj.Detail, obj.Error) != "":
				msg = cmp.Or(obj.Detail, obj.Error)
			}
			if msg != "" {
				break
			}
		}
	} else if utf8.Valid(body) && !bytes.ContainsAny(body, "<") {
		msg = string(body)
	}
	return cut(s.redact(strings.Join(strings.Fields(msg), " ")), 200)
}

// redact removes the key from s.
func (s *searcher) redact(text string) string { return redact.Secrets(text, s.backend.key) }

// fail returns a *BackendError for the backend.
func (s *searcher) fail(status int, kind error, detail string) *BackendError {
	e := &BackendError{Backend: s.backend.name, Status: status, Detail: s.redact(detail), Err: kind}
	if errors.Is(kind, ErrSearchKey) {
		e.Setting = s.backend.keyEnv
	}
	return e
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}
