package image

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig of GIF
	_ "image/jpeg" // DecodeConfig of JPEG
	_ "image/png"  // DecodeConfig of PNG
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/netguard"
)

// Defaults and limits of Options.
const (
	// DefaultMaxBytes is the largest image, decoded, a call accepts: 8 MiB.
	DefaultMaxBytes = 8 << 20
	// MaxCountLimit is the most images one call may ask for.
	MaxCountLimit = 4
	// DefaultTimeout bounds one call: image models take tens of seconds.
	DefaultTimeout = 3 * time.Minute
)

// Sentinels for the ways a generation fails. The error is a *BackendError
// that wraps one; match it with errors.Is.
var (
	// ErrImageKey reports a key the backend refused (401 or 403).
	ErrImageKey = errors.New("image: key refused")
	// ErrImageRateLimited reports a backend that asks to slow down (429).
	ErrImageRateLimited = errors.New("image: rate limited")
	// ErrImageBackend reports a backend that failed, refused the prompt,
	// or returned no image.
	ErrImageBackend = errors.New("image: backend failed")
	// ErrImageTooLarge reports an image, or a response, over the limit.
	ErrImageTooLarge = errors.New("image: too large")
	// ErrImageType reports bytes that are not the image type claimed.
	ErrImageType = errors.New("image: not the image type claimed")
)

// A BackendError reports a generation that failed: which backend, the
// HTTP status if one came, and the setting an operator changes to fix it.
// Its text never holds the key.
type BackendError struct {
	Backend string // "openai" or "gemini"
	Status  int    // the HTTP status; 0 if none came
	Setting string // for a refused key, the variable that holds it
	Detail  string // what went wrong, without the key
	Err     error  // one of the package's sentinels
}

// Error says what failed and what to do about it.
func (e *BackendError) Error() string {
	s := "image: " + e.Backend
	if e.Status != 0 {
		s += fmt.Sprintf(" answered %d", e.Status)
	}
	s += ": " + e.Detail
	switch {
	case errors.Is(e.Err, ErrImageKey):
		s += "; the API key was refused: the operator must check " + e.Setting
	case errors.Is(e.Err, ErrImageRateLimited):
		s += "; rate limited: wait before generating again"
	}
	return s
}

// Unwrap returns Err.
func (e *BackendError) Unwrap() error { return e.Err }

// Options configure the tool made by Generate. The zero value selects
// every default.
type Options struct {
	// Name is the tool's name. If empty, "image_generate".
	Name string
	// MaxBytes is the largest image a call accepts, decoded; a response
	// that would decode to more is refused (ErrImageTooLarge). If zero or
	// less, DefaultMaxBytes.
	MaxBytes int
	// MaxCount is the most images one call makes. If zero or less, 1; at
	// most MaxCountLimit.
	MaxCount int
	// Timeout bounds each call. If zero or less, DefaultTimeout.
	Timeout time.Duration
	// Host, if set, stores each image and returns its public URL, which the
	// result carries beside the image. key is a fresh name such as
	// "images/3f9a….png". If nil, images are returned inline only, and
	// the tool is read-only.
	Host func(ctx context.Context, key string, body []byte, contentType string) (url string, err error)
	// Guard is the address guard the requests dial through; the backend's
	// endpoint is trusted. If nil, the public internet and the endpoint.
	Guard *netguard.Guard
	// Transport, if not nil, is cloned for the requests and given the
	// guard's dialer.
	Transport *http.Transport
}

// Args is the input of image_generate.
type Args struct {
	// Prompt describes the image.
	Prompt string `json:"prompt" jsonschema:"what the image shows, in detail: subject, style, composition, colours" tool:"minLength=1,maxLength=4000"`
	// Shape is the image's aspect.
	Shape string `json:"shape,omitempty" jsonschema:"the image's shape" tool:"enum=square|landscape|portrait,default=square"`
	// Count is how many images to make.
	Count int `json:"count,omitempty" jsonschema:"how many images to make; the tool's limit applies" tool:"minimum=1,maximum=4"`
}

// Validate refuses a prompt of white space only.
func (a *Args) Validate() error {
	if strings.TrimSpace(a.Prompt) == "" {
		return errors.New("prompt is blank; describe the image")
	}
	return nil
}

// Generate returns the image_generate tool: it asks backend for images of
// the model's prompt and returns each as an image part, checked to be the
// type the backend claimed and at most Options.MaxBytes; with
// Options.Host, each is also stored and its URL returned beside it.
// opts may be nil.
func Generate(backend *Backend, opts *Options) *tool.Tool[Args, []tool.Part] {
	if backend == nil {
		panic("image.Generate: nil backend")
	}
	if opts == nil {
		opts = &Options{}
	}
	g := &generatorTool{backend: backend, maxBytes: opts.MaxBytes, maxCount: opts.MaxCount, host: opts.Host}
	if g.maxBytes <= 0 {
		g.maxBytes = DefaultMaxBytes
	}
	if g.maxCount <= 0 {
		g.maxCount = 1
	}
	g.maxCount = min(g.maxCount, MaxCountLimit)
	guard, err := opts.Guard.Trust(netguard.Endpoint(backend.endpoint))
	if err != nil {
		panic("image.Generate: " + err.Error())
	}
	client := &http.Client{Transport: &limitTransport{next: guard.Transport(opts.Transport), limit: int64(g.maxBytes)*g.maxCountInt64()*4/3 + 1<<20}}
	g.client = client
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	what := "returns it"
	if g.host != nil {
		what = "returns it with a public URL to share"
	}
	return tool.New(cmp.Or(opts.Name, "image_generate"),
		fmt.Sprintf("Generate an image from a text prompt and %s (at most %d per call).", what, g.maxCount),
		g.run, tool.WithTimeout(timeout), tool.WithTitle("Generate an image"),
		tool.WithAnnotations(tool.Annotations{ReadOnly: g.host == nil, OpenWorld: true}))
}

