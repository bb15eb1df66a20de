package mcpclient

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// assertionLifetime is how long a client assertion is valid: one token
// request's worth.
const assertionLifetime = 2 * time.Minute

// keyCredentials is the client credentials grant with the client
// authenticated by a signed JWT (private_key_jwt, RFC 7523 section 2.2),
// which the SDK's handlers do not offer. Discovery is the SDK's.
type keyCredentials struct {
	clientID string
	issuer   string // the authorization server's, the only one the assertion goes to
	key      crypto.Signer
	alg      string
	client   *http.Client

	heldToken
}

func newKeyCredentials(clientID, issuer string, key crypto.Signer, client *http.Client) (*keyCredentials, error) {
	var alg string
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, errors.New("an ECDSA client key must be on P-256 (ES256)")
		}
		alg = "ES256"
	case *rsa.PublicKey:
		alg = "RS256"
	default:
		return nil, fmt.Errorf("a client key of type %T cannot sign a client assertion; use ECDSA P-256 or RSA", k)
	}
	return &keyCredentials{clientID: clientID, issuer: issuer, key: key, alg: alg, client: client}, nil
}

// Authorize implements auth.OAuthHandler: it finds the authorization
// server from the challenge and gets a token.
func (h *keyCredentials) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	d, err := discover(ctx, req, resp, h.client)
	if err != nil {
		return err
	}
	if err := d.checkIssuer(h.issuer); err != nil {
		return err
	}
	ts := oauth2.ReuseTokenSource(nil, &assertingSource{h: h, tokenURL: d.asm.TokenEndpoint, audience: d.asm.Issuer, scopes: d.scopes, resource: d.prm.Resource})
	if _, err := ts.Token(); err != nil {
		return fmt.Errorf("client credentials token request: %w", err)
	}
	h.set(ts)
	return nil
}

// assertingSource asks for a token with a fresh client assertion each
// time.
type assertingSource struct {
	h                            *keyCredentials
	tokenURL, audience, resource string
	scopes                       []string
}

func (s *assertingSource) Token() (*oauth2.Token, error) {
	assertion, err := s.h.assertion(s.audience)
	if err != nil {
		return nil, err
	}
	params := url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
	}
	if s.resource != "" {
		params.Set("resource", s.resource)
	}
	cfg := &clientcredentials.Config{ClientID: s.h.clientID, TokenURL: s.tokenURL, Scopes: s.scopes, EndpointParams: params, AuthStyle: oauth2.AuthStyleInParams}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.h.client)
	return cfg.Token(ctx)
}

// assertion returns a JWT naming the client as issuer and subject, for the
// authorization server named by audience, signed with the client's key.
func (h *keyCredentials) assertion(audience string) (string, error) {
	now := time.Now()
	header, _ := json.Marshal(map[string]string{"alg": h.alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": h.clientID, "sub": h.clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(assertionLifetime).Unix(), "jti": rand.Text(),
	})
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := h.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	if h.alg == "ES256" { // JWS wants r||s, not ASN.1 (RFC 7518, section 3.4)
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(sig, &rs); err != nil {
			return "", fmt.Errorf("sign the client assertion: %w", err)
		}
		sig = make([]byte, 64)
		rs.R.FillBytes(sig[:32])
		rs.S.FillBytes(sig[32:])
	}
	return signed + "." + enc.EncodeToString(sig), nil
}
