package image

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"
)

// The backends a URL may name, by scheme.
const (
	// OpenAI is OpenAI's Images API (gpt-image-1 and its successors).
	OpenAI = "openai"
	// Gemini is the Gemini API's image models, through generateContent
	// with the IMAGE modality (gemini-2.5-flash-image and its successors).
	Gemini = "gemini"
)

var (
	defaultEndpoints = map[string]string{OpenAI: "https://api.openai.com/v1/", Gemini: "https://generativelanguage.googleapis.com/"}
	defaultKeyEnvs   = map[string]string{OpenAI: "OPENAI_API_KEY", Gemini: "GEMINI_API_KEY"}
)

// A Backend is an image API, its model, endpoint and key. Its String
// method and its errors never show the key.
type Backend struct {
	name     string
	model    string
	endpoint *url.URL
	key      string
	keyEnv   string
}

// Name returns the backend's name: OpenAI or Gemini.
func (b *Backend) Name() string { return b.name }

// Model returns the model that makes the images.
func (b *Backend) Model() string { return b.model }

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
	def, ok := defaultEndpoints[u.Scheme]
	if !ok {
		return nil, fmt.Errorf("image: no backend for the scheme %q; the schemes are openai and gemini", u.Scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("image: %s: the URL holds user information; put the key in %s, never in the URL", u.Scheme, defaultKeyEnvs[u.Scheme])
	}
	if u.Host == "" || u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("image: %s: name the model as the URL's host, as in %s://%s", u.Scheme, u.Scheme, map[string]string{OpenAI: "gpt-image-1", Gemini: "gemini-2.5-flash-image"}[u.Scheme])
	}
	q := u.Query()
	for name := range q {
		switch name {
		case "endpoint", "key_env":
		case "key", "api_key", "token":
			return nil, fmt.Errorf("image: %s: the URL holds a key (%s=); put it in %s, or in a variable that key_env=NAME names", u.Scheme, name, defaultKeyEnvs[u.Scheme])
		default:
			return nil, fmt.Errorf("image: %s: unknown parameter %q; the parameters are endpoint and key_env", u.Scheme, name)
		}
	}
	ep, err := url.Parse(cmp.Or(q.Get("endpoint"), def))
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") || ep.Hostname() == "" || ep.User != nil {
		return nil, fmt.Errorf("image: %s: the endpoint must be an http or https URL with a host and no user information", u.Scheme)
	}
	b := &Backend{name: u.Scheme, model: u.Host, endpoint: ep, keyEnv: cmp.Or(q.Get("key_env"), defaultKeyEnvs[u.Scheme])}
	if b.key = strings.TrimSpace(getenv(b.keyEnv)); b.key == "" {
		return nil, fmt.Errorf("image: %s needs an API key: set %s", u.Scheme, b.keyEnv)
	}
	return b, nil
}

// hostPort is the endpoint as netguard trusts it.
func (b *Backend) hostPort() string {
	port := b.endpoint.Port()
	if port == "" {
		port = "443"
		if b.endpoint.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(b.endpoint.Hostname(), port)
}

// generator returns the backend's generator, sending with client.
func (b *Backend) generator(client *http.Client) generator {
	if b.name == OpenAI {
		c := openai.NewClient(option.WithAPIKey(b.key), option.WithBaseURL(b.endpoint.String()), option.WithHTTPClient(client), option.WithMaxRetries(0))
		return &openAIGenerator{client: c, model: b.model}
	}
	return &geminiGenerator{backend: b, http: client}
}

// fail turns an SDK's error into a *BackendError without the key.
func (b *Backend) fail(err error) error {
	if berr, ok := errors.AsType[*BackendError](err); ok {
		c := *berr
		c.Backend = b.name
		c.Detail = b.redact(c.Detail)
		return &c
	}
	status, detail := 0, err.Error()
	if oerr, ok := errors.AsType[*openai.Error](err); ok {
		status, detail = oerr.StatusCode, cmp.Or(oerr.Message, oerr.Code, http.StatusText(oerr.StatusCode))
	}
	if gerr, ok := errors.AsType[genai.APIError](err); ok {
		status, detail = gerr.Code, cmp.Or(gerr.Message, gerr.Status)
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
func (b *Backend) redact(s string) string {
	if b.key == "" {
		return s
	}
	return strings.ReplaceAll(s, b.key, "[redacted]")
}

// An openAIGenerator calls OpenAI's Images API.
type openAIGenerator struct {
	client openai.Client
	model  string
}

func (o *openAIGenerator) generate(ctx context.Context, prompt, shape string, n int) ([]picture, error) {
	size := map[string]openai.ImageGenerateParamsSize{
		"square":    openai.ImageGenerateParamsSize1024x1024,
		"landscape": openai.ImageGenerateParamsSize1536x1024,
		"portrait":  openai.ImageGenerateParamsSize1024x1536,
	}[shape]
	resp, err := o.client.Images.Generate(ctx, openai.ImageGenerateParams{
		Prompt: prompt, Model: openai.ImageModel(o.model), N: openai.Int(int64(n)), Size: size,
	})
	if err != nil {
		return nil, err
	}
	mime := "image/" + cmp.Or(string(resp.OutputFormat), "png")
	var out []picture
	for _, d := range resp.Data {
		if d.B64JSON == "" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil {
			return nil, &BackendError{Detail: "the image's base64 does not decode", Err: ErrImageType}
		}
		out = append(out, picture{data: data, mime: mime})
	}
	return out, nil
}

// A geminiGenerator calls the Gemini API's generateContent with the IMAGE
// modality.
type geminiGenerator struct {
	backend *Backend
	http    *http.Client
}

func (g *geminiGenerator) generate(ctx context.Context, prompt, shape string, n int) ([]picture, error) {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: g.backend.key, Backend: genai.BackendGeminiAPI, HTTPClient: g.http,
		HTTPOptions: genai.HTTPOptions{BaseURL: g.backend.endpoint.String()},
	})
	if err != nil {
		return nil, err
	}
	aspect := map[string]string{"square": "1:1", "landscape": "3:2", "portrait": "2:3"}[shape]
	var out []picture
	for range n { // one image per request
		resp, err := client.Models.GenerateContent(ctx, g.backend.model, genai.Text(prompt), &genai.GenerateContentConfig{
			ResponseModalities: []string{"IMAGE"},
			ImageConfig:        &genai.ImageConfig{AspectRatio: aspect},
		})
		if err != nil {
			return nil, err
		}
		for _, c := range resp.Candidates {
			if c.Content == nil {
				continue
			}
			for _, p := range c.Content.Parts {
				if p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/") {
					out = append(out, picture{data: p.InlineData.Data, mime: p.InlineData.MIMEType})
				}
			}
		}
	}
	return out, nil
}
