package mcpclient

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/hands-go/hands/internal/mcpwire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// DefaultAuthorizationWait bounds how long the authorization code flow
// waits for the browser to come back to the loopback redirect when
// OAuth.Wait is zero.
const DefaultAuthorizationWait = 5 * time.Minute

// OAuth configures how a streamable HTTP transport (HTTPOptions.OAuth)
// reaches a server that answers 401 or 403 with an OAuth challenge. The
// SDK's auth package runs the protocol: protected-resource metadata
// (RFC 9728, from the challenge's resource_metadata or the well-known
// paths), authorization-server metadata (RFC 8414, then OpenID Connect
// discovery), client registration, the grant, refresh, and scope step-up
// on 403 insufficient_scope. The zero value is a person at a command line:
// the authorization code grant with PKCE, the browser opened on the
// authorization page, a loopback redirect, dynamic client registration
// (RFC 7591), and tokens kept in the user's config directory.
type OAuth struct {
	// ClientID and ClientSecret name a client registered with the
	// authorization server in advance. Empty means dynamic registration
	// (or ClientMetadataURL); ClientSecret may be empty for a public
	// client.
	ClientID     string
	ClientSecret string
	// Issuer is the issuer identifier (RFC 8414) of the authorization
	// server that ClientID is registered with, such as
	// https://auth.example.com. It is required with ClientID: a client
	// registered in advance belongs to one authorization server, and its
	// ID, secret or signed assertion is sent to that one alone. A server
	// that names another (any MCP server may name any authorization
	// server) is refused before anything is sent to it, with an error
	// that matches ErrOtherIssuer. Issuers are compared as the SDK
	// compares them, ignoring one trailing slash.
	Issuer string
	// ClientMetadataURL is the https URL of a client ID metadata
	// document describing this client: where the authorization server
	// supports such documents, the URL is the client's ID and nothing is
	// registered. Empty means none.
	ClientMetadataURL string
	// ClientName is the name registered dynamically. Empty means "hands".
	ClientName string
	// Machine selects the client credentials grant, for a program with no
	// person to ask: ClientID and ClientSecret (or ClientKey) are then
	// required, and no browser is opened.
	Machine bool
	// ClientKey, with Machine, authenticates the client with a JWT it
	// signs (private_key_jwt, RFC 7523) rather than with ClientSecret:
	// ECDSA P-256 keys sign ES256, RSA keys RS256.
	ClientKey crypto.Signer
	// Enterprise, when set, selects enterprise-managed authorization,
	// with ClientID and ClientSecret as the client's at the MCP server's
	// authorization server.
	Enterprise *Enterprise
	// Browser is given the authorization page's URL and shows it to the
	// person, who then signs in; the authorization server redirects the
	// browser to the loopback address. Nil selects OpenBrowser. Tests
	// follow the URL with an HTTP client instead.
	Browser func(ctx context.Context, authURL string) error
	// RedirectPort is the loopback port of the redirect URI
	// (http://127.0.0.1:PORT/callback). Zero picks a free port when the
	// transport is made.
	RedirectPort int
	// Wait bounds how long the flow waits for the redirect. Zero selects
	// DefaultAuthorizationWait.
	Wait time.Duration
	// Store keeps the tokens, so that a program started again does not ask
	// again. Nil selects a FileStore in the user's config directory
	// (DefaultTokenDir); NoStore keeps nothing.
	Store TokenStore
	// HTTPClient makes the requests to the authorization server. Nil
	// selects http.DefaultClient.
	HTTPClient *http.Client
}

// HTTPOptions configure HTTPWith. A nil *HTTPOptions selects every
// default: no headers, no OAuth.
type HTTPOptions struct {
	// Header is sent with every request: an Authorization header, say.
	Header http.Header
	// OAuth, when set, answers the server's OAuth challenges.
	OAuth *OAuth
	// OAuthHandler, when set, answers them instead with a handler of the
	// SDK's: extauth.EnterpriseHandler for enterprise-managed
	// authorization, say. It takes precedence over OAuth.
	OAuthHandler auth.OAuthHandler
	// HTTPClient makes the requests. Nil selects http.DefaultClient's
	// transport.
	HTTPClient *http.Client
}

