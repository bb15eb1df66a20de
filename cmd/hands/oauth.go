package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamAuth is how serve signs in to the upstreams at http(s) URLs
// that answer with an OAuth challenge: the first time, a person signs in
// in the browser (or, with the client credentials grant, no one does);
// the tokens are stored in the user's config directory and used, and
// refreshed, from then on.
type upstreamAuth struct {
	clientID     string      // HANDS_OAUTH_CLIENT_ID; empty: dynamic registration
	issuer       string      // HANDS_OAUTH_ISSUER: the one authorization server clientID is sent to
	clientSecret bind.Secret // HANDS_OAUTH_CLIENT_SECRET
	grant        string      // HANDS_OAUTH_GRANT
	stderr       io.Writer   // where the sign-in page's address is written
	// browser opens the sign-in page; nil selects mcpclient.OpenBrowser.
	// Tests set it.
	browser func(ctx context.Context, url string) error
	// store keeps the tokens; nil selects mcpclient's default FileStore.
	store mcpclient.TokenStore
}

// The values of HANDS_OAUTH_GRANT.
const (
	grantAuthorizationCode = "authorization_code"
	grantClientCredentials = "client_credentials"
)

// transport returns the transport to the upstream at url.
func (a *upstreamAuth) transport(url string) (mcp.Transport, error) {
	o := &mcpclient.OAuth{
		ClientID:     a.clientID,
		Issuer:       a.issuer,
		ClientSecret: a.clientSecret.Reveal(),
		Machine:      a.grant == grantClientCredentials,
		Store:        a.store,
		Browser: func(ctx context.Context, authURL string) error {
			fmt.Fprintf(a.stderr, "hands: sign in to the upstream %s at %s\n", url, authURL)
			open := a.browser
			if open == nil {
				open = mcpclient.OpenBrowser
			}
			if err := open(ctx, authURL); err != nil {
				fmt.Fprintln(a.stderr, "hands: could not open a browser; open the address above:", err)
			}
			return nil // the person may open the address by hand; the flow waits for the redirect
		},
	}
	return mcpclient.HTTPWith(url, &mcpclient.HTTPOptions{OAuth: o})
}
