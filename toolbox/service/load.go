package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/hands-go/hands/internal/jsondepth"
	"github.com/hands-go/hands/toolbox/netguard"
	"github.com/hands-go/hands/toolsearch"
)

// The bounds on a service's OpenAPI document and what it refers to.
const (
	// MaxDocumentBytes is the largest document, or document a $ref names,
	// that is read: 8 MiB.
	MaxDocumentBytes = 8 << 20
	// MaxDocumentDepth is how deep a document may nest JSON objects and
	// arrays.
	MaxDocumentDepth = 128
	// MaxReferencedDocuments is how many other documents a document's
	// $refs may read, together.
	MaxReferencedDocuments = 32
	// MaxOperations is how many operations a service may have.
	MaxOperations = 5000
)

// A service is one configured API: its base URL, the client that reaches
// it alone, and, once loaded, its operations.
type service struct {
	cfg     Config
	base    *url.URL
	client  *http.Client
	headers http.Header // the configured headers, values from the environment
	secrets []string    // their values of 4 bytes or more, redacted from what the tools return

	mu     sync.Mutex // held while loading
	loaded *loaded    // nil until the document loads
}

// What loading a service's document gives.
type loaded struct {
	title string
	ops   []*operation
	byKey map[string]*operation // by operation ID and by "METHOD /path", lower case

	indexOnce sync.Once
	index     toolsearch.Index // of the operations, built on the first search
}

// load reads, checks and indexes the service's document, once: a failure
// is tried again on the next call.
func (s *service) load(ctx context.Context) (*loaded, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded != nil {
		return s.loaded, nil
	}
	doc, err := s.readDocument(ctx)
	if err != nil {
		return nil, &opError{service: s.cfg.Name, op: "load the document " + redactURL(s.cfg.Document), err: err}
	}
	l, err := s.index(doc)
	if err != nil {
		return nil, &opError{service: s.cfg.Name, op: "load the document " + redactURL(s.cfg.Document), err: err}
	}
	s.loaded = l
	return l, nil
}

// readDocument reads the document, converts Swagger 2.0 to OpenAPI 3 and
// resolves its references, within the bounds.
func (s *service) readDocument(ctx context.Context) (*openapi3.T, error) {
	loc, data, err := s.readRoot(ctx)
	if err != nil {
		return nil, err
	}
	r := &refReader{s: s, ctx: ctx, root: loc}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.ReadFromURIFunc = openapi3.URIMapCache(r.read)
	var probe struct {
		Swagger string `json:"swagger"`
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: not JSON: %w", ErrDocument, err)
	}
	var doc *openapi3.T
	switch {
	case strings.HasPrefix(probe.Swagger, "2."):
		var doc2 openapi2.T
		if err := json.Unmarshal(data, &doc2); err != nil {
			return nil, fmt.Errorf("%w: a Swagger 2.0 document that does not parse: %w", ErrDocument, err)
		}
		if doc, err = openapi2conv.ToV3(&doc2); err != nil {
			return nil, fmt.Errorf("%w: a Swagger 2.0 document that does not convert to OpenAPI 3: %w", ErrDocument, err)
		}
		if err := loader.ResolveRefsIn(doc, loc); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDocument, err)
		}
	case strings.HasPrefix(probe.OpenAPI, "3."):
		if doc, err = loader.LoadFromDataWithPath(data, loc); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDocument, err)
		}
	default:
		return nil, fmt.Errorf("%w: neither \"openapi\": \"3.…\" nor \"swagger\": \"2.0\" at its top", ErrDocument)
	}
	if r.err != nil { // a refusal the loader may have worded away
		return nil, r.err
	}
	return doc, nil
}

// readRoot reads the document itself: from its URL through the service's
// guarded client, or from its file.
func (s *service) readRoot(ctx context.Context) (*url.URL, []byte, error) {
	if strings.HasPrefix(s.cfg.Document, "http://") || strings.HasPrefix(s.cfg.Document, "https://") {
		u, err := url.Parse(s.cfg.Document)
		if err != nil {
			return nil, nil, err
		}
		data, err := s.get(ctx, u)
		return u, data, err
	}
	path, err := filepath.Abs(s.cfg.Document)
	if err != nil {
		return nil, nil, err
	}
	data, err := readFileBounded(path)
	return &url.URL{Path: filepath.ToSlash(path)}, data, err
}

