package search

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// The backends a URL may name, by scheme.
const (
	// Brave is Brave Search's Web Search API: GET with the key in
	// X-Subscription-Token.
	Brave = "brave"
	// Tavily is Tavily's Search API: POST of a JSON body with the key as a
	// bearer token.
	Tavily = "tavily"
	// SearXNG is a SearXNG instance's JSON API (format=json), which needs
	// no key; the instance must list json in search.formats.
	SearXNG = "searxng"
)

// A kind is what Open knows of one backend.
type kind struct {
	endpoint string // the default endpoint; "" if the URL must name one
	keyEnv   string // the variable that holds the key; "" if none is needed
}

var kinds = map[string]kind{
	Brave:   {endpoint: "https://api.search.brave.com/res/v1/web/search", keyEnv: "BRAVE_API_KEY"},
	Tavily:  {endpoint: "https://api.tavily.com/search", keyEnv: "TAVILY_API_KEY"},
	SearXNG: {},
}

// A Backend is a search API and how to reach it: its endpoint and its
// key. Its String method and its errors never show the key.
type Backend struct {
	name     string   // Brave, Tavily or SearXNG
	endpoint *url.URL // where requests go
	key      string   // the API key; "" for SearXNG
	keyEnv   string   // the variable the key came from, named in errors
}

// Name returns the backend's name: Brave, Tavily or SearXNG.
func (b *Backend) Name() string { return b.name }

// Endpoint returns the URL requests go to, without the key.
func (b *Backend) Endpoint() string { return b.endpoint.Redacted() }

// String returns the backend's name and endpoint, never its key.
func (b *Backend) String() string { return b.name + " at " + b.Endpoint() }

// Open returns the backend a URL names, as HANDS_SEARCH holds it:
//
//	brave://                          Brave Search, key in BRAVE_API_KEY
//	tavily://                         Tavily, key in TAVILY_API_KEY
//	searxng://search.example.com      a SearXNG instance over https
//	searxng://10.0.0.5:8888?tls=false the same over plain http
//
// The query may add endpoint=URL, the full URL to send requests to in
// place of the default (a proxy, a regional endpoint, a test server), and
// key_env=NAME, the environment variable that holds the key in place of
// the default one. A key is never written in the URL itself: the URL is
// printed in messages and kept in config files, and a key in it would
// leak. getenv looks variables up; nil means os.Getenv.
func Open(rawURL string, getenv func(string) string) (*Backend, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("search: the backend URL does not parse; write brave://, tavily:// or searxng://HOST")
	}
	k, ok := kinds[u.Scheme]
	if !ok {
		return nil, fmt.Errorf("search: no backend for the scheme %q; the schemes are brave, tavily and searxng", u.Scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("search: %s: the URL holds user information; put the key in %s (or the variable key_env names), never in the URL", u.Scheme, cmp.Or(k.keyEnv, "an environment variable"))
	}
	q := u.Query()
	for name := range q {
		switch name {
		case "endpoint", "key_env":
		case "tls":
			if u.Scheme != SearXNG {
				return nil, fmt.Errorf("search: %s: tls applies to searxng:// only; use endpoint=URL", u.Scheme)
			}
		case "key", "api_key", "token":
			return nil, fmt.Errorf("search: %s: the URL holds a key (%s=); put it in %s, or in a variable that key_env=NAME names, never in the URL", u.Scheme, name, cmp.Or(k.keyEnv, "an environment variable"))
		default:
			return nil, fmt.Errorf("search: %s: unknown parameter %q; the parameters are endpoint, key_env and, for searxng, tls", u.Scheme, name)
		}
	}
	endpoint := k.endpoint
	if u.Scheme == SearXNG && u.Host != "" {
		scheme := "https"
		switch q.Get("tls") {
		case "", "true":
		case "false":
			scheme = "http"
		default:
			return nil, fmt.Errorf("search: searxng: tls is %q; it is true or false", q.Get("tls"))
		}
		endpoint = scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/") + "/search"
	}
	if e := q.Get("endpoint"); e != "" {
		endpoint = e
	}
	if endpoint == "" {
		return nil, errors.New("search: searxng: name the instance, as in searxng://search.example.com or searxng://?endpoint=http://10.0.0.5:8888/search")
	}
	ep, err := url.Parse(endpoint)
	if err != nil || (ep.Scheme != "http" && ep.Scheme != "https") || ep.Hostname() == "" || ep.User != nil {
		return nil, fmt.Errorf("search: %s: the endpoint must be an http or https URL with a host and no user information", u.Scheme)
	}
	b := &Backend{name: u.Scheme, endpoint: ep, keyEnv: cmp.Or(q.Get("key_env"), k.keyEnv)}
	if b.keyEnv != "" {
		b.key = strings.TrimSpace(getenv(b.keyEnv))
		if b.key == "" && k.keyEnv != "" {
			return nil, fmt.Errorf("search: %s needs an API key: set %s", u.Scheme, b.keyEnv)
		}
	}
	return b, nil
}
