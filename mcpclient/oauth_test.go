package mcpclient_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/oauthtest"
	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"golang.org/x/oauth2"
)

func connectOAuth(t *testing.T, endpoint string, o *mcpclient.OAuth) (*mcpclient.Client, error) {
	t.Helper()
	transport, err := mcpclient.HTTPWith(endpoint, &mcpclient.HTTPOptions{OAuth: o})
	if err != nil {
		t.Fatalf("HTTPWith(%s) = %v", endpoint, err)
	}
	c, err := mcpclient.Connect(t.Context(), transport, nil)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// callWrite calls the guarded server's tool, which needs the write scope.
func callWrite(t *testing.T, c *mcpclient.Client) {
	t.Helper()
	reg, err := tool.NewRegistry(&tool.Scope{Name: "guarded", Tools: c.Tools()})
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Run(t.Context(), reg, tool.Call{Name: "write", Args: json.RawMessage(`{}`)})
	if res.IsError || res.Content != "written" {
		t.Fatalf("calling write = %q (error %v), want %q", res.Content, res.Err, "written")
	}
}

// TestOAuthAuthorizationCode reaches a guarded server as a person at a
// command line would: discovery, dynamic registration, PKCE, the loopback
// redirect, then scope step-up for a call that needs more, and tokens that
// a second run finds in the store.
func TestOAuthAuthorizationCode(t *testing.T) {
	for _, tt := range []struct {
		name      string
		configure func(*oauthtest.Server)
	}{
		{name: "well-known metadata"},
		{name: "resource metadata named by the challenge", configure: func(a *oauthtest.Server) { a.PRMInWWW = true }},
		{name: "OpenID Connect discovery", configure: func(a *oauthtest.Server) { a.OIDCOnly = true }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := oauthtest.New(t, tt.configure)
			store := &mcpclient.FileStore{Dir: filepath.Join(t.TempDir(), "tokens")}
			var b oauthtest.Browser
			c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: store})
			if err != nil {
				t.Fatalf("Connect = %v", err)
			}
			if got := b.Count(); got != 1 {
				t.Errorf("the browser opened %d pages to connect, want 1", got)
			}
			callWrite(t, c) // needs write: 403 insufficient_scope, a second authorization
			if got := b.Count(); got != 2 {
				t.Errorf("the browser opened %d pages after the step-up, want 2", got)
			}
			a.Mu.Lock()
			authorized := slices.Clone(a.Authorized)
			a.Mu.Unlock()
			if len(authorized) != 2 || !slices.Contains(authorized[0], "read") || !slices.Contains(authorized[1], "read") || !slices.Contains(authorized[1], "write") {
				t.Errorf("scopes asked for = %q, want [read] then [read write]", authorized)
			}

			// The tokens are in the store, for the owner alone.
			entries, err := os.ReadDir(store.Dir)
			if err != nil || len(entries) != 1 {
				t.Fatalf("the store holds %v (%v), want one file", entries, err)
			}
			info, _ := entries[0].Info()
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Errorf("the token file has mode %v, want 0600", perm)
			}

			// A second run uses the stored tokens and asks nobody.
			refuse := func(context.Context, string) error { return errors.New("the browser must not open") }
			c2, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: refuse, Store: store})
			if err != nil {
				t.Fatalf("Connect with stored tokens = %v", err)
			}
			callWrite(t, c2)
		})
	}
}