// A generatorTool is the state of an image_generate tool.
type generatorTool struct {
	backend  *Backend
	client   *http.Client
	maxBytes int
	maxCount int
	host     func(ctx context.Context, key string, body []byte, contentType string) (string, error)
}

func (g *generatorTool) maxCountInt64() int64 { return int64(g.maxCount) }

// run is the handler of image_generate.
func (g *generatorTool) run(ctx context.Context, a Args) ([]tool.Part, error) {
	n := 1
	if a.Count > 0 {
		n = min(a.Count, g.maxCount)
	}
	tool.Progress(ctx, fmt.Sprintf("generating %d image(s) with %s", n, g.backend.name))
	pics, err := g.backend.driver.Generate(ctx, g.backend, g.client, a.Prompt, cmp.Or(a.Shape, "square"), n)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, g.backend.fail(err)
	}
	if len(pics) == 0 {
		return nil, &BackendError{Backend: g.backend.name, Detail: "the backend returned no image; the prompt may have been refused: rephrase it", Err: ErrImageBackend}
	}
	var parts []tool.Part
	var notes []string
	for i, p := range pics[:min(len(pics), n)] {
		mime, w, h, err := g.check(p)
		if err != nil {
			return nil, err
		}
		note := fmt.Sprintf("image %d: %dx%d %s, %d bytes", i+1, w, h, mime, len(p.Data))
		var link *tool.Part
		if g.host != nil {
			key := "images/" + randomName() + extension(mime)
			url, err := g.host(ctx, key, p.Data, mime)
			if err != nil {
				return nil, fmt.Errorf("image: store the image: %w", err)
			}
			note += ", at " + url
			l := tool.Link(url, key, mime)
			link = &l
		}
		notes = append(notes, note)
		parts = append(parts, tool.Image(mime, p.Data))
		if link != nil {
			parts = append(parts, *link)
		}
	}
	return append([]tool.Part{tool.Text(fmt.Sprintf("Generated %d image(s) with %s.\n%s", len(notes), g.backend.name, strings.Join(notes, "\n")))}, parts...), nil
}

// check returns a picture's media type and size: its bytes must be at most
// the limit, sniff as the type the backend claimed, and decode as one.
func (g *generatorTool) check(p Picture) (mime string, w, h int, err error) {
	if len(p.Data) > g.maxBytes {
		return "", 0, 0, &BackendError{Backend: g.backend.name, Detail: fmt.Sprintf("the image is %d bytes and the limit is %d", len(p.Data), g.maxBytes), Err: ErrImageTooLarge}
	}
	claimed := strings.ToLower(strings.TrimSpace(strings.Split(p.MIME, ";")[0]))
	sniffed := http.DetectContentType(p.Data)
	if sniffed != claimed {
		return "", 0, 0, &BackendError{Backend: g.backend.name, Detail: fmt.Sprintf("the image is said to be %s but its bytes are %s", cmp.Or(claimed, "of no type"), sniffed), Err: ErrImageType}
	}
	if claimed == "image/webp" {
		return claimed, 0, 0, nil // the standard library has no WebP decoder; the sniff stands
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(p.Data))
	if err != nil {
		return "", 0, 0, &BackendError{Backend: g.backend.name, Detail: fmt.Sprintf("the %s does not decode: %v", claimed, err), Err: ErrImageType}
	}
	return claimed, cfg.Width, cfg.Height, nil
}

// extension returns the file extension of an image type.
func extension(mime string) string {
	switch mime {
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	case "image/gif":
		return ".gif"
	}
	return ".png"
}

// randomName returns 16 random bytes in hex: a hosted image's name, which
// no one can guess.
func randomName() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// A limitTransport fails a response whose body is longer than limit, so
// that a backend cannot make the SDK read an unbounded body.
type limitTransport struct {
	next  http.RoundTripper
	limit int64
}

// RoundTrip sends req and bounds the body of its response.
func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, &BackendError{Detail: fmt.Sprintf("the response is %d bytes and the limit is %d", resp.ContentLength, t.limit), Err: ErrImageTooLarge}
	}
	resp.Body = &limitBody{ReadCloser: resp.Body, left: t.limit}
	return resp, nil
}

// A limitBody fails a read past its limit.
type limitBody struct {
	io.ReadCloser
	left int64
}

func (b *limitBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &BackendError{Detail: "the response is over the limit", Err: ErrImageTooLarge}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, &BackendError{Detail: "the response is over the limit", Err: ErrImageTooLarge}
	}
	return n, err
}
