package image

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/hands-go/hands/internal/redact"
)

// The backends' schemes. Each backend's SDK is in a package of its own,
// which registers it when imported, so that a program links only the SDKs
// of the backends it offers: openaiimage (OpenAI's Images API: gpt-image-1
// and its successors) and geminiimage (the Gemini API's image models,
// through generateContent with the IMAGE modality).
const (
	OpenAI = "openai"
	Gemini = "gemini"
)

// A Driver makes images with one API's SDK. A backend's package registers
// its driver with Register.
type Driver interface {
	// Generate asks the backend b for n images of prompt, in shape
	// ("square", "landscape" or "portrait"), sending with client.
	Generate(ctx context.Context, b *Backend, client *http.Client, prompt, shape string, n int) ([]Picture, error)
	// Status returns the HTTP status and the message of an error of the
	// driver's SDK, or 0 and "" for any other error.
	Status(err error) (int, string)
}

// A Picture is one generated image, before it is checked.
type Picture struct {
	Data []byte
	MIME string // as the backend claims it
}

// A driverInfo is a registered driver and its defaults.
type driverInfo struct {
	driver          Driver
	defaultEndpoint string
	keyEnv          string
	exampleModel    string
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]driverInfo{}
)

// Register makes d the driver of the backends of scheme, whose API is at
// defaultEndpoint unless a URL says otherwise, with its key in the
// variable keyEnv; exampleModel is a model named in errors. It panics if
// the scheme has a driver.
func Register(scheme, defaultEndpoint, keyEnv, exampleModel string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, ok := drivers[scheme]; ok {
		panic("image.Register: a second driver for " + scheme)
	}
	drivers[scheme] = driverInfo{driver: d, defaultEndpoint: defaultEndpoint, keyEnv: keyEnv, exampleModel: exampleModel}
}

// knownPackages names the package of each backend this module has, for
// errors about a scheme whose driver the program did not import.
var knownPackages = map[string]string{
	OpenAI: "github.com/hands-go/hands/toolbox/image/openaiimage",
	Gemini: "github.com/hands-go/hands/toolbox/image/geminiimage",
}

// A Backend is an image API, its model, endpoint and key. Its String
// method and its errors never show the key.
type Backend struct {
	name     string
	model    string
	endpoint *url.URL
	key      string
	keyEnv   string
	driver   Driver
}

// Name returns the backend's name: OpenAI or Gemini.
func (b *Backend) Name() string { return b.name }

// Model returns the model that makes the images.
func (b *Backend) Model() string { return b.model }

// Endpoint returns the API's base URL.
func (b *Backend) Endpoint() string { return b.endpoint.String() }

// Key returns the API key, for a driver to send.
func (b *Backend) Key() string { return b.key }

// String returns the backend, model and endpoint, never the key.
func (b *Backend) String() string { return b.name + " " + b.model + " at " + b.endpoint.Redacted() }

// Open returns the backend a URL names, as HANDS_IMAGE holds it: the
// scheme is the API and the host the model.
//
//	openai://gpt-image-1                     key in OPENAI_API_KEY
//	gemini://gemini-2.5-flash-image          key in GEMINI_API_KEY
//
// The query may add endpoint=URL, the API's base URL in place of the
// default (a gateway, a test server), and key_env=NAME, the variable that
// holds the key. A key is never written in the URL. getenv looks
// variables up; nil means os.Getenv.
func Open(rawURL string, getenv func(string) string) (*Backend, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("image: the backend URL does not parse; write openai://MODEL or gemini://MODEL")
	}
	driversMu.RLock()
	info, ok := drivers[u.Scheme]
	driversMu.RUnlock()
	if !ok {
		if pkg, known := knownPackages[u.Scheme]; known {
			return nil, fmt.Errorf("image: this program has no %s backend; it is in package %s, which the program must import", u.Scheme, pkg)
		}
		return nil, fmt.Errorf("image: no backend for the scheme %q; the schemes are openai and gemini", u.Scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("image: %s: the URL holds user information; put the key in %s, never in the URL", u.Scheme, info.keyEnv)
	}
	if u.Host == "" || u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("image: %s: name the model as the URL's host, as in %s://%s", u.Scheme, u.Scheme, info.exampleModel)
	}
	q := u.Query()
	for name := range q {
		switch name {
		case "endpoint", "key_env":
		case "key", "api_key", "token":
			return nil, fmt.Errorf("image: %s: the URL holds a key (%s=); put it in %s, or in a variable that key_env=NAME names", u.Scheme, name, info.keyEnv)
		default:
			return nil, fmt.Errorf("image: %s: unknown parameter %q; the parameters are endpoint and key_env", u.Scheme, name)
		}
	}
	ep, err := url.Parse(cmp.Or(q.Get("endpoint"), info.defaultEndpoint))
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") || ep.Hostname() == "" || ep.User != nil {
		return nil, fmt.Errorf("image: %s: the endpoint must be an http or https URL with a host and no user information", u.Scheme)
	}
	b := &Backend{name: u.Scheme, model: u.Host, endpoint: ep, keyEnv: cmp.Or(q.Get("key_env"), info.keyEnv), driver: info.driver}
	if b.key = strings.TrimSpace(getenv(b.keyEnv)); b.key == "" {
		return nil, fmt.Errorf("image: %s needs an API key: set %s", u.Scheme, b.keyEnv)
	}
	return b, nil
}

// fail turns an SDK's error into a *BackendError without the key.
func (b *Backend) fail(err error) error {
	if berr, ok := errors.AsType[*BackendError](err); ok {
		c := *berr
		c.Backend = b.name
		c.Detail = b.redact(c.Detail)
		return &c
	}
	status, detail := b.driver.Status(err)
	if status == 0 {
		detail = err.Error()
	}
	kind := ErrImageBackend
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		kind = ErrImageKey
	case http.StatusTooManyRequests:
		kind = ErrImageRateLimited
	}
	if status == http.StatusBadRequest && strings.Contains(strings.ToLower(detail), "api key") {
		kind = ErrImageKey // the Gemini API answers a bad key with 400
	}
	e := &BackendError{Backend: b.name, Status: status, Detail: b.redact(detail), Err: kind}
	if kind == ErrImageKey {
		e.Setting = b.keyEnv
	}
	return e
}

// redact removes the key from s.
func (b *Backend) redact(s string) string { return redact.Secrets(s, b.key) }
