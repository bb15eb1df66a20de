package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/internal/oauthtest"
	"github.com/hands-go/hands/mcpclient"
)

// TestUpstreamOAuth connects to an upstream that an OAuth authorization
// server guards, twice, as two runs of serve would: the first signs in
// through the browser, with the page's address on stderr; the second uses
// the stored tokens and opens nothing.
func TestUpstreamOAuth(t *testing.T) {
	a := oauthtest.New(t, nil)
	store := &mcpclient.FileStore{Dir: t.TempDir()}
	var b oauthtest.Browser
	var stderr bytes.Buffer
	auth := &upstreamAuth{grant: grantAuthorizationCode, stderr: &stderr, browser: b.Open, store: store}
	ups, err := connectUpstreams(t.Context(), []upstreamSpec{{target: a.RS.URL + "/mcp"}}, nil, 0, false, auth, &stderr)
	if err != nil {
		t.Fatalf("connectUpstreams = %v", err)
	}
	ups.close()
	if b.Count() != 1 || !strings.Contains(stderr.String(), "sign in to the upstream "+a.RS.URL+"/mcp at "+a.AS.URL+"/authorize?") {
		t.Errorf("the first run opened %d pages and wrote %q, want one page and its address", b.Count(), stderr.String())
	}

	auth.browser = func(context.Context, string) error { return errors.New("the second run must not open a browser") }
	stderr.Reset()
	ups, err = connectUpstreams(t.Context(), []upstreamSpec{{target: a.RS.URL + "/mcp"}}, nil, 0, false, auth, &stderr)
	if err != nil {
		t.Fatalf("connectUpstreams with stored tokens = %v", err)
	}
	defer ups.close()
	if len(ups.scopes(noneTaken)) != 1 || len(ups.scopes(noneTaken)[0].Tools) != 1 {
		t.Errorf("the upstream's scopes = %v, want its one tool", ups.scopes(noneTaken))
	}
	if strings.Contains(stderr.String(), "sign in") {
		t.Errorf("the second run wrote %q, want no sign-in", stderr.String())
	}
}

// TestUpstreamOAuthMachine signs in with the client credentials grant.
func TestUpstreamOAuthMachine(t *testing.T) {
	a := oauthtest.New(t, nil)
	t.Setenv("HANDS_OAUTH_CLIENT_ID", "machine")
	t.Setenv("HANDS_OAUTH_CLIENT_SECRET", "machine-secret")
	t.Setenv("HANDS_OAUTH_GRANT", grantClientCredentials)
	t.Setenv("HANDS_OAUTH_ISSUER", a.AS.URL)
	tools, closeEnv, err := bundledTools(t.Context(), "", "http://127.0.0.1/files", "fetch_markdown")
	if err != nil {
		t.Fatal(err)
	}
	defer closeEnv()
	var stderr bytes.Buffer
	tools.auth.stderr = &stderr
	ups, err := connectUpstreams(t.Context(), []upstreamSpec{{target: a.RS.URL + "/mcp"}}, nil, 0, false, tools.auth, &stderr)
	if err != nil {
		t.Fatalf("connectUpstreams = %v", err)
	}
	defer ups.close()
	a.Mu.Lock()
	defer a.Mu.Unlock()
	if len(a.Grants) == 0 || a.Grants[0] != "client_credentials" {
		t.Errorf("grants = %q, want client_credentials", a.Grants)
	}
}

// TestUpstreamOAuthMachineBound starts with a client registered in
// advance and two upstreams, one of whose authorization servers is not the
// client's: that upstream is refused and its authorization server sees no
// request for a token, so the secret never reaches it; the other is
// served. A client ID without its issuer is refused at start.
func TestUpstreamOAuthMachineBound(t *testing.T) {
	own := oauthtest.New(t, nil)
	hostile := oauthtest.New(t, nil)
	t.Setenv("HANDS_OAUTH_CLIENT_ID", "machine")
	t.Setenv("HANDS_OAUTH_CLIENT_SECRET", "machine-secret")
	t.Setenv("HANDS_OAUTH_GRANT", grantClientCredentials)
	t.Setenv("HANDS_OAUTH_ISSUER", "")
	if _, _, err := bundledTools(t.Context(), "", "http://127.0.0.1/files", "fetch_markdown"); err == nil || !strings.Contains(err.Error(), "HANDS_OAUTH_ISSUER") {
		t.Errorf("bundledTools with a client ID and no issuer = %v; want an error naming HANDS_OAUTH_ISSUER", err)
	}
	t.Setenv("HANDS_OAUTH_ISSUER", own.AS.URL)
	tools, closeEnv, err := bundledTools(t.Context(), "", "http://127.0.0.1/files", "fetch_markdown")
	if err != nil {
		t.Fatal(err)
	}
	defer closeEnv()
	var stderr bytes.Buffer
	tools.auth.stderr = &stderr
	if ups, err := connectUpstreams(t.Context(), []upstreamSpec{{target: hostile.RS.URL + "/mcp"}}, nil, 0, false, tools.auth, &stderr); err == nil {
		ups.close()
		t.Error("connectUpstreams reached an upstream of another authorization server")
	}
	hostile.Mu.Lock()
	if len(hostile.Grants) != 0 {
		t.Errorf("the other authorization server saw the grants %q, want none", hostile.Grants)
	}
	hostile.Mu.Unlock()
	ups, err := connectUpstreams(t.Context(), []upstreamSpec{{target: own.RS.URL + "/mcp"}}, nil, 0, false, tools.auth, &stderr)
	if err != nil {
		t.Fatalf("connectUpstreams to the client's own server = %v", err)
	}
	ups.close()
}

// noneTaken takes no tool name.
func noneTaken(string) bool { return false }