// TestOAuthLegacyIssuer reaches servers of the 2025-03-26 protocol, which
// publish no protected-resource metadata and serve their authorization
// server's metadata at the root of their origin: an issuer under a path
// of that origin is taken (the flow, step-up included, runs against its
// endpoints), and one of another origin is refused before the browser
// opens, with an *IssuerError.
func TestOAuthLegacyIssuer(t *testing.T) {
	t.Run("same origin", func(t *testing.T) {
		a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy = true })
		var b oauthtest.Browser
		c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
		if err != nil {
			t.Fatalf("Connect = %v", err)
		}
		callWrite(t, c) // needs write: 403 insufficient_scope, a second authorization
		a.Mu.Lock()
		authorized := slices.Clone(a.Authorized)
		a.Mu.Unlock()
		if b.Count() != 2 || len(authorized) != 2 || !slices.Contains(authorized[1], "read") || !slices.Contains(authorized[1], "write") {
			t.Errorf("%d pages opened, scopes asked for = %q; want 2, [read] then [read write]", b.Count(), authorized)
		}
	})
	t.Run("another origin", func(t *testing.T) {
		a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy, a.ForeignIssuer = true, true })
		var b oauthtest.Browser
		_, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
		ierr, ok := errors.AsType[*mcpclient.IssuerError](err)
		if !ok || !errors.Is(err, mcpclient.ErrForeignIssuer) || ierr.Issuer != a.AS.URL {
			t.Fatalf("Connect = %v, want an *IssuerError naming %s", err, a.AS.URL)
		}
		if b.Count() != 0 {
			t.Errorf("the browser opened %d pages, want none", b.Count())
		}
	})
	t.Run("an endpoint on another origin", func(t *testing.T) {
		a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy, a.ForeignEndpoint = true, true })
		var b oauthtest.Browser
		_, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
		eerr, ok := errors.AsType[*mcpclient.EndpointError](err)
		if !ok || !errors.Is(err, mcpclient.ErrForeignEndpoint) || eerr.Endpoint != a.AS.URL+"/token" {
			t.Fatalf("Connect = %v, want an *EndpointError naming %s/token", err, a.AS.URL)
		}
		if b.Count() != 0 {
			t.Errorf("the browser opened %d pages, want none", b.Count())
		}
		a.Mu.Lock()
		defer a.Mu.Unlock()
		if len(a.Grants) != 0 {
			t.Errorf("the foreign token endpoint saw the grants %q, want none", a.Grants)
		}
	})
}

// TestOAuthOneFlow runs the authorization-code flow against servers of
// the 2025-03-26 protocol (whose issuer lies under a path of their
// origin) and of later ones, with the same fake authorization server, and
// checks that both hold the same rules, those of the SDK's flow: an
// issuer named in the redirect but not advertised in the metadata is
// refused (RFC 9207), one advertised is taken, and a client registered in
// advance for another issuer reaches no endpoint of this one.
func TestOAuthOneFlow(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := "2025-06-18"
		if legacy {
			name = "2025-03-26"
		}
		t.Run(name+"/unadvertised iss", func(t *testing.T) {
			a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy, a.Iss = legacy, true })
			var b oauthtest.Browser
			_, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
			if err == nil || !strings.Contains(err.Error(), "iss") {
				t.Fatalf("Connect with an iss the metadata does not advertise = %v, want it refused", err)
			}
			a.Mu.Lock()
			defer a.Mu.Unlock()
			if len(a.Grants) != 0 {
				t.Errorf("the token endpoint saw the grants %q, want none: the code must not be exchanged", a.Grants)
			}
		})
		t.Run(name+"/advertised iss", func(t *testing.T) {
			a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy, a.Iss, a.AdvertiseIss = legacy, true, true })
			var b oauthtest.Browser
			c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
			if err != nil {
				t.Fatalf("Connect with an advertised iss = %v", err)
			}
			callWrite(t, c)
		})
	}
}

// TestOAuthRefresh connects with an expired stored token: the client
// refreshes it, stores the new one, and asks nobody.
func TestOAuthRefresh(t *testing.T) {
	a := oauthtest.New(t, nil)
	a.Mu.Lock()
	a.Clients["public"] = ""
	a.Refreshes["old-refresh"] = []string{"read", "write"}
	a.Mu.Unlock()
	endpoint := a.RS.URL + "/mcp"
	store := &mcpclient.FileStore{Dir: t.TempDir()}
	expired := &mcpclient.StoredToken{
		Token:    &oauth2.Token{AccessToken: "stale", RefreshToken: "old-refresh", Expiry: time.Now().Add(-time.Hour)},
		ClientID: "public",
		TokenURL: a.AS.URL + "/token",
	}
	if err := store.Save(t.Context(), endpoint, expired); err != nil {
		t.Fatal(err)
	}
	refuse := func(context.Context, string) error { return errors.New("the browser must not open") }
	c, err := connectOAuth(t, endpoint, &mcpclient.OAuth{Browser: refuse, Store: store})
	if err != nil {
		t.Fatalf("Connect = %v", err)
	}
	callWrite(t, c)
	a.Mu.Lock()
	grants := slices.Clone(a.Grants)
	a.Mu.Unlock()
	if !slices.Equal(grants, []string{"refresh_token"}) {
		t.Errorf("grants = %q, want one refresh_token", grants)
	}
	got, err := store.Load(t.Context(), endpoint)
	if err != nil || got == nil || got.Token.AccessToken == "stale" || got.Token.RefreshToken == "old-refresh" {
		t.Errorf("stored after the refresh: %+v (%v), want the new tokens", got, err)
	}
}

