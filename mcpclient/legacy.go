package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Servers of the 2025-03-26 protocol publish no protected-resource
// metadata: the MCP server's origin is its own authorization server, and
// the client reads that server's metadata at the root of the origin
// (/.well-known/oauth-authorization-server). Some of them name, in that
// metadata, an issuer under a path of the origin (https://mcp.example/oauth,
// say). RFC 8414, section 3.3, has the client refuse metadata whose issuer
// is not the one the metadata's URL was made from, which is the defence
// against mix-up: an attacker's metadata cannot pass for another server's.
// Here the URL was not made from an issuer at all, but from the MCP
// server's own URL, so the issuer the metadata names is the only one there
// is; it is taken when it lies on the MCP server's origin, which serves
// the metadata and is trusted with the token anyway, and refused
// otherwise (an *IssuerError). For the same reason the endpoints the flow
// sends anything to, the authorization, token and registration
// endpoints, must lie on that origin too (an *EndpointError): nothing but
// the origin's own document names them, so an endpoint elsewhere would
// get the code, its PKCE verifier and a client secret configured for this
// server on that document's word alone; an authorization server on
// another origin declares itself in protected-resource metadata, which
// the SDK's flow reads. The SDK's handler refuses every such issuer: it
// takes the root of the origin as the issuer, and metadata naming another
// fails its RFC 8414 check. So in that one case, once the issuer and the
// endpoints have passed the checks here, the client shows the SDK the
// server as a later protocol would publish it — protected-resource
// metadata naming that issuer, and the issuer's metadata at the URL RFC
// 8414 derives from it — and the SDK runs the flow, as in every other
// case. There is one authorization-code flow, the SDK's, with its checks
// of the redirect's issuer (RFC 9207), of a client registered in advance
// for another issuer, and its scopes granted per issuer.

// ErrForeignIssuer is matched by an *IssuerError.
var ErrForeignIssuer = errors.New("mcpclient: authorization server metadata names an issuer of another origin")

// An IssuerError reports authorization-server metadata, found at the root
// of an MCP server of the 2025-03-26 protocol (which publishes no
// protected-resource metadata), whose issuer lies outside the MCP server's
// origin.
type IssuerError struct {
	Server      string // the MCP server's URL
	MetadataURL string // where the metadata was read
	Issuer      string // the issuer it names
	Err         error  // ErrForeignIssuer
}

// Error names the metadata and the issuer.
func (e *IssuerError) Error() string {
	return fmt.Sprintf("%v: %s names the issuer %q, not of the origin of %s", e.Err, e.MetadataURL, e.Issuer, e.Server)
}

// Unwrap returns Err.
func (e *IssuerError) Unwrap() error { return e.Err }

// ErrForeignEndpoint is matched by an *EndpointError.
var ErrForeignEndpoint = errors.New("mcpclient: authorization server metadata names an endpoint of another origin")

// An EndpointError reports authorization-server metadata, taken as an
// *IssuerError describes, that names an endpoint the client would send
// to (authorization, token or registration) outside the MCP server's
// origin.
type EndpointError struct {
	Server      string // the MCP server's URL
	MetadataURL string // where the metadata was read
	Name        string // the endpoint's member, token_endpoint say
	Endpoint    string // the URL it names
	Err         error  // ErrForeignEndpoint
}

// Error names the metadata and the endpoint.
func (e *EndpointError) Error() string {
	return fmt.Sprintf("%v: %s names the %s %q, not of the origin of %s", e.Err, e.MetadataURL, e.Name, e.Endpoint, e.Server)
}

// Unwrap returns Err.
func (e *EndpointError) Unwrap() error { return e.Err }

// maxMetadataBytes bounds an authorization server's metadata document, as
// the SDK bounds it.
const maxMetadataBytes = 1 << 20

// legacyHandler is the SDK's authorization code handler, to which it
// leaves every flow; for a server of the 2025-03-26 protocol whose issuer
// lies under a path of its origin, it first shows the SDK's
// client the metadata the SDK reads (see legacyDiscovery).
type legacyHandler struct {
	sdk       *auth.AuthorizationCodeHandler
	cfg       *auth.AuthorizationCodeHandlerConfig // the SDK handler's
	discovery *legacyDiscovery                     // in cfg.Client's transport
}

// TokenSource implements auth.OAuthHandler.
func (h *legacyHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	return h.sdk.TokenSource(ctx)
}

// Authorize implements auth.OAuthHandler.
func (h *legacyHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil || resp.StatusCode == http.StatusForbidden && !insufficientScope(challenges) {
		return h.sdk.Authorize(ctx, req, resp) // the SDK's answers: an error, or a retry
	}
	server := req.URL.String()
	if _, err := discoverResource(ctx, challenges, server, h.cfg.Client); err == nil {
		return h.sdk.Authorize(ctx, req, resp)
	}
	asm, doc, err := legacyMetadata(ctx, req.URL, h.cfg.Client)
	if err != nil {
		resp.Body.Close()
		return err
	}
	if asm != nil {
		h.discovery.publish(req.URL, asm.Issuer, doc)
	}
	return h.sdk.Authorize(ctx, req, resp)
}

