package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreams are the MCP servers whose tools serve passes on (--upstream).
type upstreams struct {
	clients []*mcpclient.Client
	server  atomic.Pointer[mcpserver.Server] // told of changes once it exists
}

// connectUpstreams connects to each server: a streamable HTTP URL, or a
// command and its arguments, split at spaces, started with its standard
// error on stderr. Tools an upstream offers that hands cannot are named on
// stderr.
func connectUpstreams(ctx context.Context, specs []string, stderr io.Writer) (*upstreams, error) {
	u := &upstreams{}
	for _, spec := range specs {
		var transport mcp.Transport
		if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
			transport = mcpclient.HTTP(spec, nil)
		} else {
			args := strings.Fields(spec)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Stderr = stderr
			transport = &mcp.CommandTransport{Command: cmd}
		}
		c, err := mcpclient.Connect(ctx, transport, &mcpclient.Options{OnChange: u.changed(stderr)})
		if err != nil {
			u.close()
			return nil, fmt.Errorf("--upstream %q: %w", spec, err)
		}
		for _, err := range c.Refused() {
			fmt.Fprintln(stderr, "hands:", err)
		}
		u.clients = append(u.clients, c)
	}
	return u, nil
}

// scopes returns one scope per upstream, named after its server.
func (u *upstreams) scopes() []*tool.Scope {
	var scopes []*tool.Scope
	for _, c := range u.clients {
		scopes = append(scopes, &tool.Scope{Name: "upstream " + c.Name(), Tools: c.Tools()})
	}
	return scopes
}

// changed returns the OnChange of an upstream: the server's sessions are
// told of removed and changed tools; added ones wait for a restart, since
// a registry's tools are fixed when it is built.
func (u *upstreams) changed(stderr io.Writer) func(context.Context, mcpclient.Change) {
	return func(ctx context.Context, ch mcpclient.Change) {
		if len(ch.Added) > 0 {
			fmt.Fprintf(stderr, "hands: an upstream added %s; restart to serve them\n", strings.Join(ch.Added, ", "))
		}
		if srv := u.server.Load(); srv != nil {
			srv.Sync(ctx)
		}
	}
}

// close ends every upstream session at once: a server that ignores the end
// of its input is stopped after a few seconds, and they should not add up.
func (u *upstreams) close() error {
	errs := make([]error, len(u.clients))
	var wg sync.WaitGroup
	for i, c := range u.clients {
		wg.Go(func() { errs[i] = c.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
