package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hands-go/hands/internal/editdist"
	"github.com/hands-go/hands/internal/redact"
	"github.com/hands-go/hands/schema"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolsearch"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds one call: the request, redirects and reading
	// the response. Loading a document on a call's first use counts too.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRequestBytes is the largest request body sent: 1 MiB.
	DefaultMaxRequestBytes = 1 << 20
	// DefaultMaxResponseBytes is the largest response body read: 4 MiB.
	DefaultMaxResponseBytes = 4 << 20
	// DefaultMaxOutputBytes is the most a call returns: 256 KiB.
	DefaultMaxOutputBytes = 256 << 10
	// MaxRedirects is how many redirects, within the base URL, a call
	// follows.
	MaxRedirects = 5
	// maxListed is how many operations describe_service lists at once.
	maxListed = 40
	// maxResponseIssues is how many mismatches with the response schema a
	// result lists.
	maxResponseIssues = 10
)

// Options configure the services' tools. The zero value selects every
// default, and the address guard with nothing allowed beyond the public
// internet and each service's own base URL.
type Options struct {
	// Guard checks every address a service's client dials. Each service
	// trusts its base URL's endpoint on top of it (netguard.Guard.Trust),
	// so that an operator's internal API is reachable while every other
	// private address stays refused. If nil, the public internet only.
	Guard *netguard.Guard
	// Transport is the base of each service's transport, cloned and given
	// the guarded dialer. If nil, http.DefaultTransport's settings.
	Transport *http.Transport
	// LookupEnv reads the environment variables of Config.Headers. If
	// nil, os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Timeout bounds each call. If zero or less, DefaultTimeout.
	Timeout time.Duration
	// MaxRequestBytes is the largest request body sent. If zero or less,
	// DefaultMaxRequestBytes.
	MaxRequestBytes int
	// MaxResponseBytes is the largest response body read; a longer one
	// fails the call (ErrServiceTooLarge). If zero or less,
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxOutputBytes is the most a call returns: a longer body is cut at
	// a character boundary, with a note. If zero or less,
	// DefaultMaxOutputBytes; a limit under 1 KiB is raised to 1 KiB.
	MaxOutputBytes int
}

// Services are the configured services, and the tools that reach them.
// They are safe for concurrent use.
type Services struct {
	list    []*service
	byName  map[string]*service
	timeout time.Duration
	maxReq  int
	maxResp int64
	maxOut  int
}

// New returns the services of configs, reading their credentials from the
// environment. It reads no document: Load does, and so does a tool's
// first call of a service. It fails if a config is invalid, a name is
// used twice, or a credential's environment variable is not set (the
// error names the variable, never a value). opts may be nil.
func New(configs []Config, opts *Options) (*Services, error) {
	if opts == nil {
		opts = &Options{}
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	s := &Services{
		byName:  map[string]*service{},
		timeout: opts.Timeout,
		maxReq:  opts.MaxRequestBytes,
		maxResp: opts.MaxResponseBytes,
		maxOut:  opts.MaxOutputBytes,
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.maxReq <= 0 {
		s.maxReq = DefaultMaxRequestBytes
	}
	if s.maxResp <= 0 {
		s.maxResp = DefaultMaxResponseBytes
	}
	if s.maxOut <= 0 {
		s.maxOut = DefaultMaxOutputBytes
	}
	s.maxOut = max(s.maxOut, 1<<10)
	for _, c := range configs {
		if err := c.check(); err != nil {
			return nil, err
		}
		key := strings.ToLower(c.Name)
		if _, dup := s.byName[key]; dup {
			return nil, fmt.Errorf("service: the name %q is used twice", c.Name)
		}
		base, _ := parseBase(c.BaseURL)
		svc := &service{cfg: c, base: base, headers: http.Header{}}
		for h, env := range c.Headers {
			v, ok := lookup(env)
			if !ok || v == "" {
				return nil, fmt.Errorf("service %s: the environment variable %s, which holds its %s header, is not set", c.Name, env, http.CanonicalHeaderKey(h))
			}
			if !validHeaderValue(v) {
				return nil, fmt.Errorf("service %s: the environment variable %s holds a value that is not one line of header text", c.Name, env)
			}
			svc.headers.Set(h, v)
			if len(v) >= 4 { // a shorter value would take words of the text with it
				svc.secrets = append(svc.secrets, v)
			}
		}
		g, err := opts.Guard.Trust(netguard.Endpoint(base))
		if err != nil {
			return nil, fmt.Errorf("service %s: %w", c.Name, err)
		}
		t := g.Transport(opts.Transport)
		t.MaxResponseHeaderBytes = 64 << 10
		svc.client = &http.Client{Transport: t, CheckRedirect: svc.checkRedirect}
		s.list = append(s.list, svc)
		s.byName[key] = svc
	}
	return s, nil
}

func validHeaderValue(v string) bool {
	return !strings.ContainsAny(v, "\r\n\x00")
}

// checkRedirect follows a redirect only within where the request began:
// under the base URL for a call, on the same origin for a document.
func (s *service) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("%w: stopped after %d redirects", ErrServiceRedirect, MaxRedirects)
	}
	first := via[0].URL
	if !sameOrigin(req.URL, first) {
		return fmt.Errorf("%w: the service redirects to %s, away from %s", ErrServiceRedirect, req.URL.Redacted(), first.Scheme+"://"+first.Host)
	}
	if sameOrigin(first, s.base) && underBase(first.EscapedPath(), s.base.EscapedPath()) && !underBase(req.URL.EscapedPath(), s.base.EscapedPath()) {
		return fmt.Errorf("%w: the service redirects to %s, outside its base URL %s", ErrServiceRedirect, req.URL.Redacted(), s.base.Redacted())
	}
	return nil
}

