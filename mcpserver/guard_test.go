package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hands-go/hands/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestHostOnEveryRoute sends requests whose Host names another site, as a
// page of evil.example whose name was rebound to 127.0.0.1 does, without
// an Origin header: the endpoint, the playground, its tools.json and a
// route of the user's own behind CheckHost all refuse them, and serve
// requests whose Host is a loopback name.
func TestHostOnEveryRoute(t *testing.T) {
	reg := playgroundTools(t, nil)
	srv := mcpserver.New(reg, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(nil))
	mux.Handle("/files/", mcpserver.CheckHost(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("file")) })))
	mux.Handle("/", srv.Playground(nil))
	ts := newServer(t, mux)
	for _, tt := range []struct {
		method, path string
	}{
		{http.MethodPost, "/mcp"},
		{http.MethodGet, "/tools.json"},
		{http.MethodGet, "/"},
		{http.MethodGet, "/files/a.txt"},
	} {
		for _, host := range []string{"evil.example", "evil.example:80", "localhost.evil.example"} {
			if code := hostRequest(t, ts, tt.method, tt.path, host); code != http.StatusForbidden {
				t.Errorf("%s %s with Host %q = %d, want 403", tt.method, tt.path, host, code)
			}
		}
		for _, host := range []string{"", "localhost", "127.0.0.1:8080", "[::1]:8080"} {
			if code := hostRequest(t, ts, tt.method, tt.path, host); code != http.StatusOK {
				t.Errorf("%s %s with Host %q = %d, want 200", tt.method, tt.path, host, code)
			}
		}
	}
}

// hostRequest sends a request with the Host header host (the server's own
// address when empty) and returns the status.
func hostRequest(t *testing.T, ts *httptest.Server, method, path, host string) int {
	t.Helper()
	var body *strings.Reader
	if method == http.MethodPost {
		body = strings.NewReader(initialize)
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestChallenge checks that every 401 carries a WWW-Authenticate header: a
// Bearer challenge, with error="invalid_token" when a token was presented,
// and resource_metadata when the options name the metadata.
func TestChallenge(t *testing.T) {
	const metadata = "https://mcp.example.com/.well-known/oauth-protected-resource"
	for _, tt := range []struct {
		name  string
		opts  *mcpserver.HTTPOptions
		token string
		want  string
	}{
		{"no token", &mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "ada")}, "", "Bearer"},
		{"wrong token", &mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "ada")}, "wrong", `Bearer error="invalid_token"`},
		{"metadata", &mcpserver.HTTPOptions{Verify: mcpserver.StaticToken("s3cret", "ada"), ResourceMetadataURL: metadata}, "wrong", `Bearer resource_metadata="` + metadata + `"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcpserver.New(playgroundTools(t, nil), nil)
			mux := http.NewServeMux()
			mux.Handle("/mcp", srv.HTTPHandler(tt.opts))
			mux.Handle("/", srv.Playground(&mcpserver.PlaygroundOptions{HTTP: tt.opts}))
			ts := newServer(t, mux)
			for _, path := range []string{"/mcp", "/tools.json"} {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+path, strings.NewReader(initialize))
				if path == "/tools.json" {
					req.Method = http.MethodGet
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tt.token != "" {
					req.Header.Set("Authorization", "Bearer "+tt.token)
				}
				resp, err := ts.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != http.StatusUnauthorized || got != tt.want {
					t.Errorf("%s: %d, WWW-Authenticate %q; want 401 with %q", path, resp.StatusCode, got, tt.want)
				}
			}
		})
	}
}

// TestStaticToken checks the token comparison on tokens that differ in
// length, share a prefix, or are empty.
func TestStaticToken(t *testing.T) {
	for _, tt := range []struct {
		token, got string
		ok         bool
	}{
		{"s3cret", "s3cret", true},
		{"s3cret", "s3cre", false},
		{"s3cret", "s3crett", false},
		{"s3cret", "S3cret", false},
		{"s3cret", "", false},
		{"s3cret", strings.Repeat("s3cret", 1000), false},
		{"", "", false}, // an empty token admits nobody
	} {
		info, err := mcpserver.StaticToken(tt.token, "ada")(context.Background(), tt.got, nil)
		if ok := err == nil; ok != tt.ok {
			t.Errorf("StaticToken(%q) given %.20q: %v, %v; want ok=%v", tt.token, tt.got, info, err, tt.ok)
		}
		if err != nil && err != auth.ErrInvalidToken {
			t.Errorf("StaticToken(%q) given %.20q: error %v, want auth.ErrInvalidToken", tt.token, tt.got, err)
		}
	}
}

// TestStaticTokens checks that each caller's token is served as that
// caller, that any other token, a prefix or an empty one is refused, and
// that a setup error names the callers but never a token.
func TestStaticTokens(t *testing.T) {
	verify, err := mcpserver.StaticTokens(map[string]string{"ada": "ada-s3cret", "bob": "bob-s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		got, user string // user "" for a refusal
	}{
		{"ada-s3cret", "ada"},
		{"bob-s3cret", "bob"},
		{"ada-s3cre", ""},
		{"bob-s3crett", ""},
		{"", ""},
		{"ada", ""},
	} {
		info, err := verify(context.Background(), tt.got, nil)
		switch {
		case tt.user == "" && err != auth.ErrInvalidToken:
			t.Errorf("given %q: %v, %v; want auth.ErrInvalidToken", tt.got, info, err)
		case tt.user != "" && (err != nil || info.UserID != tt.user):
			t.Errorf("given %q: %v, %v; want user %s", tt.got, info, err, tt.user)
		}
	}
	for _, tt := range []struct {
		tokens map[string]string
		names  []string // what the error names
	}{
		{map[string]string{}, nil},
		{map[string]string{"ada": "same-s3cret", "bob": "same-s3cret"}, []string{"ada", "bob"}},
		{map[string]string{"ada": ""}, []string{"ada"}},
		{map[string]string{"": "lone-s3cret"}, nil},
	} {
		_, err := mcpserver.StaticTokens(tt.tokens)
		if err == nil {
			t.Errorf("StaticTokens(%d callers) made a Verify, want an error", len(tt.tokens))
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error %q shows a token", err)
		}
		for _, n := range tt.names {
			if !strings.Contains(err.Error(), strconv.Quote(n)) {
				t.Errorf("the error %q does not name the caller %s", err, n)
			}
		}
	}
}

// TestRetryField checks that an event stream starts with the retry field
// of ReconnectDelay, in the first event, and that a negative delay and a
// JSON response carry none.
func TestRetryField(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *mcpserver.HTTPOptions
		want string // how the body starts
	}{
		{"default", nil, "retry: 1000\nevent: "},
		{"5s", &mcpserver.HTTPOptions{ReconnectDelay: 5e9}, "retry: 5000\nevent: "},
		{"none", &mcpserver.HTTPOptions{ReconnectDelay: -1}, "event: "},
		{"json", &mcpserver.HTTPOptions{JSONResponse: true}, "{"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcpserver.New(playgroundTools(t, nil), nil)
			ts := newServer(t, srv.HTTPHandler(tt.opts))
			code, body := post(t, ts.Client(), ts.URL, "", initialize)
			if code != http.StatusOK || !strings.HasPrefix(body, tt.want) {
				t.Errorf("POST initialize = %d %q, want a body that starts %q", code, body, tt.want)
			}
			if strings.Count(body, "retry:") > 1 {
				t.Errorf("POST initialize = %q, want one retry field at most", body)
			}
		})
	}
}

// newServer serves h on 127.0.0.1 until the test ends.
func newServer(t *testing.T, h http.Handler) *httptest.Server {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