// legacyDiscovery is the transport of the SDK handler's client. For a
// server of the 2025-03-26 protocol whose issuer passed legacyMetadata's
// checks, it answers the two requests the SDK's discovery makes that such
// a server cannot: the protected-resource metadata at the path of the MCP
// endpoint (RFC 9728), naming the issuer, and the issuer's metadata at its
// RFC 8414 URL (path insertion), which is the document the server serves
// at the root of its origin, as it was read and checked. Every other
// request goes to next.
type legacyDiscovery struct {
	next http.RoundTripper

	mu   sync.Mutex
	docs map[string][]byte // URL → the JSON document answered there
}

// publish makes the transport answer for the server at u, whose
// authorization server's metadata, doc, names issuer.
func (d *legacyDiscovery) publish(u *url.URL, issuer string, doc []byte) {
	resource := *u
	resource.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	resource.RawPath, resource.RawQuery, resource.Fragment = "", "", ""
	prm, _ := json.Marshal(map[string]any{"resource": u.String(), "authorization_servers": []string{issuer}})
	meta, err := url.Parse(issuer)
	if err != nil {
		return // legacyMetadata parsed it
	}
	meta.Path = "/.well-known/oauth-authorization-server/" + strings.TrimLeft(meta.Path, "/")
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.docs == nil {
		d.docs = make(map[string][]byte)
	}
	d.docs[resource.String()] = prm
	d.docs[meta.String()] = doc
}

// RoundTrip implements http.RoundTripper.
func (d *legacyDiscovery) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet {
		d.mu.Lock()
		doc, ok := d.docs[req.URL.String()]
		d.mu.Unlock()
		if ok {
			return &http.Response{
				Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header:        http.Header{"Content-Type": {"application/json"}},
				Body:          io.NopCloser(bytes.NewReader(doc)),
				ContentLength: int64(len(doc)),
				Request:       req,
			}, nil
		}
	}
	return d.next.RoundTrip(req)
}

// legacyMetadata reads the authorization-server metadata at the root of
// the origin of server, the way of the 2025-03-26 protocol, and returns
// it, with the document as it was read, when its issuer is not the root
// itself but lies on the same origin. It returns nil when there is no
// metadata there, or when its issuer is the root, which the SDK takes; an
// *IssuerError when the issuer lies on another origin, and an
// *EndpointError when an endpoint does.
func legacyMetadata(ctx context.Context, server *url.URL, client *http.Client) (*oauthex.AuthServerMeta, []byte, error) {
	if server.Scheme != "https" && !loopbackHost(server.Hostname()) {
		return nil, nil, nil // the SDK refuses to read metadata over plain HTTP
	}
	root := &url.URL{Scheme: server.Scheme, Host: server.Host}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		metadataURL := root.JoinPath(path).String()
		issuer, doc, err := metadataIssuer(ctx, metadataURL, client)
		if err != nil {
			return nil, nil, fmt.Errorf("read the authorization server's metadata at %s: %w", metadataURL, err)
		}
		if issuer == "" {
			continue // none here
		}
		if strings.TrimSuffix(issuer, "/") == root.String() {
			return nil, nil, nil
		}
		iu, err := url.Parse(issuer)
		if err != nil || !sameOrigin(iu, server) {
			return nil, nil, &IssuerError{Server: server.String(), MetadataURL: metadataURL, Issuer: issuer, Err: ErrForeignIssuer}
		}
		// The SDK checks the document (PKCE, the endpoints' schemes) when
		// it reads it from legacyDiscovery, which serves these very bytes.
		asm := new(oauthex.AuthServerMeta)
		if err := json.Unmarshal(doc, asm); err != nil {
			return nil, nil, fmt.Errorf("the authorization server's metadata at %s: %w", metadataURL, err)
		}
		for _, e := range []struct{ name, url string }{
			{"authorization_endpoint", asm.AuthorizationEndpoint},
			{"token_endpoint", asm.TokenEndpoint},
			{"registration_endpoint", asm.RegistrationEndpoint},
		} {
			if e.url == "" {
				continue // none: the flow refuses a missing one it needs
			}
			if eu, err := url.Parse(e.url); err != nil || !sameOrigin(eu, server) {
				return nil, nil, &EndpointError{Server: server.String(), MetadataURL: metadataURL, Name: e.name, Endpoint: e.url, Err: ErrForeignEndpoint}
			}
		}
		return asm, doc, nil
	}
	return nil, nil, nil
}

// metadataIssuer returns the issuer of the metadata at metadataURL, with
// the document, or "" when the server answers with a client error (it has
// none there).
func metadataIssuer(ctx context.Context, metadataURL string, client *http.Client) (string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metadataURL, nil)
	if err != nil {
		return "", nil, err
	}
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noRedirects.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return "", nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("status %s", resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "", nil, fmt.Errorf("content type %q, not application/json", resp.Header.Get("Content-Type"))
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return "", nil, err
	}
	if len(doc) > maxMetadataBytes {
		return "", nil, fmt.Errorf("the metadata is over %d bytes", maxMetadataBytes)
	}
	var head struct {
		Issuer string `json:"issuer"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return "", nil, err
	}
	if head.Issuer == "" {
		return "", nil, errors.New("the metadata names no issuer")
	}
	return head.Issuer, doc, nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), the default port of the scheme standing for none. A URL
// with userinfo is of no origin a client sends to: the token endpoint's
// client would send it as credentials, and a reader sees its host first.
func sameOrigin(a, b *url.URL) bool {
	if a.User != nil || b.User != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// insufficientScope reports whether a bearer challenge says the token
// lacks a scope (a step-up).
func insufficientScope(challenges []oauthex.Challenge) bool {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}