// HTTPWith returns a transport to the streamable HTTP endpoint at
// endpoint, configured by opts. With OAuth set, the first request the
// server refuses runs the authorization flow once; its tokens are stored
// and used from then on, and refreshed when they expire.
// As with HTTP, no message the server sends may be larger than
// DefaultMaxMessageBytes.
func HTTPWith(endpoint string, opts *HTTPOptions) (mcp.Transport, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	next := http.DefaultTransport
	if o.HTTPClient != nil && o.HTTPClient.Transport != nil {
		next = o.HTTPClient.Transport
	}
	client := &http.Client{Transport: &mcpwire.RoundTripper{Next: next, Header: o.Header, MaxBody: DefaultMaxMessageBytes, TooLarge: tooLarge}}
	if o.HTTPClient != nil {
		client.Timeout = o.HTTPClient.Timeout
		client.CheckRedirect = o.HTTPClient.CheckRedirect
		client.Jar = o.HTTPClient.Jar
	}
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: DefaultMaxMessageBytes}
	switch {
	case o.OAuthHandler != nil:
		t.OAuthHandler = o.OAuthHandler
	case o.OAuth != nil:
		h, err := newOAuthHandler(endpoint, o.OAuth)
		if err != nil {
			return nil, err
		}
		t.OAuthHandler = h
	}
	return t, nil
}

// newOAuthHandler returns the SDK handler that o describes, behind one that
// stores its tokens.
func newOAuthHandler(endpoint string, o *OAuth) (auth.OAuthHandler, error) {
	httpClient := o.HTTPClient
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	if o.ClientID != "" && o.Issuer == "" {
		return nil, &OAuthError{Server: endpoint, Err: errors.New("a client registered in advance (ClientID) needs the Issuer it is registered with: its credentials are sent to that authorization server alone")}
	}
	if o.Enterprise != nil {
		if o.ClientID == "" || o.Enterprise.IdPTokenURL == "" || o.Enterprise.IdPClientID == "" || o.Enterprise.IDToken == nil {
			return nil, &OAuthError{Server: endpoint, Err: errors.New("enterprise-managed authorization needs ClientID, IdPTokenURL, IdPClientID and IDToken")}
		}
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: o.Issuer}
		if o.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		return &enterpriseHandler{e: *o.Enterprise, creds: creds, client: httpClient}, nil
	}
	if o.Machine {
		if o.ClientID != "" && o.ClientKey != nil {
			h, err := newKeyCredentials(o.ClientID, o.Issuer, o.ClientKey, httpClient)
			if err != nil {
				return nil, &OAuthError{Server: endpoint, Err: err}
			}
			return h, nil
		}
		if o.ClientID == "" || o.ClientSecret == "" {
			return nil, &OAuthError{Server: endpoint, Err: errors.New("the client credentials grant needs ClientID and ClientSecret or ClientKey")}
		}
		h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: o.Issuer, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}},
			HTTPClient:  httpClient,
		})
		if err != nil {
			return nil, &OAuthError{Server: endpoint, Err: err}
		}
		return h, nil
	}
	store := o.Store
	if store == nil {
		dir, err := DefaultTokenDir()
		if err != nil {
			return nil, &OAuthError{Server: endpoint, Err: err}
		}
		store = &FileStore{Dir: dir}
	}
	port := o.RedirectPort
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return nil, &OAuthError{Server: endpoint, Err: err}
		}
	}
	l := &loopback{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), browser: o.Browser, wait: o.Wait}
	if l.browser == nil {
		l.browser = OpenBrowser
	}
	if l.wait == 0 {
		l.wait = DefaultAuthorizationWait
	}
	redirect := "http://" + l.addr + "/callback"
	st := &storing{store: store, key: endpoint, client: httpClient}
	discovery := &legacyDiscovery{next: httpClient.Transport}
	if discovery.next == nil {
		discovery.next = http.DefaultTransport
	}
	sdkClient := *httpClient
	sdkClient.Transport = discovery
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: l.fetch,
		Client:                   &sdkClient,
		NewTokenSource:           st.newTokenSource,
		RequestRefreshToken:      true,
	}
	if o.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientMetadataURL}
	}
	if o.ClientID != "" {
		creds := &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: o.Issuer}
		if o.ClientSecret != "" {
			creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = creds
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:  []string{redirect},
			ClientName:    nameOr(o.ClientName, "hands"),
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
		}}
	}
	stored, err := st.initial()
	if err != nil {
		return nil, &OAuthError{Server: endpoint, Err: err}
	}
	cfg.InitialTokenSource = stored
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, &OAuthError{Server: endpoint, Err: err}
	}
	return &legacyHandler{sdk: h, cfg: cfg, discovery: discovery}, nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// OpenBrowser opens url in the system's browser: xdg-open on Linux and the