// get reads a document over HTTP, within MaxDocumentBytes.
func (s *service) get(ctx context.Context, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if sameOrigin(u, s.base) {
		maps(req.Header, s.headers)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %s", ErrServiceStatus, u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	return data, checkDocument(data)
}

func maps(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

func readFileBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	return data, checkDocument(data)
}

// checkDocument holds a document to MaxDocumentBytes and MaxDocumentDepth
// before it is parsed.
func checkDocument(data []byte) error {
	if len(data) > MaxDocumentBytes {
		return fmt.Errorf("%w: over %d bytes", ErrDocumentBounds, MaxDocumentBytes)
	}
	if d := jsondepth.Deepest(data, MaxDocumentDepth); d > MaxDocumentDepth {
		return fmt.Errorf("%w: it nests %d levels deep, over the bound of %d", ErrDocumentBounds, d, MaxDocumentDepth)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("%w: not a JSON object (YAML documents are not read; convert them to JSON)", ErrDocument)
	}
	return nil
}

// A refReader reads the documents a $ref names: over HTTP only at the
// service's base URL (through its guarded client), as a file only beside
// or below the document's own file, at most MaxReferencedDocuments.
type refReader struct {
	s     *service
	ctx   context.Context
	root  *url.URL
	count int
	err   error // the first refusal
}

func (r *refReader) read(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	data, err := r.readRef(u)
	if err != nil && r.err == nil {
		r.err = err
	}
	return data, err
}

func (r *refReader) readRef(u *url.URL) ([]byte, error) {
	if r.count++; r.count > MaxReferencedDocuments {
		return nil, fmt.Errorf("%w: its $refs name more than %d other documents", ErrDocumentBounds, MaxReferencedDocuments)
	}
	switch u.Scheme {
	case "http", "https":
		if !sameOrigin(u, r.s.base) || !underBase(u.EscapedPath(), r.s.base.EscapedPath()) {
			return nil, fmt.Errorf("%w: a $ref names %s, which is not under the service's base URL %s", ErrRef, u.Redacted(), r.s.base.Redacted())
		}
		return r.s.get(r.ctx, u)
	case "", "file":
		if r.root.Scheme != "" {
			return nil, fmt.Errorf("%w: a $ref names the file %s from a document read over HTTP", ErrRef, u.Path)
		}
		dir := filepath.Dir(filepath.FromSlash(r.root.Path))
		p := filepath.Clean(filepath.FromSlash(u.Path))
		rel, err := filepath.Rel(dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("%w: a $ref names the file %s, outside the document's folder", ErrRef, u.Path)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		f, err := root.Open(rel) // no link leads out
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRef, err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
		if err != nil {
			return nil, err
		}
		return data, checkDocument(data)
	}
	return nil, fmt.Errorf("%w: a $ref names %s, and only http, https and files are read", ErrRef, u.Redacted())
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Hostname(), b.Hostname()) && netguard.Endpoint(a) == netguard.Endpoint(b)
}

// underBase reports whether an escaped path lies under the base's.
func underBase(p, base string) bool {
	return base == "" || p == base || strings.HasPrefix(p, base+"/")
}

// index lists the document's operations.
func (s *service) index(doc *openapi3.T) (*loaded, error) {
	l := &loaded{byKey: map[string]*operation{}}
	if doc.Info != nil {
		l.title = doc.Info.Title
	}
	if doc.Paths == nil {
		return l, nil
	}
	paths := doc.Paths.InMatchingOrder()
	slices.Sort(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		if item == nil {
			continue
		}
		for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			if s.cfg.ReadOnly && method != "GET" && method != "HEAD" {
				continue
			}
			if len(l.ops) == MaxOperations {
				return nil, fmt.Errorf("%w: over %d operations", ErrDocumentBounds, MaxOperations)
			}
			o := newOperation(s, method, path, item, op)
			l.ops = append(l.ops, o)
			l.byKey[strings.ToLower(method+" "+path)] = o
		}
	}
	// Operation IDs name an operation where they are unique and plain.
	ids := map[string]int{}
	for _, o := range l.ops {
		if o.id != "" {
			ids[strings.ToLower(o.id)]++
		}
	}
	for _, o := range l.ops {
		key := strings.ToLower(o.id)
		if o.id == "" || ids[key] > 1 || !opIDRE.MatchString(o.id) {
			o.id = ""
			continue
		}
		if _, taken := l.byKey[key]; !taken {
			l.byKey[key] = o
		}
	}
	return l, nil
}

// find returns the operation that name names: its ID or "METHOD /path".
func (l *loaded) find(name string) (*operation, bool) {
	name = strings.TrimSpace(name)
	if m, p, ok := strings.Cut(name, " "); ok {
		name = m + " " + strings.TrimSpace(p)
	}
	o, ok := l.byKey[strings.ToLower(name)]
	return o, ok
}

// unwrapURLError drops net/http's "Get URL:" wrapping, which repeats the
// URL said elsewhere.
func unwrapURLError(err error) error {
	if uerr, ok := errors.AsType[*url.Error](err); ok {
		return uerr.Err
	}
	return err
}

// redactURL hides a password in a URL, leaving a file path as it is.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return s
}