// TestOAuthClientCredentials reaches the server as a machine.
func TestOAuthClientCredentials(t *testing.T) {
	a := oauthtest.New(t, nil)
	c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Machine: true, ClientID: "machine", ClientSecret: "machine-secret", Issuer: a.AS.URL})
	if err != nil {
		t.Fatalf("Connect = %v", err)
	}
	callWrite(t, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if len(a.Grants) == 0 || slices.ContainsFunc(a.Grants, func(g string) bool { return g != "client_credentials" }) {
		t.Errorf("grants = %q, want client_credentials only", a.Grants)
	}
}

// TestOAuthClientKey reaches the server as a machine that signs its
// assertions (private_key_jwt), and refuses a key that cannot sign one.
func TestOAuthClientKey(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := oauthtest.New(t, nil)
	a.Mu.Lock()
	a.Keys["signer"] = &key.PublicKey
	a.Mu.Unlock()
	c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Machine: true, ClientID: "signer", ClientKey: key, Issuer: a.AS.URL})
	if err != nil {
		t.Fatalf("Connect = %v", err)
	}
	callWrite(t, c)

	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if _, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Machine: true, ClientID: "signer", ClientKey: other, Issuer: a.AS.URL}); err == nil {
		t.Error("Connect with a key the server does not know succeeded, want an error")
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, err = mcpclient.HTTPWith(a.RS.URL+"/mcp", &mcpclient.HTTPOptions{OAuth: &mcpclient.OAuth{Machine: true, ClientID: "signer", ClientKey: p384, Issuer: a.AS.URL}})
	if _, ok := errors.AsType[*mcpclient.OAuthError](err); !ok {
		t.Errorf("HTTPWith with a P-384 key = %v, want an *OAuthError", err)
	}
}

// TestOAuthRefusals checks the ways a flow cannot succeed end in a typed
// error, and that a machine needs its credentials.
func TestOAuthRefusals(t *testing.T) {
	t.Run("the person declines", func(t *testing.T) {
		a := oauthtest.New(t, func(a *oauthtest.Server) { a.Deny = true })
		var b oauthtest.Browser
		_, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
		if aerr, ok := errors.AsType[*mcpclient.AuthorizationError](err); !ok || aerr.Code != "access_denied" || !errors.Is(err, mcpclient.ErrAuthorization) {
			t.Errorf("Connect = %v, want an *AuthorizationError access_denied that matches ErrAuthorization", err)
		}
	})
	t.Run("the person declines the step-up of a call", func(t *testing.T) {
		a := oauthtest.New(t, nil)
		var b oauthtest.Browser
		c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: b.Open, Store: mcpclient.NoStore})
		if err != nil {
			t.Fatalf("Connect = %v", err)
		}
		a.Mu.Lock()
		a.Deny = true
		a.Mu.Unlock()
		reg, err := tool.NewRegistry(&tool.Scope{Name: "guarded", Tools: c.Tools()})
		if err != nil {
			t.Fatal(err)
		}
		// write needs a scope the connection was not given: the server
		// answers 403 insufficient_scope, and the person declines.
		res := tool.Run(t.Context(), reg, tool.Call{Name: "write", Args: json.RawMessage(`{}`)})
		if !res.IsError {
			t.Fatalf("calling write = %q, want an error result", res.Content)
		}
		if _, ok := errors.AsType[*mcpclient.CallError](res.Err); !ok {
			t.Errorf("calling write = %T %v, want a *CallError", res.Err, res.Err)
		}
		for _, kind := range []error{mcpclient.ErrAuthorization, tool.ErrUpstream} {
			if !errors.Is(res.Err, kind) {
				t.Errorf("calling write = %v, want it to match %v", res.Err, kind)
			}
		}
		if aerr, ok := errors.AsType[*mcpclient.AuthorizationError](res.Err); !ok || aerr.Code != "access_denied" {
			t.Errorf("calling write = %v, want an *AuthorizationError access_denied", res.Err)
		}
	})
	t.Run("no redirect comes back", func(t *testing.T) {
		a := oauthtest.New(t, nil)
		nothing := func(context.Context, string) error { return nil }
		_, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: nothing, Store: mcpclient.NoStore, Wait: 50 * time.Millisecond})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Connect = %v, want the wait's deadline", err)
		}
	})
	t.Run("a machine without a secret", func(t *testing.T) {
		_, err := mcpclient.HTTPWith("http://127.0.0.1:1/mcp", &mcpclient.HTTPOptions{OAuth: &mcpclient.OAuth{Machine: true, ClientID: "machine"}})
		if _, ok := errors.AsType[*mcpclient.OAuthError](err); !ok {
			t.Errorf("HTTPWith = %v, want an *OAuthError", err)
		}
	})
}