// BSDs, open on macOS, rundll32 on Windows.
func OpenBrowser(ctx context.Context, url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", url)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", url)
	}
	return cmd.Start()
}

// loopback receives the authorization server's redirect on a loopback
// address (RFC 8252, section 7.3), one flow at a time.
type loopback struct {
	addr    string
	browser func(context.Context, string) error
	wait    time.Duration
	mu      sync.Mutex
}

// fetch is the SDK's AuthorizationCodeFetcher: it listens on the loopback
// address, has the browser open the authorization page and returns what
// the redirect brings. The listener lives only while it waits.
func (l *loopback) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the redirect: %w", err)
	}
	// Anything that reaches the port may send a redirect, a web page in
	// the person's browser among them: one without the state sent is not
	// this authorization's, and is refused without ending the wait, lest
	// any page could end a sign-in.
	var state string
	if u, err := url.Parse(args.URL); err == nil {
		state = u.Query().Get("state")
	}
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if state != "" && q.Get("state") != state {
			http.Error(w, "This is not the redirect of the authorization under way.", http.StatusBadRequest)
			return
		}
		select {
		case got <- q:
		default: // a second redirect; the first one counts
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "<p>Authorization failed: %s. You may close this window.</p>", html.EscapeString(e))
			return
		}
		fmt.Fprint(w, "<p>Authorized. You may close this window.</p>")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, l.wait)
	defer cancel()
	if err := l.browser(ctx, args.URL); err != nil {
		return nil, fmt.Errorf("open the authorization page: %w", err)
	}
	select {
	case q := <-got:
		if e := q.Get("error"); e != "" {
			return nil, &AuthorizationError{Code: e, Description: q.Get("error_description"), Err: ErrAuthorization}
		}
		if q.Get("code") == "" {
			return nil, &AuthorizationError{Code: "invalid_request", Description: "the redirect carries no code", Err: ErrAuthorization}
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the authorization redirect: %w", ctx.Err())
	}
}

// storing keeps the tokens of one server in a TokenStore.
type storing struct {
	store  TokenStore
	key    string
	client *http.Client
}

// initial returns a token source over the stored tokens, which refreshes
// them as the flow that got them would, or nil if none are stored.
func (s *storing) initial() (oauth2.TokenSource, error) {
	rec, err := s.store.Load(context.Background(), s.key)
	if err != nil || rec == nil || rec.Token == nil {
		return nil, err
	}
	cfg := &oauth2.Config{
		ClientID:     rec.ClientID,
		ClientSecret: rec.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: rec.TokenURL, AuthStyle: oauth2.AuthStyle(rec.AuthStyle)},
		Scopes:       rec.Scopes,
	}
	return s.newTokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, s.client), cfg, rec.Token)
}

// newTokenSource is the SDK's NewTokenSource: the usual refreshing source,
// behind one that stores each new token with what refreshing it takes.
func (s *storing) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	rec := StoredToken{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		TokenURL:     cfg.Endpoint.TokenURL,
		AuthStyle:    int(cfg.Endpoint.AuthStyle),
		Scopes:       cfg.Scopes,
	}
	ss := &savingSource{next: oauth2.ReuseTokenSource(tok, cfg.TokenSource(ctx, tok)), s: s, rec: rec}
	if err := ss.save(tok); err != nil {
		return nil, err
	}
	return ss, nil
}

// savingSource stores each token its source hands out that it has not
// stored yet.
type savingSource struct {
	next oauth2.TokenSource
	s    *storing
	rec  StoredToken
	mu   sync.Mutex
	last string // the access token stored last
}

func (ss *savingSource) Token() (*oauth2.Token, error) {
	tok, err := ss.next.Token()
	if err != nil {
		return nil, err
	}
	if err := ss.save(tok); err != nil {
		return nil, err
	}
	return tok, nil
}

func (ss *savingSource) save(tok *oauth2.Token) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if tok.AccessToken == ss.last {
		return nil
	}
	rec := ss.rec
	rec.Token = tok
	if err := ss.s.store.Save(context.Background(), ss.s.key, &rec); err != nil {
		return fmt.Errorf("store the tokens: %w", err)
	}
	ss.last = tok.AccessToken
	return nil
}
