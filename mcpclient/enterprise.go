package mcpclient

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Enterprise configures enterprise-managed authorization (the MCP
// extension of SEP-990, "cross-app access"): the person's ID token from
// the organization's identity provider is exchanged there (RFC 8693) for
// an identity assertion grant, which the MCP server's authorization
// server takes for an access token (the JWT bearer grant, RFC 7523). No
// browser opens. The SDK's extauth.EnterpriseHandler does the same from
// the provider's discovery document, when it has one that hands can use.
type Enterprise struct {
	// IdPTokenURL is the identity provider's token endpoint.
	IdPTokenURL string
	// IdPClientID and IdPClientSecret identify hands to the identity
	// provider; the secret may be empty.
	IdPClientID     string
	IdPClientSecret string
	// IDToken returns the person's ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
}

// enterpriseHandler is the auth.OAuthHandler of Enterprise. The client's
// own ID and secret at the MCP authorization server are OAuth's.
type enterpriseHandler struct {
	e      Enterprise
	creds  *oauthex.ClientCredentials
	client *http.Client

	heldToken
}

func (h *enterpriseHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	d, err := discover(ctx, req, resp, h.client)
	if err != nil {
		return err
	}
	if err := d.checkIssuer(h.creds.Issuer); err != nil {
		return err
	}
	idToken, err := h.e.IDToken(ctx)
	if err != nil {
		return fmt.Errorf("get the ID token: %w", err)
	}
	idp := &oauthex.ClientCredentials{ClientID: h.e.IdPClientID}
	if h.e.IdPClientSecret != "" {
		idp.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.e.IdPClientSecret}
	}
	grant, err := oauthex.ExchangeToken(ctx, h.e.IdPTokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           d.asm.Issuer,
		Resource:           d.prm.Resource,
		Scope:              d.scopes,
		SubjectToken:       idToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, idp, h.client)
	if err != nil {
		return fmt.Errorf("exchange the ID token at the identity provider: %w", err)
	}
	cfg := &oauth2.Config{ClientID: h.creds.ClientID, Endpoint: oauth2.Endpoint{TokenURL: d.asm.TokenEndpoint, AuthStyle: oauth2.AuthStyleInHeader}}
	if h.creds.ClientSecretAuth != nil {
		cfg.ClientSecret = h.creds.ClientSecretAuth.ClientSecret
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.client), "",
		oauth2.SetAuthURLParam("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
		oauth2.SetAuthURLParam("assertion", grant.AccessToken))
	if err != nil {
		return fmt.Errorf("JWT bearer grant: %w", err)
	}
	h.set(oauth2.StaticTokenSource(tok)) // at its expiry, the server's 401 runs this again
	return nil
}