// Names returns the services' names, in the order configured.
func (s *Services) Names() []string {
	names := make([]string, len(s.list))
	for i, svc := range s.list {
		names[i] = svc.cfg.Name
	}
	return names
}

// Load reads every service's document, each once, and reports each one
// that failed, joined. A service whose document failed is still offered:
// its next call tries again.
func (s *Services) Load(ctx context.Context) error {
	var errs []error
	for _, svc := range s.list {
		if _, err := svc.load(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readOnly reports whether every service is read-only.
func (s *Services) readOnly() bool {
	for _, svc := range s.list {
		if !svc.cfg.ReadOnly {
			return false
		}
	}
	return true
}

// CallArgs is the input of call_service.
type CallArgs struct {
	Service   string `json:"service" jsonschema:"the service, one of those this tool's description names" tool:"minLength=1,maxLength=64"`
	Operation string `json:"operation" jsonschema:"the operation: its ID, or its method and path as in GET /users/{id}, as describe_service lists them" tool:"minLength=1,maxLength=512"`
	Arguments string `json:"arguments,omitempty" jsonschema:"the operation's arguments, a JSON object written as a string: {\"path\":{…},\"query\":{…},\"header\":{…},\"body\":…}, as describe_service gives its schema; omit it, or give {}, for none"`
}

// DescribeArgs is the input of describe_service.
type DescribeArgs struct {
	Service   string `json:"service" jsonschema:"the service, one of those this tool's description names" tool:"minLength=1,maxLength=64"`
	Operation string `json:"operation,omitempty" jsonschema:"an operation to describe in full: its ID, or its method and path; omit it to list the operations" tool:"maxLength=512"`
	Query     string `json:"query,omitempty" jsonschema:"words for what you want to do, to list the operations that fit best first" tool:"maxLength=512"`
}

// Tools returns call_service and describe_service. call_service is
// read-only when every service is (Config.ReadOnly), and otherwise
// destructive: one tool reaches every operation, so a client's approval
// of it is approval of whatever operation its arguments name.
func (s *Services) Tools() []tool.Interface {
	names := strings.Join(s.Names(), ", ")
	call := tool.New("call_service",
		"Call an operation of an HTTP API described by its OpenAPI document, with arguments checked against the operation's schema before anything is sent. "+
			"Find the operation and its arguments' schema with describe_service first. Services: "+names+".",
		s.call, tool.WithTimeout(s.timeout), tool.WithTitle("Call an API operation"),
		tool.WithAnnotations(s.callAnnotations()))
	describe := tool.New("describe_service",
		"List the operations of an HTTP API (best first for a query), or describe one: what it does, whether it only reads, and the JSON Schema of the arguments call_service takes for it. Services: "+names+".",
		s.describe, tool.WithTimeout(s.timeout), tool.WithTitle("Describe an API"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}))
	return []tool.Interface{call, describe}
}

func (s *Services) callAnnotations() tool.Annotations {
	if s.readOnly() {
		return tool.Annotations{ReadOnly: true, OpenWorld: true}
	}
	return tool.Annotations{Destructive: true, OpenWorld: true}
}

// service returns the named service, or an issue at /service.
func (s *Services) service(name string) (*service, error) {
	if svc, ok := s.byName[strings.ToLower(name)]; ok {
		return svc, nil
	}
	msg := fmt.Sprintf("no service is named %q; the services are %s", name, strings.Join(s.Names(), ", "))
	if best := closest(name, s.Names()); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownService, msg)
}

// operation finds an operation of a loaded service.
func (svc *service) operation(l *loaded, name string) (*operation, error) {
	if o, ok := l.find(name); ok {
		return o, nil
	}
	keys := make([]string, len(l.ops))
	for i, o := range l.ops {
		keys[i] = o.key()
	}
	msg := fmt.Sprintf("the service %s has no operation %q", svc.cfg.Name, name)
	if best := closest(name, keys); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return nil, fmt.Errorf("%w: %s; list them with describe_service", ErrUnknownOperation, msg)
}

// call is call_service's handler.
func (s *Services) call(ctx context.Context, a CallArgs) (string, error) {
	svc, err := s.service(a.Service)
	if err != nil {
		return "", invalid(ctx, "/service", err)
	}
	l, err := svc.load(ctx)
	if err != nil {
		return "", err
	}
	o, err := svc.operation(l, a.Operation)
	if err != nil {
		return "", invalid(ctx, "/operation", err)
	}
	if o.unsupported != "" {
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: fmt.Errorf("%w: %s", ErrOperationUnsupported, o.unsupported)}
	}
	args := strings.TrimSpace(a.Arguments)
	if args == "" {
		args = "{}"
	}
	if len(args) > s.maxReq+64<<10 {
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: fmt.Errorf("%w: the arguments are %d bytes, and a request's body may be %d", ErrServiceTooLarge, len(args), s.maxReq)}
	}
	_, v, err := o.schema()
	if err != nil {
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: err}
	}
	if err := v.Validate([]byte(args)); err != nil {
		if serr, ok := errors.AsType[*schema.Error](err); ok {
			issues := make([]schema.Issue, len(serr.Issues))
			for i, is := range serr.Issues {
				is.Path = "/arguments" + is.Path
				issues[i] = is
			}
			return "", validation(ctx, issues)
		}
		return "", invalid(ctx, "/arguments", err)
	}
	method, rawURL, header, body, issues := o.request([]byte(args))
	if len(issues) > 0 {
		return "", validation(ctx, issues)
	}
	if len(body) > s.maxReq {
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: fmt.Errorf("%w: the request body is %d bytes, over the limit of %d", ErrServiceTooLarge, len(body), s.maxReq)}
	}
	return s.send(ctx, svc, o, method, rawURL, header, body)
}

