package mcpclient

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
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
// the SDK's flow reads. The SDK's handler refuses every such
// issuer, so legacyHandler runs the flow itself in that one case and
// leaves every other case to the SDK.

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

// legacyHandler is the SDK's authorization code handler, which it calls
// for everything but the case the comment above describes.
type legacyHandler struct {
	sdk *auth.AuthorizationCodeHandler
	cfg *auth.AuthorizationCodeHandlerConfig // the SDK handler's

	mu      sync.Mutex
	ts      oauth2.TokenSource // from the flow run here, until the SDK's runs again
	granted []string           // the scopes granted by the flow run here
}

// TokenSource implements auth.OAuthHandler.
func (h *legacyHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	ts := h.ts
	h.mu.Unlock()
	if ts != nil {
		return ts, nil
	}
	return h.sdk.TokenSource(ctx)
}

// Authorize implements auth.OAuthHandler.
func (h *legacyHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil || resp.StatusCode == http.StatusForbidden && !insufficientScope(challenges) {
		return h.viaSDK(ctx, req, resp) // the SDK's answers: an error, or a retry
	}
	server := req.URL.String()
	if _, err := discoverResource(ctx, challenges, server, h.cfg.Client); err == nil {
		return h.viaSDK(ctx, req, resp)
	}
	asm, err := legacyMetadata(ctx, req.URL, h.cfg.Client)
	if err != nil {
		resp.Body.Close()
		return err
	}
	if asm == nil {
		return h.viaSDK(ctx, req, resp) // none, or an issuer the SDK takes
	}
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	return h.authorize(ctx, server, challenges, asm)
}

// viaSDK runs the SDK's flow, whose tokens are used from then on.
func (h *legacyHandler) viaSDK(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := h.sdk.Authorize(ctx, req, resp); err != nil {
		return err
	}
	h.mu.Lock()
	h.ts, h.granted = nil, nil
	h.mu.Unlock()
	return nil
}

// legacyMetadata reads the authorization-server metadata at the root of
// the origin of server, the way of the 2025-03-26 protocol, and returns
// it when its issuer is not the root itself but lies on the same origin.
// It returns nil when there is no metadata there, or when its issuer is
// the root, which the SDK takes; an *IssuerError when the issuer lies on
// another origin.
func legacyMetadata(ctx context.Context, server *url.URL, client *http.Client) (*oauthex.AuthServerMeta, error) {
	if server.Scheme != "https" && !loopbackHost(server.Hostname()) {
		return nil, nil // the SDK refuses to read metadata over plain HTTP
	}
	root := &url.URL{Scheme: server.Scheme, Host: server.Host}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		metadataURL := root.JoinPath(path).String()
		issuer, err := metadataIssuer(ctx, metadataURL, client)
		if err != nil {
			return nil, fmt.Errorf("read the authorization server's metadata at %s: %w", metadataURL, err)
		}
		if issuer == "" {
			continue // none here
		}
		if strings.TrimSuffix(issuer, "/") == root.String() {
			return nil, nil
		}
		iu, err := url.Parse(issuer)
		if err != nil || !sameOrigin(iu, server) {
			return nil, &IssuerError{Server: server.String(), MetadataURL: metadataURL, Issuer: issuer, Err: ErrForeignIssuer}
		}
		// The SDK's checks of the document (PKCE, the endpoints' schemes),
		// on the issuer it names.
		asm, err := oauthex.GetAuthServerMeta(ctx, metadataURL, issuer, client)
		if err != nil {
			return nil, fmt.Errorf("the authorization server's metadata at %s: %w", metadataURL, err)
		}
		if asm == nil {
			return nil, fmt.Errorf("the authorization server's metadata at %s went away", metadataURL)
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
				return nil, &EndpointError{Server: server.String(), MetadataURL: metadataURL, Name: e.name, Endpoint: e.url, Err: ErrForeignEndpoint}
			}
		}
		return asm, nil
	}
	return nil, nil
}

// metadataIssuer returns the issuer of the metadata at metadataURL, or ""
// when the server answers with a client error (it has none there).
func metadataIssuer(ctx context.Context, metadataURL string, client *http.Client) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metadataURL, nil)
	if err != nil {
		return "", err
	}
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noRedirects.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return "", nil
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %s", resp.Status)
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "", fmt.Errorf("content type %q, not application/json", resp.Header.Get("Content-Type"))
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&doc); err != nil {
		return "", err
	}
	if doc.Issuer == "" {
		return "", errors.New("the metadata names no issuer")
	}
	return doc.Issuer, nil
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