// TestFileStore checks the store's file is the owner's alone, that one
// others could read is refused, and that a file too large to be a token
// file is not read.
func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	s := &mcpclient.FileStore{Dir: dir}
	ctx := t.Context()
	if got, err := s.Load(ctx, "https://example.com/mcp"); got != nil || err != nil {
		t.Fatalf("Load of nothing = %v, %v; want nil, nil", got, err)
	}
	want := &mcpclient.StoredToken{Token: &oauth2.Token{AccessToken: "a", RefreshToken: "r"}, ClientID: "c", TokenURL: "https://as.example/token"}
	if err := s.Save(ctx, "https://example.com/mcp", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, "https://example.com/mcp")
	if err != nil || got.Token.AccessToken != "a" || got.Token.RefreshToken != "r" || got.ClientID != "c" {
		t.Fatalf("Load = %+v, %v; want what was saved", got, err)
	}
	if other, err := s.Load(ctx, "https://example.com/other"); other != nil || err != nil {
		t.Errorf("Load of another server = %v, %v; want nil, nil", other, err)
	}
	entries, _ := os.ReadDir(dir)
	path := filepath.Join(dir, entries[0].Name())

	os.Chmod(path, 0o644)
	if _, err := s.Load(ctx, "https://example.com/mcp"); err == nil {
		t.Error("Load of a file others can read succeeded, want an error")
	}
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "https://example.com/mcp"); err == nil {
		t.Error("Load of a 2 MB file succeeded, want an error")
	}
}

// TestOAuthForgedRedirect: while the client waits for the authorization
// redirect, anything that can reach its loopback port (a web page in the
// person's browser, another local program) may send it a redirect of its
// own first, with a code of its choosing or an error. One whose state is
// not the one sent is not the authorization's, and neither ends it nor is
// taken: the real redirect that follows completes the flow.
func TestOAuthForgedRedirect(t *testing.T) {
	for _, forged := range []string{"code=attacker&state=guessed", "error=access_denied&state=guessed", "error=access_denied", "code=attacker"} {
		t.Run(forged, func(t *testing.T) {
			a := oauthtest.New(t, nil)
			var b oauthtest.Browser
			var status int
			open := func(ctx context.Context, authURL string) error {
				u, err := url.Parse(authURL)
				if err != nil {
					return err
				}
				callback := u.Query().Get("redirect_uri") + "?" + forged
				resp, err := http.Get(callback)
				if err != nil {
					return err
				}
				resp.Body.Close()
				status = resp.StatusCode
				return b.Open(ctx, authURL)
			}
			c, err := connectOAuth(t, a.RS.URL+"/mcp", &mcpclient.OAuth{Browser: open, Store: mcpclient.NoStore})
			if err != nil {
				t.Fatalf("Connect after a forged redirect = %v, want the real one to count", err)
			}
			if status != http.StatusBadRequest {
				t.Errorf("the forged redirect was answered %d, want 400", status)
			}
			callWrite(t, c)
		})
	}
}

