// Package oauthtest runs a real OAuth 2.1 authorization server and an MCP
// server it guards, on 127.0.0.1, for the tests of OAuth clients.
package oauthtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Server is a real OAuth 2.1 authorization server, small enough to
// read: metadata, dynamic registration, the authorization endpoint (which
// approves at once, or refuses when Deny is set), and the token endpoint
// with the authorization code (PKCE S256 checked), refresh token and
// client credentials grants. It guards an MCP server whose tools/call
// needs the "write" scope and everything else "read".
type Server struct {
	t        *testing.T
	AS, RS   *httptest.Server // the authorization server, and the resource server whose /mcp is guarded
	OIDCOnly bool             // serve only OpenID Connect discovery, not RFC 8414 metadata
	PRMInWWW bool             // name the protected-resource metadata only in the challenge, at a non-default path
	Deny     bool             // the person declines
	// Iss makes the authorization endpoint name its issuer in the
	// redirect (RFC 9207) although its metadata does not say it does,
	// unless AdvertiseIss is set too.
	Iss, AdvertiseIss bool
	// Legacy makes the resource server one of the 2025-03-26 protocol: it
	// publishes no protected-resource metadata and is its own
	// authorization server, whose metadata, at the root of its origin,
	// names the issuer RS.URL+"/oauth", where its endpoints are.
	Legacy bool
	// ForeignIssuer, with Legacy, has that metadata name AS, another
	// origin, as the issuer instead (the mix-up a client must refuse).
	ForeignIssuer bool
	// ForeignEndpoint, with Legacy, keeps the issuer on the resource
	// server's origin but has the metadata name the token endpoint of AS,
	// another origin.
	ForeignEndpoint bool

	Mu         sync.Mutex                  // guards what follows
	Clients    map[string]string           // client ID → secret ("" for a public client)
	Keys       map[string]*ecdsa.PublicKey // client ID → the key of its signed assertions (private_key_jwt, ES256)
	codes      map[string]codeInfo         // authorization codes not yet used
	Tokens     map[string][]string         // access token → scopes
	Refreshes  map[string][]string         // refresh token → scopes
	Grants     []string                    // grant types, in the order the token endpoint saw them
	Authorized [][]string                  // scopes asked for at each authorization request
}

type codeInfo struct {
	clientID, challenge, redirect string
	scopes                        []string
}

// New starts the servers on 127.0.0.1; configure, if not nil, sets the
// switches first. They close when the test ends.
func New(t *testing.T, configure func(*Server)) *Server {
	a := &Server{t: t, Clients: map[string]string{"machine": "machine-secret"}, Keys: map[string]*ecdsa.PublicKey{}, codes: map[string]codeInfo{},
		Tokens: map[string][]string{}, Refreshes: map[string][]string{}}
	if configure != nil {
		configure(a)
	}
	a.AS = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.AS.Close)

	server := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "write", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "written"}}}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux := http.NewServeMux()
	prmPath := "/.well-known/oauth-protected-resource/mcp"
	if a.PRMInWWW {
		prmPath = "/meta/resource.json"
	}
	if a.Legacy {
		prmPath = ""
		mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			if a.ForeignIssuer {
				writeJSON(w, a.metadata(a.AS.URL))
				return
			}
			meta := a.metadata(a.RS.URL + "/oauth")
			if a.ForeignEndpoint {
				meta["token_endpoint"] = a.AS.URL + "/token"
			}
			writeJSON(w, meta)
		})
		mux.Handle("/oauth/", http.StripPrefix("/oauth", http.HandlerFunc(a.serveAS)))
	} else {
		mux.HandleFunc(prmPath, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, map[string]any{"resource": a.RS.URL + "/mcp", "authorization_servers": []string{a.AS.URL}, "scopes_supported": []string{"read", "write"}})
		})
	}
	mux.Handle("/mcp", a.guard(mcpHandler, prmPath))
	a.RS = httptest.NewServer(mux)
	t.Cleanup(a.RS.Close)
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// guard lets a request through with a token holding the scope its method
// needs, and otherwise answers 401 or 403 with a challenge.
func (a *Server) guard(next http.Handler, prmPath string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct{ Method string }
		json.Unmarshal(body, &msg)
		need := "read"
		if msg.Method == "tools/call" {
			need = "write"
		}
		challenge := fmt.Sprintf(`Bearer resource_metadata="%s%s", scope="%s"`, a.RS.URL, prmPath, need)
		if prmPath == "" {
			challenge = fmt.Sprintf(`Bearer scope="%s"`, need)
		}
		a.Mu.Lock()
		scopes, ok := a.Tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		a.Mu.Unlock()
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

// metadata returns the authorization server's metadata (RFC 8414) when
// its issuer is issuer, with its endpoints under it.
func (a *Server) metadata(issuer string) map[string]any {
	return map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         issuer + "/authorize",
		"token_endpoint":                                 issuer + "/token",
		"registration_endpoint":                          issuer + "/register",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "private_key_jwt", "none"},
		"scopes_supported":                               []string{"read", "write"},
		"authorization_response_iss_parameter_supported": a.AdvertiseIss,
	}
}

