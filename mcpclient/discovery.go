package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// discovered is what a server's challenge leads to, for the grants this
// package runs itself.
type discovered struct {
	scopes []string                           // the scopes to ask for
	prm    *oauthex.ProtectedResourceMetadata // the resource's metadata (RFC 9728)
	asm    *oauthex.AuthServerMeta            // its authorization server's (RFC 8414)
}

// discover reads the challenge of resp, the server's answer to req, and
// finds the resource's metadata and its authorization server's, as the
// SDK's handlers do. It drains and closes resp's body.
func discover(ctx context.Context, req *http.Request, resp *http.Response, client *http.Client) (*discovered, error) {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return nil, fmt.Errorf("parse WWW-Authenticate: %w", err)
	}
	prm, err := discoverResource(ctx, challenges, req.URL.String(), client)
	if err != nil {
		return nil, err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], client)
	if err != nil {
		return nil, fmt.Errorf("get the authorization server's metadata: %w", err)
	}
	if asm == nil {
		return nil, fmt.Errorf("the authorization server %s publishes no metadata", prm.AuthorizationServers[0])
	}
	return &discovered{scopes: challengeScopes(challenges, prm.ScopesSupported), prm: prm, asm: asm}, nil
}

// discoverResource returns the protected-resource metadata (RFC 9728) the
// challenge names, or else the one at the well-known paths of the
// server's URL.
func discoverResource(ctx context.Context, challenges []oauthex.Challenge, server string, client *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	type candidate struct{ metadata, resource string }
	var candidates []candidate
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			candidates = append(candidates, candidate{u, server})
		}
	}
	if u, err := url.Parse(server); err == nil {
		m := *u
		m.RawQuery, m.Fragment = "", ""
		m.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
		candidates = append(candidates, candidate{m.String(), server})
		m.Path = "/.well-known/oauth-protected-resource"
		root := *u
		root.Path, root.RawQuery, root.Fragment = "", "", ""
		candidates = append(candidates, candidate{m.String(), root.String()})
	}
	var errs []error
	for _, c := range candidates {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.metadata, c.resource, client)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm, nil
		}
	}
	return nil, fmt.Errorf("find the protected-resource metadata of %s: %w", server, errors.Join(errs...))
}

// challengeScopes returns the scopes a bearer challenge asks for, or else
// those the resource supports.
func challengeScopes(challenges []oauthex.Challenge, supported []string) []string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return supported
}

// heldToken is the token source an Authorize set, for TokenSource.
type heldToken struct {
	mu sync.Mutex
	ts oauth2.TokenSource
}

// TokenSource implements auth.OAuthHandler.
func (h *heldToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ts, nil
}

func (h *heldToken) set(ts oauth2.TokenSource) {
	h.mu.Lock()
	h.ts = ts
	h.mu.Unlock()
}

// ErrOtherIssuer is matched by the error of a flow that found an
// authorization server other than the one a client registered in advance
// belongs to (OAuth.Issuer): nothing of the client's was sent to it.
var ErrOtherIssuer = errors.New("mcpclient: the authorization server is not the one the client is registered with")

// checkIssuer reports an error matching ErrOtherIssuer if the discovered
// authorization server is not bound's; an empty bound binds nothing.
func (d *discovered) checkIssuer(bound string) error {
	return checkIssuer(bound, d.asm.Issuer)
}

// checkIssuer reports an error matching ErrOtherIssuer if issuer is not
// bound, ignoring one trailing slash as the SDK does (SEP-2352); an empty
// bound binds nothing.
func checkIssuer(bound, issuer string) error {
	if bound == "" || strings.TrimSuffix(bound, "/") == strings.TrimSuffix(issuer, "/") {
		return nil
	}
	return fmt.Errorf("%w: the server's authorization server is %q, the client's is %q", ErrOtherIssuer, issuer, bound)
}