// send sends the request and reads the response, within the limits.
func (s *Services) send(ctx context.Context, svc *service, o *operation, method, rawURL string, header http.Header, body []byte) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !sameOrigin(u, svc.base) || !underBase(u.EscapedPath(), svc.base.EscapedPath()) {
		// Cannot happen: every value was escaped. Refuse all the same.
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: fmt.Errorf("%w: the request's URL is not under the base URL", ErrOperationUnsupported)}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return "", &opError{service: svc.cfg.Name, op: o.key(), err: err}
	}
	maps(req.Header, header)
	maps(req.Header, svc.headers) // the operator's headers win
	req.Header.Set("Accept", "application/json, text/*;q=0.9, */*;q=0.5")
	what := method + " " + u.EscapedPath()
	tool.Progress(ctx, "calling "+svc.cfg.Name+": "+what)
	resp, err := svc.client.Do(req)
	if err != nil {
		return "", &opError{service: svc.cfg.Name, op: what, err: unwrapURLError(err)}
	}
	defer resp.Body.Close()
	if resp.ContentLength > s.maxResp {
		return "", &opError{service: svc.cfg.Name, op: what, err: fmt.Errorf("%w: the response is %d bytes and the limit is %d; ask for less (a smaller page, a filter)", ErrServiceTooLarge, resp.ContentLength, s.maxResp)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.maxResp+1))
	if err != nil {
		return "", &opError{service: svc.cfg.Name, op: what, err: fmt.Errorf("read the response: %w", err)}
	}
	if int64(len(data)) > s.maxResp {
		return "", &opError{service: svc.cfg.Name, op: what, err: fmt.Errorf("%w: the response is over the limit of %d bytes; ask for less (a smaller page, a filter)", ErrServiceTooLarge, s.maxResp)}
	}
	ct := resp.Header.Get("Content-Type")
	text := bodyText(data, ct)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &opError{service: svc.cfg.Name, op: what, err: fmt.Errorf("%w: the service answered %s: %s", ErrServiceStatus, resp.Status, svc.redact(truncate(text, 4<<10)))}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", resp.Proto, resp.Status)
	if ct != "" {
		fmt.Fprintf(&b, "\ncontent-type: %s", ct)
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		fmt.Fprintf(&b, "\nlocation: %s", loc)
	}
	b.WriteString("\n\n")
	note := s.checkResponse(o, resp.StatusCode, ct, data)
	out := b.String() + text
	if note != "" {
		out = truncate(out, s.maxOut-len(note)-2) + "\n\n" + note
	} else {
		out = truncate(out, s.maxOut)
	}
	return svc.redact(out), nil
}

