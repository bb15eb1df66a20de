package service

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// A Config describes one service: its name, the base URL of its API and
// where its OpenAPI document is.
type Config struct {
	// Name is what the model calls the service by: letters, digits, "-"
	// and "_", at most 64.
	Name string
	// BaseURL is the base of every request, an http or https URL such as
	// https://api.example.com/v2: an operation's path is appended to it.
	// The servers the document lists are not used, and nothing outside
	// BaseURL is reached.
	BaseURL string
	// Document is the OpenAPI 3 or Swagger 2.0 document, in JSON: an
	// http or https URL, or the path of a file.
	Document string
	// Headers are sent with every request, each header's value read from
	// the environment variable that Headers maps its name to (such as
	// "Authorization" to GITHUB_AUTH holding "Bearer ghp_…"). The values
	// never appear in what the tools return, and an operation's header
	// parameter of the same name is left out.
	Headers map[string]string
	// ReadOnly offers only the service's GET and HEAD operations.
	ReadOnly bool
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Parse reads a list of services as the environment holds it, entries
// separated by commas, each
//
//	NAME=BASE_URL|DOCUMENT[|header=HEADER:ENV_VAR]…[|read-only]
//
// such as
//
//	mail=http://127.0.0.1:8025|http://127.0.0.1:8025/api/v1/swagger.json|read-only,
//	github=https://api.github.com|/etc/hands/github.json|header=Authorization:GITHUB_AUTH
//
// Spaces around an entry or a field are ignored, and so are empty entries.
// A URL in the list may not hold a comma or a "|". Parse checks each entry
// (names, URLs, header names) but reads neither the documents nor the
// environment variables.
func Parse(s string) ([]Config, error) {
	var list []Config
	seen := map[string]bool{}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		c, err := parseEntry(entry)
		if err != nil {
			return nil, err
		}
		if key := strings.ToLower(c.Name); seen[key] {
			return nil, fmt.Errorf("service: the name %q is used twice", c.Name)
		} else {
			seen[key] = true
		}
		list = append(list, c)
	}
	return list, nil
}

func parseEntry(entry string) (Config, error) {
	fields := strings.Split(entry, "|")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	name, base, ok := strings.Cut(fields[0], "=")
	if !ok || len(fields) < 2 {
		return Config{}, fmt.Errorf("service: %q: write NAME=BASE_URL|DOCUMENT, as in mail=http://127.0.0.1:8025|http://127.0.0.1:8025/api/v1/swagger.json", entry)
	}
	c := Config{Name: strings.TrimSpace(name), BaseURL: strings.TrimSpace(base), Document: fields[1]}
	for _, opt := range fields[2:] {
		switch {
		case opt == "read-only":
			c.ReadOnly = true
		case strings.HasPrefix(opt, "header="):
			header, env, ok := strings.Cut(strings.TrimPrefix(opt, "header="), ":")
			if !ok || header == "" || env == "" {
				return Config{}, fmt.Errorf("service %s: %q: write header=HEADER:ENV_VAR, as in header=Authorization:GITHUB_AUTH", c.Name, opt)
			}
			if c.Headers == nil {
				c.Headers = map[string]string{}
			}
			c.Headers[header] = env
		default:
			return Config{}, fmt.Errorf("service %s: unknown option %q; the options are header=HEADER:ENV_VAR and read-only", c.Name, opt)
		}
	}
	return c, c.check()
}

// check reports the first mistake in c, without reading anything.
func (c *Config) check() error {
	if !nameRE.MatchString(c.Name) {
		return fmt.Errorf("service: the name %q is not 1 to 64 letters, digits, - and _", c.Name)
	}
	if _, err := parseBase(c.BaseURL); err != nil {
		return fmt.Errorf("service %s: %w", c.Name, err)
	}
	if c.Document == "" {
		return fmt.Errorf("service %s: no document: give the URL or file of its OpenAPI document", c.Name)
	}
	for h, env := range c.Headers {
		if !httpguts.ValidHeaderFieldName(h) {
			return fmt.Errorf("service %s: %q is not a header name", c.Name, h)
		}
		if reservedHeader(h) && !strings.EqualFold(h, "Authorization") && !strings.EqualFold(h, "Cookie") {
			return fmt.Errorf("service %s: the header %s is set by the client and cannot be configured", c.Name, http.CanonicalHeaderKey(h))
		}
		if env == "" || strings.ContainsAny(env, "= \t") {
			return fmt.Errorf("service %s: %q is not the name of an environment variable", c.Name, env)
		}
	}
	return nil
}

// parseBase checks a base URL: http or https, a host, no user
// information, query or fragment. The path loses its trailing slash.
func parseBase(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the base URL %q does not parse", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("the base URL %q is not an http or https URL", u.Redacted())
	case u.Hostname() == "":
		return nil, fmt.Errorf("the base URL %q names no host", u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("the base URL %q holds a user name or password; give credentials with header=HEADER:ENV_VAR", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("the base URL %q has a query or a fragment", u.Redacted())
	case strings.Contains(u.EscapedPath(), "/../") || strings.HasSuffix(u.EscapedPath(), "/..") || strings.Contains(u.EscapedPath(), "/./"):
		return nil, fmt.Errorf("the base URL %q has a . or .. segment", u.Redacted())
	}
	b := *u
	b.Path = strings.TrimSuffix(b.Path, "/")
	b.RawPath = strings.TrimSuffix(b.RawPath, "/")
	return &b, nil
}

// reservedHeader reports whether a header is the client's to set, so that
// neither an operation's header parameter nor a model may set it.
func reservedHeader(h string) bool {
	switch http.CanonicalHeaderKey(h) {
	case "Accept", "Content-Type", "Authorization", "Content-Length", "Transfer-Encoding", "Host",
		"Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Cookie", "Proxy-Authorization",
		"Proxy-Connection", "Expect", "Content-Encoding", "Accept-Encoding":
		return true
	}
	return false
}