// issuer returns the issuer whose endpoint r reached: the resource
// server's /oauth for a Legacy server, else AS.
func (a *Server) issuer(r *http.Request) string {
	if a.Legacy && r.Host == strings.TrimPrefix(a.RS.URL, "http://") {
		return a.RS.URL + "/oauth"
	}
	return a.AS.URL
}

func (a *Server) serveAS(w http.ResponseWriter, r *http.Request) {
	meta := a.metadata(a.AS.URL)
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		if a.OIDCOnly {
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
		a.Mu.Lock()
		a.Clients[id] = ""
		a.Mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		a.Mu.Lock()
		_, known := a.Clients[q.Get("client_id")]
		a.Authorized = append(a.Authorized, strings.Fields(q.Get("scope")))
		a.Mu.Unlock()
		redirect, err := url.Parse(q.Get("redirect_uri"))
		if !known || err != nil || redirect.Hostname() != "127.0.0.1" || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		back := url.Values{"state": {q.Get("state")}}
		if a.Deny {
			back.Set("error", "access_denied")
		} else {
			code := rand.Text()
			a.Mu.Lock()
			a.codes[code] = codeInfo{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), scopes: strings.Fields(q.Get("scope"))}
			a.Mu.Unlock()
			back.Set("code", code)
		}
		if a.Iss {
			back.Set("iss", a.issuer(r))
		}
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	case "/token":
		a.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.Mu.Lock()
	defer a.Mu.Unlock()
	grant := r.PostForm.Get("grant_type")
	a.Grants = append(a.Grants, grant)
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
		clientID := r.PostForm.Get("client_id")
		if id, _, basic := r.BasicAuth(); basic && clientID == "" {
			clientID = id // a client registered in advance may authenticate in the header
		}
		if !ok || c.clientID != clientID || c.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			fail("invalid_grant")
			return
		}
		scopes = c.scopes
	case "refresh_token":
		var ok bool
		if scopes, ok = a.Refreshes[r.PostForm.Get("refresh_token")]; !ok {
			fail("invalid_grant")
			return
		}
		delete(a.Refreshes, r.PostForm.Get("refresh_token"))
	case "client_credentials":
		if assertion := r.PostForm.Get("client_assertion"); assertion != "" {
			if !a.verifyAssertion(r.PostForm.Get("client_id"), assertion) {
				fail("invalid_client")
				return
			}
			scopes = strings.Fields(r.PostForm.Get("scope"))
			break
		}
		id, secret, ok := r.BasicAuth()
		if !ok || a.Clients[id] != secret || secret == "" {
			fail("invalid_client")
			return
		}
		scopes = strings.Fields(r.PostForm.Get("scope"))
	default:
		fail("unsupported_grant_type")
		return
	}
	access, refresh := rand.Text(), rand.Text()
	a.Tokens[access] = scopes
	a.Refreshes[refresh] = scopes
	writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh, "scope": strings.Join(scopes, " ")})
}

// Browser follows the authorization page's redirects, as a browser would
// for a person who approves, and counts the pages it opened.
type Browser struct {
	mu     sync.Mutex
	opened int
}

// Open is the browser: it opens authURL.
func (b *Browser) Open(ctx context.Context, authURL string) error {
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

// Count returns how many pages were opened.
func (b *Browser) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opened
}

// verifyAssertion reports whether assertion is a JWT signed ES256 by the
// client's key, naming it as issuer and subject and this server as
// audience, not expired. Mu is held.
func (a *Server) verifyAssertion(clientID, assertion string) bool {
	key := a.Keys[clientID]
	parts := strings.Split(assertion, ".")
	if key == nil || len(parts) != 3 {
		return false
	}
	enc := base64.RawURLEncoding
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return false
	}
	payload, err := enc.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	if json.Unmarshal(payload, &claims) != nil {
		return false
	}
	return claims.Iss == clientID && claims.Sub == clientID && claims.Aud == a.AS.URL && claims.Exp > time.Now().Unix()
}