// checkResponse checks a JSON body against the document's schema of the
// response, and returns a note of what does not match, or "".
func (s *Services) checkResponse(o *operation, status int, ct string, data []byte) string {
	if !isJSONMedia(ct) || len(bytes.TrimSpace(data)) == 0 {
		return ""
	}
	rc := o.responseSchema(status)
	if rc == nil || (rc.v == nil && rc.err == nil) {
		return ""
	}
	if rc.err != nil {
		return "[note: the response was not checked, since the document's schema of it does not compile: " + truncate(rc.err.Error(), 500) + "]"
	}
	err := rc.v.Validate(data)
	if err == nil {
		return ""
	}
	serr, ok := errors.AsType[*schema.Error](err)
	if !ok {
		return "[note: the response does not match the document's schema: " + truncate(err.Error(), 500) + "]"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[note: the response does not match the document's schema for %d (the service or its document may be wrong; rely on the data as returned):", status)
	for i, is := range serr.Issues {
		if i == maxResponseIssues {
			fmt.Fprintf(&b, "\n- and %d more", len(serr.Issues)-i)
			break
		}
		b.WriteString("\n- ")
		b.WriteString(truncate(is.String(), 300))
	}
	b.WriteString("]")
	return b.String()
}

// bodyText returns a body as text for the model: text as it is (invalid
// UTF-8 replaced), and a note for a binary one.
func bodyText(data []byte, ct string) string {
	if len(data) == 0 {
		return "(no body)"
	}
	mt, _, _ := mime.ParseMediaType(ct)
	textual := strings.HasPrefix(mt, "text/") || isJSONMedia(ct) || strings.HasSuffix(mt, "+xml") ||
		mt == "application/xml" || mt == "application/x-www-form-urlencoded" || mt == "application/yaml" || mt == "application/x-ndjson"
	if mt == "" {
		textual = strings.HasPrefix(http.DetectContentType(data), "text/")
	}
	if !textual {
		return fmt.Sprintf("(a body of %d bytes of %s, not shown: call_service returns text)", len(data), cmpOr(mt, "binary data"))
	}
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	return string(data)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// redact replaces the service's credentials in text.
func (svc *service) redact(text string) string { return redact.Secrets(text, svc.secrets...) }

// truncate cuts s to at most limit bytes, at a character boundary, with a
// note within the limit.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := func(left int) string { return fmt.Sprintf("\n[truncated: %d more bytes]", left) }
	cut := max(limit-len(note(len(s))), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note(len(s)-cut)
}

// describe is describe_service's handler.
func (s *Services) describe(ctx context.Context, a DescribeArgs) (string, error) {
	svc, err := s.service(a.Service)
	if err != nil {
		return "", invalid(ctx, "/service", err)
	}
	l, err := svc.load(ctx)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Operation) != "" {
		o, err := svc.operation(l, a.Operation)
		if err != nil {
			return "", invalid(ctx, "/operation", err)
		}
		return svc.redact(truncate(describeOperation(o), s.maxOut)), nil
	}
	var b strings.Builder
	title := ""
	if l.title != "" {
		title = " (" + l.title + ")"
	}
	ops := l.ops
	if q := strings.TrimSpace(a.Query); q != "" {
		ops = l.search(q)
		fmt.Fprintf(&b, "Service %s%s: %d operations; those that fit %q best:\n", svc.cfg.Name, title, len(l.ops), q)
	} else {
		fmt.Fprintf(&b, "Service %s%s: %d operations:\n", svc.cfg.Name, title, len(l.ops))
	}
	for i, o := range ops {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more: give a query to list those that fit it.\n", len(ops)-i)
			break
		}
		b.WriteString("- ")
		if o.id != "" {
			b.WriteString(o.id + ": ")
		}
		b.WriteString(o.method + " " + o.path)
		if o.summary != "" {
			b.WriteString(" — " + firstLine(o.summary))
		}
		if o.readOnly() {
			b.WriteString(" [reads only]")
		}
		if o.unsupported != "" {
			b.WriteString(" [cannot be called]")
		}
		b.WriteByte('\n')
	}
	b.WriteString("Describe one with describe_service and its operation for the schema of its arguments.")
	return svc.redact(truncate(b.String(), s.maxOut)), nil
}

// search ranks the operations against a query.
func (l *loaded) search(q string) []*operation {
	l.indexOnce.Do(func() {
		for _, o := range l.ops {
			l.index.Put(toolsearch.Doc{Name: o.method + " " + o.path, Title: o.id, Description: o.summary + "\n" + o.desc + "\n" + strings.ReplaceAll(o.path, "/", " ")})
		}
	})
	var ops []*operation
	for _, m := range l.index.Search(q, maxListed, nil) {
		if o, ok := l.byKey[strings.ToLower(m.Name)]; ok {
			ops = append(ops, o)
		}
	}
	return ops
}

// describeOperation writes what a model needs to call an operation.
func describeOperation(o *operation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", o.method, o.path)
	if o.id != "" {
		fmt.Fprintf(&b, " (operation %s)", o.id)
	}
	if o.readOnly() {
		b.WriteString(", reads only")
	} else {
		b.WriteString(", may change data")
	}
	b.WriteByte('\n')
	if o.summary != "" {
		b.WriteString(o.summary + "\n")
	}
	if o.desc != "" && o.desc != o.summary {
		b.WriteString(truncate(o.desc, 4<<10) + "\n")
	}
	if o.unsupported != "" {
		b.WriteString("It cannot be called: " + o.unsupported + ".\n")
		return b.String()
	}
	input, _, err := o.schema()
	if err != nil {
		b.WriteString("It cannot be called: " + err.Error() + "\n")
		return b.String()
	}
	b.WriteString("\nThe JSON Schema of call_service's arguments (give them as a JSON string):\n")
	b.Write(input)
	b.WriteByte('\n')
	if o.responses != nil {
		var codes []string
		for code := range o.responses.Map() {
			codes = append(codes, code)
		}
		slices.Sort(codes)
		b.WriteString("\nResponses: " + strings.Join(codes, ", ") + ".\n")
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// invalid returns a validation error of one issue at path, for the
// arguments of the calling tool.
func invalid(ctx context.Context, path string, err error) error {
	return &tool.ValidationError{Tool: callTool(ctx), CallID: callID(ctx), Issues: []schema.Issue{{Path: path, Keyword: "validate", Message: strings.TrimPrefix(err.Error(), "service: ")}}, Err: errors.Join(tool.ErrInvalidArguments, err)}
}

// validation returns a validation error of issues.
func validation(ctx context.Context, issues []schema.Issue) error {
	return &tool.ValidationError{Tool: callTool(ctx), CallID: callID(ctx), Issues: issues, Err: tool.ErrInvalidArguments}
}

func callTool(ctx context.Context) string {
	if c, ok := tool.CallFrom(ctx); ok && c.Name != "" {
		return c.Name
	}
	return "call_service"
}

func callID(ctx context.Context) string {
	c, _ := tool.CallFrom(ctx)
	return c.ID
}

// closest returns the candidate nearest to name, if one is near enough to
// be a likely typo.
func closest(name string, candidates []string) string {
	best, bestD := "", 0
	lower := strings.ToLower(name)
	for _, c := range candidates {
		d := editdist.Distance(lower, strings.ToLower(c))
		if d <= max(2, len(c)/4) && (best == "" || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}
