package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// A pipeNet is an HTTP server and a client joined by net.Pipe connections
// instead of sockets, so that both run inside a testing/synctest bubble:
// time there is the bubble's, which moves only when every goroutine of the
// test waits, so a timeout of minutes passes at once and a busy machine
// cannot make one pass early.
type pipeNet struct {
	URL    string // the server's address, for requests
	Client *http.Client

	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// servePipe serves h on a pipeNet until the test ends. It must be called
// inside the test's bubble.
func servePipe(t *testing.T, h http.Handler) *pipeNet {
	t.Helper()
	p := &pipeNet{URL: "http://mcp.test", conns: make(chan net.Conn), closed: make(chan struct{})}
	transport := &http.Transport{DialContext: p.dial, MaxIdleConnsPerHost: 64}
	p.Client = &http.Client{Transport: transport}
	srv := &http.Server{Handler: h}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(p)
	}()
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		srv.Close()
		<-done
	})
	return p
}

// dial opens a connection to the server.
func (p *pipeNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Accept returns the next connection a client dialled.
func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept.
func (p *pipeNet) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

// Addr returns a made-up address.
func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "mcp.test:80" }