// TestOAuthClientBoundToIssuer connects a client registered in advance
// with one authorization server to MCP servers whose authorization server
// is another: in every grant, the flow stops before anything of the
// client's reaches that server (no token request, no authorization page,
// no ID token asked for), and the error matches ErrOtherIssuer or names
// both issuers. With the right issuer the same client connects. A
// ClientID without an Issuer is refused when the transport is made.
func TestOAuthClientBoundToIssuer(t *testing.T) {
	const registered = "https://auth.example.com"
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		legacy bool
		oauth  func(b *oauthtest.Browser, idTokens *int) *mcpclient.OAuth
	}{
		{"authorization code", false, func(b *oauthtest.Browser, _ *int) *mcpclient.OAuth {
			return &mcpclient.OAuth{ClientID: "public", Browser: b.Open, Store: mcpclient.NoStore}
		}},
		{"authorization code, 2025-03-26", true, func(b *oauthtest.Browser, _ *int) *mcpclient.OAuth {
			return &mcpclient.OAuth{ClientID: "public", Browser: b.Open, Store: mcpclient.NoStore}
		}},
		{"client credentials", false, func(*oauthtest.Browser, *int) *mcpclient.OAuth {
			return &mcpclient.OAuth{Machine: true, ClientID: "machine", ClientSecret: "machine-secret"}
		}},
		{"client key", false, func(*oauthtest.Browser, *int) *mcpclient.OAuth {
			return &mcpclient.OAuth{Machine: true, ClientID: "signer", ClientKey: key}
		}},
		{"enterprise", false, func(_ *oauthtest.Browser, idTokens *int) *mcpclient.OAuth {
			return &mcpclient.OAuth{ClientID: "machine", ClientSecret: "machine-secret", Enterprise: &mcpclient.Enterprise{
				IdPTokenURL: "http://127.0.0.1:1/token", IdPClientID: "idp",
				IDToken: func(context.Context) (string, error) { *idTokens++; return "id-token", nil },
			}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := oauthtest.New(t, func(a *oauthtest.Server) { a.Legacy = tt.legacy })
			a.Mu.Lock()
			a.Clients["public"] = ""
			a.Keys["signer"] = &key.PublicKey
			a.Mu.Unlock()
			var b oauthtest.Browser
			var idTokens int
			o := tt.oauth(&b, &idTokens)
			o.Issuer = registered
			_, err := connectOAuth(t, a.RS.URL+"/mcp", o)
			if err == nil {
				t.Fatal("Connect to a server of another authorization server succeeded")
			}
			if !errors.Is(err, mcpclient.ErrOtherIssuer) && !strings.Contains(err.Error(), registered) {
				t.Errorf("Connect = %v; want an error that matches ErrOtherIssuer or names %s", err, registered)
			}
			a.Mu.Lock()
			grants, authorized := slices.Clone(a.Grants), slices.Clone(a.Authorized)
			a.Mu.Unlock()
			if len(grants) != 0 || len(authorized) != 0 || b.Count() != 0 || idTokens != 0 {
				t.Errorf("the other authorization server saw grants %q and authorizations %q, %d pages opened, %d ID tokens asked for; want none",
					grants, authorized, b.Count(), idTokens)
			}
			if tt.name == "enterprise" {
				return // the identity provider is not served here
			}
			o = tt.oauth(&b, &idTokens)
			o.Issuer = a.AS.URL + "/" // a trailing slash is the same issuer
			if tt.legacy {
				o.Issuer = a.RS.URL + "/oauth"
			}
			c, err := connectOAuth(t, a.RS.URL+"/mcp", o)
			if err != nil {
				t.Fatalf("Connect with the client's own issuer = %v", err)
			}
			callWrite(t, c)
		})
	}
	_, err = mcpclient.HTTPWith("http://127.0.0.1:1/mcp", &mcpclient.HTTPOptions{OAuth: &mcpclient.OAuth{ClientID: "public"}})
	if _, ok := errors.AsType[*mcpclient.OAuthError](err); !ok || !strings.Contains(err.Error(), "Issuer") {
		t.Errorf("HTTPWith with a ClientID and no Issuer = %v; want an *OAuthError naming Issuer", err)
	}
}
