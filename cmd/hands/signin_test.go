package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// A pipeListener is a net.Listener whose connections are net.Pipes, so
// that an HTTP server and its client run inside a synctest bubble, where
// minutes pass at once and exactly.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// servePipes serves h over pipes until the test ends, and returns a client
// that reaches it at any URL.
func servePipes(t *testing.T, h http.Handler) *http.Client {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	transport := &http.Transport{DialContext: l.dial}
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(l)
	}()
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		srv.Close()
		<-served
	})
	return &http.Client{Transport: transport}
}

// slowSignIn is an OAuth handler whose sign-in takes a person signIn.
type slowSignIn struct {
	signIn time.Duration
	done   atomic.Bool
}

func (s *slowSignIn) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if !s.done.Load() {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "signed-in"}), nil
}

func (s *slowSignIn) Authorize(ctx context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	select {
	case <-time.After(s.signIn):
		s.done.Store(true)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// guardedUpstream serves an MCP server of one tool that answers 401 to a
// request without the token slowSignIn gets; a hang that is not nil makes
// it answer nothing until hang is closed.
func guardedUpstream(t *testing.T, hang chan struct{}) *http.Client {
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return servePipes(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang != nil {
			<-hang
			return
		}
		if r.Header.Get("Authorization") != "Bearer signed-in" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://upstream.test/.well-known/oauth-protected-resource"`)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// TestUpstreamSignInWait has a person take 4 minutes to sign in to an
// upstream at serve's start: the connection waits for it, as the
// documented 5 minutes of the sign-in promise, rather than ending at the
// listing's bound of 30 s. An upstream that does not answer still ends
// the connection after 30 s.
func TestUpstreamSignInWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		signIn := &slowSignIn{signIn: 4 * time.Minute}
		tr := &mcp.StreamableClientTransport{Endpoint: "http://upstream.test/mcp", HTTPClient: guardedUpstream(t, nil), OAuthHandler: signIn}
		start := time.Now()
		c, err := connectUpstream(t.Context(), tr, mcpclient.Options{})
		if err != nil {
			t.Fatalf("connectUpstream with a sign-in of 4 minutes: %v", err)
		}
		defer c.Close()
		if took := time.Since(start); took < 4*time.Minute {
			t.Errorf("the connection took %v, less than the sign-in", took)
		}
		if len(c.Tools()) != 1 {
			t.Errorf("tools = %v, want the upstream's one", c.Tools())
		}
	})
	synctest.Test(t, func(t *testing.T) {
		hang := make(chan struct{})
		defer close(hang)
		tr := &mcp.StreamableClientTransport{Endpoint: "http://upstream.test/mcp", HTTPClient: guardedUpstream(t, hang), OAuthHandler: &slowSignIn{}}
		start := time.Now()
		_, err := connectUpstream(t.Context(), tr, mcpclient.Options{})
		if !errors.Is(err, errUpstreamTimeout) {
			t.Errorf("connectUpstream to an upstream that does not answer: %v, want errUpstreamTimeout", err)
		}
		// The SDK may take a few seconds more to close the session; the
		// bound of the listings, with the sign-in's wait, is minutes away.
		if took := time.Since(start); took < mcpclient.DefaultListTimeout || took > mcpclient.DefaultListTimeout+10*time.Second {
			t.Errorf("the connection ended after %v, want %v", took, mcpclient.DefaultListTimeout)
		}
	})
}
