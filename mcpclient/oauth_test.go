package mcpclient_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// authServer is a real OAuth 2.1 authorization server, small enough to
// read: metadata, dynamic registration, the authorization endpoint (which
// approves at once, or refuses when deny is set), and the token endpoint
// with the authorization code (PKCE S256 checked), refresh token and
// client credentials grants. It guards an MCP server whose tools/call
// needs the "write" scope and everything else "read".
type authServer struct {
	t        *testing.T
	as, rs   *httptest.Server
	oidcOnly bool // serve only OpenID Connect discovery, not RFC 8414 metadata
	prmInWWW bool // name the protected-resource metadata only in the challenge, at a non-default path
	deny     bool // the person declines

	mu         sync.Mutex
	clients    map[string]string   // client ID → secret ("" for a public client)
	codes      map[string]codeInfo // authorization codes not yet used
	tokens     map[string][]string // access token → scopes
	refreshes  map[string][]string // refresh token → scopes
	grants     []string            // grant types, in the order the token endpoint saw them
	authorized [][]string          // scopes asked for at each authorization request
}

type codeInfo struct {
	clientID, challenge, redirect string
	scopes                        []string
}

func newAuthServer(t *testing.T, configure func(*authServer)) *authServer {
	a := &authServer{t: t, clients: map[string]string{"machine": "machine-secret"}, codes: map[string]codeInfo{},
		tokens: map[string][]string{}, refreshes: map[string][]string{}}
	if configure != nil {
		configure(a)
	}
	a.as = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.as.Close)

	server := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "write", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "written"}}}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	prmPath := "/.well-known/oauth-protected-resource/mcp"
	if a.prmInWWW {
		prmPath = "/meta/resource.json"
	}
	mux.HandleFunc(prmPath, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": a.rs.URL + "/mcp", "authorization_servers": []string{a.as.URL}, "scopes_supported": []string{"read", "write"}})
	})
	mux.Handle("/mcp", a.guard(mcpHandler, prmPath))
	a.rs = httptest.NewServer(mux)
	t.Cleanup(a.rs.Close)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// guard lets a request through with a token holding the scope its method
// needs, and otherwise answers 401 or 403 with a challenge.
func (a *authServer) guard(next http.Handler, prmPath string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct{ Method string }
		json.Unmarshal(body, &msg)
		need := "read"
		if msg.Method == "tools/call" {
			need = "write"
		}
		challenge := fmt.Sprintf(`Bearer resource_metadata="%s%s", scope="%s"`, a.rs.URL, prmPath, need)
		a.mu.Lock()
		scopes, ok := a.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		a.mu.Unlock()
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		case !slices.Contains(scopes, need):
			w.Header().Set("WWW-Authenticate", challenge+`, error="insufficient_scope"`)
			http.Error(w, "insufficient scope", http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func (a *authServer) serveAS(w http.ResponseWriter, r *http.Request) {
	meta := map[string]any{
		"issuer":                                a.as.URL,
		"authorization_endpoint":                a.as.URL + "/authorize",
		"token_endpoint":                        a.as.URL + "/token",
		"registration_endpoint":                 a.as.URL + "/register",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "none"},
		"scopes_supported":                      []string{"read", "write"},
	}
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		if a.oidcOnly {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, meta)
	case "/.well-known/openid-configuration":
		writeJSON(w, meta)
	case "/register":
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		id := rand.Text()
		a.mu.Lock()
		a.clients[id] = ""
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		a.mu.Lock()
		_, known := a.clients[q.Get("client_id")]
		a.authorized = append(a.authorized, strings.Fields(q.Get("scope")))
		a.mu.Unlock()
		redirect, err := url.Parse(q.Get("redirect_uri"))
		if !known || err != nil || redirect.Hostname() != "127.0.0.1" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		back := url.Values{"state": {q.Get("state")}}
		if a.deny {
			back.Set("error", "access_denied")
		} else {
			code := rand.Text()
			a.mu.Lock()
			a.codes[code] = codeInfo{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), scopes: strings.Fields(q.Get("scope"))}
			a.mu.Unlock()
			back.Set("code", code)
		}
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	case "/token":
		a.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	grant := r.PostForm.Get("grant_type")
	a.grants = append(a.grants, grant)
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code})
	}
	var scopes []string
	switch grant {
	case "authorization_code":
		c, ok := a.codes[r.PostForm.Get("code")]
		delete(a.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || c.clientID != r.PostForm.Get("client_id") || c.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			fail("invalid_grant")
			return
		}
		scopes = c.scopes
	case "refresh_token":
		var ok bool
		if scopes, ok = a.refreshes[r.PostForm.Get("refresh_token")]; !ok {
			fail("invalid_grant")
			return
		}
		delete(a.refreshes, r.PostForm.Get("refresh_token"))
	case "client_credentials":
		id, secret, ok := r.BasicAuth()
		if !ok || a.clients[id] != secret || secret == "" {
			fail("invalid_client")
			return
		}
		scopes = strings.Fields(r.PostForm.Get("scope"))
	default:
		fail("unsupported_grant_type")
		return
	}
	access, refresh := rand.Text(), rand.Text()
	a.tokens[access] = scopes
	a.refreshes[refresh] = scopes
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh, "scope": strings.Join(scopes, " ")})
}

