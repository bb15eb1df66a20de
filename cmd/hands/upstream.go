package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreams are the MCP servers whose tools serve passes on (--upstream).
type upstreams struct {
	stderr io.Writer

	mu      sync.Mutex // guards what follows
	clients []*mcpclient.Client
	reg     *tool.Registry    // serves the upstreams' tools, once serve has run
	srv     *mcpserver.Server // serves reg
	refused map[string]bool   // tools reg could not take, named on stderr once
}

// connectUpstreams connects to each server: a streamable HTTP URL, or a
// command and its arguments, split at spaces, started with its standard
// error on stderr. An HTTP upstream that asks for OAuth is signed in to as
// auth says. Tools an upstream offers that hands cannot are named on
// stderr.
func connectUpstreams(ctx context.Context, specs []string, auth *upstreamAuth, stderr io.Writer) (*upstreams, error) {
	u := &upstreams{stderr: stderr, refused: map[string]bool{}}
	for _, spec := range specs {
		var transport mcp.Transport
		if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
			var err error
			if transport, err = auth.transport(spec); err != nil {
				u.close()
				return nil, fmt.Errorf("--upstream %q: %w", spec, err)
			}
		} else {
			args := strings.Fields(spec)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = upstreamEnv(os.Environ())
			cmd.Stderr = stderr
			transport = &mcp.CommandTransport{Command: cmd}
		}
		c, err := mcpclient.Connect(ctx, transport, &mcpclient.Options{OnChange: u.changed, Elicit: relayElicit, Sample: relaySample})
		if err != nil {
			u.close()
			return nil, fmt.Errorf("--upstream %q: %w", spec, err)
		}
		for _, err := range c.Refused() {
			fmt.Fprintln(stderr, "hands:", err)
		}
		u.mu.Lock()
		u.clients = append(u.clients, c)
		u.mu.Unlock()
	}
	return u, nil
}

// scopes returns one scope per upstream, named after its server.
func (u *upstreams) scopes() []*tool.Scope {
	u.mu.Lock()
	defer u.mu.Unlock()
	var scopes []*tool.Scope
	for _, c := range u.clients {
		scopes = append(scopes, &tool.Scope{Name: "upstream " + c.Name(), Tools: c.Tools()})
	}
	return scopes
}

// serve passes the upstreams' changes on from now on to reg, which holds
// their scopes, and srv, which serves it; tools added upstream since reg
// was built are added at once.
func (u *upstreams) serve(ctx context.Context, reg *tool.Registry, srv *mcpserver.Server) {
	u.mu.Lock()
	u.reg, u.srv = reg, srv
	u.mu.Unlock()
	u.follow(ctx)
}

// changed is the OnChange of every upstream.
func (u *upstreams) changed(ctx context.Context, _ mcpclient.Change) { u.follow(ctx) }

// follow adds to the registry the upstreams' tools it does not hold (each
// change adds a scope, named as the upstream's first one) and has the
// server sync, which lists the added tools, shows the new specs of the
// changed ones and stops listing the removed ones, which report themselves
// disabled. A tool whose name the registry cannot take is named on stderr,
// once.
func (u *upstreams) follow(ctx context.Context) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.srv == nil {
		return // scopes has not run yet, or serve will add what it missed
	}
	for _, c := range u.clients {
		var added []tool.Interface
		for _, t := range c.Tools() {
			if held, ok := u.reg.Lookup(t.Name()); (!ok || held != t) && !u.refused[t.Name()] {
				added = append(added, t) // new, or with the name of a tool served already
			}
		}
		if len(added) == 0 {
			continue
		}
		for len(added) > 0 {
			err := u.reg.Add(&tool.Scope{Name: "upstream " + c.Name(), Tools: added})
			if err == nil {
				break
			}
			// The registry adds all or nothing: the others go in without
			// the tools it refused.
			fmt.Fprintln(u.stderr, "hands: not serving a tool an upstream added:", err)
			for _, name := range refusedNames(err) {
				u.refused[name] = true
			}
			n := len(added)
			added = slices.DeleteFunc(added, func(t tool.Interface) bool { return u.refused[t.Name()] })
			if len(added) == n {
				break // not a name the registry refused; not expected
			}
		}
	}
	u.srv.Sync(ctx)
}

// refusedNames returns the names of the *tool.NameErrors in err, which
// Registry.Add joins.
func refusedNames(err error) []string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var names []string
	for _, e := range errs {
		if ne, ok := errors.AsType[*tool.NameError](e); ok {
			names = append(names, ne.Name)
		}
	}
	return names
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

// upstreamEnv returns the environment an upstream command is started with:
// hands' own, less the secret that guards hands itself — an upstream is
// another program, and the token that lets clients in is not its to see.
func upstreamEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HANDS_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}