// authorize runs the authorization code grant with PKCE against asm, as
// the SDK's handler does once it has the metadata: the client registered
// as configured, the scopes of the challenge (with offline_access when
// refresh tokens are wanted and the server offers it, and those granted
// before), the resource named (RFC 8707), the redirect's state and issuer
// checked (RFC 9207).
func (h *legacyHandler) authorize(ctx context.Context, server string, challenges []oauthex.Challenge, asm *oauthex.AuthServerMeta) error {
	cfg, err := h.client(ctx, asm)
	if err != nil {
		return err
	}
	scopes := challengeScopes(challenges, nil)
	if h.cfg.ScopeFilter != nil {
		scopes = h.cfg.ScopeFilter(scopes)
	}
	if h.cfg.RequestRefreshToken && slices.Contains(asm.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	h.mu.Lock()
	for _, s := range h.granted {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	h.mu.Unlock()
	cfg.Scopes = scopes

	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", server))
	res, err := h.cfg.AuthorizationCodeFetcher(ctx, &auth.AuthorizationArgs{URL: authURL})
	if err != nil {
		return err
	}
	if res.State != state {
		return errors.New("the authorization redirect's state is not the one sent")
	}
	switch {
	case res.Iss == "" && asm.AuthorizationResponseIssParameterSupported:
		return errors.New("the authorization redirect names no issuer, though the server says it does")
	case res.Iss != "" && res.Iss != asm.Issuer:
		return fmt.Errorf("the authorization redirect names the issuer %q, not %q", res.Iss, asm.Issuer)
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.cfg.Client), res.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", server))
	if err != nil {
		return fmt.Errorf("exchange the authorization code: %w", err)
	}
	// The source outlives ctx, the request's: it refreshes for the
	// session's life.
	refresh := context.WithValue(context.Background(), oauth2.HTTPClient, h.cfg.Client)
	var ts oauth2.TokenSource
	if h.cfg.NewTokenSource != nil {
		if ts, err = h.cfg.NewTokenSource(refresh, cfg, tok); err != nil {
			return err
		}
	} else {
		ts = cfg.TokenSource(refresh, tok)
	}
	h.mu.Lock()
	h.ts, h.granted = ts, scopes
	h.mu.Unlock()
	return nil
}

// client returns the OAuth configuration of this client at asm, by the
// SDK's order: a client ID metadata document where the server supports
// one, else the client registered in advance, else dynamic registration.
func (h *legacyHandler) client(ctx context.Context, asm *oauthex.AuthServerMeta) (*oauth2.Config, error) {
	cfg := &oauth2.Config{
		RedirectURL: h.cfg.RedirectURL,
		Endpoint:    oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint},
	}
	switch {
	case h.cfg.ClientIDMetadataDocumentConfig != nil && asm.ClientIDMetadataDocumentSupported:
		cfg.ClientID = h.cfg.ClientIDMetadataDocumentConfig.URL
	case h.cfg.PreregisteredClient != nil:
		if err := checkIssuer(h.cfg.PreregisteredClient.Issuer, asm.Issuer); err != nil {
			return nil, err
		}
		cfg.ClientID = h.cfg.PreregisteredClient.ClientID
		if a := h.cfg.PreregisteredClient.ClientSecretAuth; a != nil {
			cfg.ClientSecret = a.ClientSecret
		}
		switch methods := asm.TokenEndpointAuthMethodsSupported; {
		case slices.Contains(methods, "client_secret_post"):
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		case slices.Contains(methods, "client_secret_basic"):
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader
		}
	case h.cfg.DynamicClientRegistrationConfig != nil && asm.RegistrationEndpoint != "":
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, h.cfg.DynamicClientRegistrationConfig.Metadata, h.cfg.Client)
		if err != nil {
			return nil, fmt.Errorf("register the client: %w", err)
		}
		cfg.ClientID, cfg.ClientSecret = reg.ClientID, reg.ClientSecret
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInHeader // client_secret_basic, RFC 7591's default
		if m := reg.TokenEndpointAuthMethod; m == "client_secret_post" || m == "none" {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		}
	default:
		return nil, errors.New("the authorization server supports none of the client's ways to register")
	}
	return cfg, nil
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