// browser follows the authorization page's redirects, as a browser would
// for a person who approves, and counts the pages it opened.
type browser struct {
	mu     sync.Mutex
	opened int
}

func (b *browser) open(ctx context.Context, authURL string) error {
	b.mu.Lock()
	b.opened++
	b.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func (b *browser) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opened
}

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
		configure func(*authServer)
	}{
		{name: "well-known metadata"},
		{name: "resource metadata named by the challenge", configure: func(a *authServer) { a.prmInWWW = true }},
		{name: "OpenID Connect discovery", configure: func(a *authServer) { a.oidcOnly = true }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAuthServer(t, tt.configure)
			store := &mcpclient.FileStore{Dir: filepath.Join(t.TempDir(), "tokens")}
			var b browser
			c, err := connectOAuth(t, a.rs.URL+"/mcp", &mcpclient.OAuth{Browser: b.open, Store: store})
			if err != nil {
				t.Fatalf("Connect = %v", err)
			}
			if got := b.count(); got != 1 {
				t.Errorf("the browser opened %d pages to connect, want 1", got)
			}
			callWrite(t, c) // needs write: 403 insufficient_scope, a second authorization
			if got := b.count(); got != 2 {
				t.Errorf("the browser opened %d pages after the step-up, want 2", got)
			}
			a.mu.Lock()
			authorized := slices.Clone(a.authorized)
			a.mu.Unlock()
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
			c2, err := connectOAuth(t, a.rs.URL+"/mcp", &mcpclient.OAuth{Browser: refuse, Store: store})
			if err != nil {
				t.Fatalf("Connect with stored tokens = %v", err)
			}
			callWrite(t, c2)
		})
	}
}

// TestOAuthRefresh connects with an expired stored token: the client
// refreshes it, stores the new one, and asks nobody.
func TestOAuthRefresh(t *testing.T) {
	a := newAuthServer(t, nil)
	a.mu.Lock()
	a.clients["public"] = ""
	a.refreshes["old-refresh"] = []string{"read", "write"}
	a.mu.Unlock()
	endpoint := a.rs.URL + "/mcp"
	store := &mcpclient.FileStore{Dir: t.TempDir()}
	expired := &mcpclient.StoredToken{
		Token:    &oauth2.Token{AccessToken: "stale", RefreshToken: "old-refresh", Expiry: time.Now().Add(-time.Hour)},
		ClientID: "public",
		TokenURL: a.as.URL + "/token",
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
	a.mu.Lock()
	grants := slices.Clone(a.grants)
	a.mu.Unlock()
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
	a := newAuthServer(t, nil)
	c, err := connectOAuth(t, a.rs.URL+"/mcp", &mcpclient.OAuth{Machine: true, ClientID: "machine", ClientSecret: "machine-secret"})
	if err != nil {
		t.Fatalf("Connect = %v", err)
	}
	callWrite(t, c)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.grants) == 0 || slices.ContainsFunc(a.grants, func(g string) bool { return g != "client_credentials" }) {
		t.Errorf("grants = %q, want client_credentials only", a.grants)
	}
}

// TestOAuthRefusals checks the ways a flow cannot succeed end in a typed
// error, and that a machine needs its credentials.
func TestOAuthRefusals(t *testing.T) {
	t.Run("the person declines", func(t *testing.T) {
		a := newAuthServer(t, func(a *authServer) { a.deny = true })
		var b browser
		_, err := connectOAuth(t, a.rs.URL+"/mcp", &mcpclient.OAuth{Browser: b.open, Store: mcpclient.NoStore})
		if aerr, ok := errors.AsType[*mcpclient.AuthorizationError](err); !ok || aerr.Code != "access_denied" {
			t.Errorf("Connect = %v, want an *AuthorizationError access_denied", err)
		}
	})
	t.Run("no redirect comes back", func(t *testing.T) {
		a := newAuthServer(t, nil)
		nothing := func(context.Context, string) error { return nil }
		_, err := connectOAuth(t, a.rs.URL+"/mcp", &mcpclient.OAuth{Browser: nothing, Store: mcpclient.NoStore, Wait: 50 * time.Millisecond})
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
