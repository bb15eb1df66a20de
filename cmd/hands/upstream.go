package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hands-go/hands/mcpclient"
	"github.com/hands-go/hands/mcpserver"
	"github.com/hands-go/hands/tool"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreams are the MCP servers whose tools serve passes on (--upstream).
type upstreams struct {
	stderr   io.Writer
	deferred bool // --tool-search: the upstreams' tools are deferred

	mu      sync.Mutex // guards what follows
	clients []*mcpclient.Client
	reg     *tool.Registry    // serves the upstreams' tools, once serve has run
	srv     *mcpserver.Server // serves reg
	refused map[string]bool   // tools reg could not take, named on stderr once
	budget  int               // how many tools the upstreams may offer together (toolBudget)
	// served are the tools of each upstream that reg holds, so that those
	// an upstream no longer offers are removed from it.
	served map[*mcpclient.Client][]tool.Interface
}

// An upstreamSpec is one --upstream: [NAME=]CMD or [NAME=]URL.
type upstreamSpec struct {
	// name is the operator's name for the upstream, which prefixes its
	// tools' names (name + "_"); "" for none: the upstream is then named
	// after its server, and its tools keep their names.
	name   string
	target string // a command line, or an http(s) URL
}

// upstreamName is the NAME= that may start an --upstream: a word that no
// command line or URL starts with (a URL's scheme ends with a colon).
var upstreamName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}=`)

// parseUpstream reads an --upstream.
func parseUpstream(v string) (upstreamSpec, error) {
	u := upstreamSpec{target: v}
	if m := upstreamName.FindString(v); m != "" {
		u.name, u.target = m[:len(m)-1], v[len(m):]
	}
	if strings.TrimSpace(u.target) == "" {
		return u, errors.New("no command given")
	}
	if !isURL(u.target) {
		if _, err := splitWords(u.target); err != nil {
			return u, err
		}
	}
	return u, nil
}

func isURL(target string) bool {
	return strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://")
}

// toolBudget is how many tools the upstreams may offer together beside
// bundled tools: with them, one page of tools/list, so that a client that
// reads only the first page sees every tool, and no upstream can push the
// bundled tools off it. With --tool-search (deferred) tools/list is one
// page of the tools not deferred and those found, so the upstreams may
// offer maxDeferredTools together, each at most mcpclient.DefaultMaxTools.
// Upstreams take it first come, first served, in the order of the command
// line.
func toolBudget(bundled int, deferred bool) int {
	if deferred {
		return maxDeferredTools
	}
	return max(0, mcp.DefaultPageSize-bundled)
}

// budgetReason says where toolBudget comes from.
func budgetReason(bundled int, deferred bool) string {
	if deferred {
		return "with --tool-search"
	}
	return fmt.Sprintf("%d on one page of tools/list, less hands' own %d", mcp.DefaultPageSize, bundled)
}

// maxDeferredTools bounds the upstreams' tools together under
// --tool-search: what the search index and the server hold, ten times a
// page of tools/list.
const maxDeferredTools = 10 * mcp.DefaultPageSize

// connectUpstreams connects to each server: a streamable HTTP URL, or a
// command line, split into words as a POSIX shell does (splitWords) and
// started with the environment upstreamEnv allows and its standard error
// on stderr. passEnv names the variables an upstream command gets besides
// those of safeEnv. An HTTP upstream that asks for OAuth is signed in to
// as auth says. Tools an upstream offers that hands cannot are named on
// stderr. With deferred (--tool-search), the upstreams' scopes defer
// their tools (tool.Scope.DeferLoading).
//
// An upstream that cannot be served — it does not start or answer, or its
// tools do not fit in what is left of toolBudget — is named on stderr with
// the reason, and the others are served. connectUpstreams fails only when
// upstreams were given and none of them can be served.
func connectUpstreams(ctx context.Context, specs []upstreamSpec, passEnv []string, bundled int, deferred bool, auth *upstreamAuth, stderr io.Writer) (*upstreams, error) {
	budget := toolBudget(bundled, deferred)
	u := &upstreams{stderr: stderr, deferred: deferred, budget: budget, refused: map[string]bool{}, served: map[*mcpclient.Client][]tool.Interface{}}
	var errs []error
	used := 0
	for _, spec := range specs {
		c, err := connectSpec(ctx, spec, u, passEnv, budget, auth, stderr)
		if err == nil && used+len(c.Tools()) > budget {
			err = fmt.Errorf("its %d tools do not fit: the upstreams before it offer %d of the %d tools upstreams may offer together (%s)",
				len(c.Tools()), used, budget, budgetReason(bundled, deferred))
			c.Close()
		}
		if err != nil {
			err = fmt.Errorf("--upstream %q: %w", cmp.Or(spec.name, spec.target), err)
			fmt.Fprintln(stderr, "hands: not serving", err)
			errs = append(errs, err)
			continue
		}
		used += len(c.Tools())
		for _, err := range c.Refused() {
			fmt.Fprintln(stderr, "hands:", err)
		}
		u.mu.Lock()
		u.clients = append(u.clients, c)
		u.mu.Unlock()
	}
	if len(specs) > 0 && len(u.clients) == 0 {
		return nil, fmt.Errorf("no --upstream can be served: %w", errors.Join(errs...))
	}
	return u, nil
}

// connectSpec connects to the upstream spec names, for u.
func connectSpec(ctx context.Context, spec upstreamSpec, u *upstreams, passEnv []string, budget int, auth *upstreamAuth, stderr io.Writer) (*mcpclient.Client, error) {
	var transport func() mcp.Transport
	if isURL(spec.target) {
		if _, err := auth.transport(spec.target); err != nil {
			return nil, err
		}
		transport = func() mcp.Transport {
			t, _ := auth.transport(spec.target) // the same settings gave no error above
			return t
		}
	} else {
		args, err := splitWords(spec.target)
		if err != nil || len(args) == 0 {
			return nil, cmp.Or(err, errors.New("no command given"))
		}
		transport = func() mcp.Transport {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = upstreamEnv(os.Environ(), passEnv)
			cmd.Stderr = stderr
			return &mcpclient.CommandTransport{Command: cmd}
		}
	}
	opts := mcpclient.Options{
		Name:      spec.name,
		OnChange:  u.changed,
		Elicit:    relayElicit,
		Sample:    relaySample,
		MaxTools:  max(1, min(budget, mcpclient.DefaultMaxTools)),
		Reconnect: transport, // an upstream that exits is started again
		Logger:    slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if spec.name != "" {
		opts.Prefix = spec.name + "_"
	}
	return connectUpstream(ctx, transport(), opts)
}

// connectUpstream connects to one upstream over transport with opts.
//
// An upstream at an http(s) URL may have a person sign in first, which
// the OAuth flow waits for up to mcpclient.DefaultAuthorizationWait, but
// the handshake is held to the listing's bound, which would end the
// sign-in after 30 s. So for such an upstream the listings and
// handshakes get the sign-in's wait on top of mcpclient.DefaultListTimeout,
// since any of them may have the person sign in again; and this first
// connection, at serve's start, is held to DefaultListTimeout by a clock
// of its own that stops while a sign-in is under way and starts again,
// from zero, once it is done. A server that does not answer still holds
// serve up for 30 s; a person signing in has the 5 minutes.
func connectUpstream(ctx context.Context, transport mcp.Transport, opts mcpclient.Options) (*mcpclient.Client, error) {
	t, ok := transport.(*mcp.StreamableClientTransport)
	if !ok || t.OAuthHandler == nil {
		return mcpclient.Connect(ctx, transport, &opts)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	clock := &signInClock{timer: time.AfterFunc(mcpclient.DefaultListTimeout, func() { cancel(errUpstreamTimeout) })}
	defer clock.stop()
	t.OAuthHandler = &signingIn{OAuthHandler: t.OAuthHandler, clock: clock}
	opts.ListTimeout = mcpclient.DefaultListTimeout + mcpclient.DefaultAuthorizationWait
	c, err := mcpclient.Connect(ctx, t, &opts)
	if err != nil && context.Cause(ctx) == errUpstreamTimeout {
		return nil, fmt.Errorf("%w: %w", errUpstreamTimeout, err)
	}
	return c, err
}

// errUpstreamTimeout ends a first connection to an upstream at an http(s)
// URL that took longer than the listing's bound, sign-in aside.
var errUpstreamTimeout = fmt.Errorf("the upstream did not answer within %v", mcpclient.DefaultListTimeout)

// A signInClock bounds a first connection to an upstream, without the
// time a sign-in takes.
type signInClock struct {
	mu        sync.Mutex
	timer     *time.Timer // ends the connection
	signingIn int         // the sign-ins under way
	stopped   bool        // the connection is made, or failed
}

// begin stops the clock for a sign-in.
func (c *signInClock) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.signingIn++; c.signingIn == 1 && !c.stopped {
		c.timer.Stop()
	}
}

// end starts the clock again, from zero, when no sign-in is under way.
func (c *signInClock) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.signingIn--; c.signingIn == 0 && !c.stopped {
		c.timer.Reset(mcpclient.DefaultListTimeout)
	}
}

// stop stops the clock for good.
func (c *signInClock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.timer.Stop()
}

// signingIn is an OAuth handler whose sign-ins stop a signInClock.
type signingIn struct {
	auth.OAuthHandler
	clock *signInClock
}

// Authorize runs the sign-in with the clock stopped.
func (s *signingIn) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	s.clock.begin()
	defer s.clock.end()
	return s.OAuthHandler.Authorize(ctx, req, resp)
}

// scopes returns one scope per upstream, named after it, with the tools
// whose names are not taken: by a tool taken (hands' own) or by an
// earlier upstream's. A tool left out is named on stderr, with its
// upstream, and is not served.
func (u *upstreams) scopes(taken func(name string) bool) []*tool.Scope {
	u.mu.Lock()
	defer u.mu.Unlock()
	held := map[string]string{} // the upstream of each tool name served
	var scopes []*tool.Scope
	for _, c := range u.clients {
		var tools []tool.Interface
		for _, t := range c.Tools() {
			name := t.Name()
			switch other, ok := held[name]; {
			case taken(name):
				fmt.Fprintf(u.stderr, "hands: not serving the tool %s of the upstream %s: hands has a tool of that name; name the upstream (--upstream NAME=...) to prefix its tools with NAME_\n", name, c.Name())
			case ok:
				fmt.Fprintf(u.stderr, "hands: not serving the tool %s of the upstream %s: the upstream %s has a tool of that name; name the upstream (--upstream NAME=...) to prefix its tools with NAME_\n", name, c.Name(), other)
			default:
				held[name] = c.Name()
				tools = append(tools, t)
				continue
			}
			u.refused[name] = true
		}
		u.served[c] = tools
		scopes = append(scopes, &tool.Scope{Name: "upstream " + c.Name(), Tools: tools, DeferLoading: u.deferred})
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

// follow removes from the registry the upstreams' tools they no longer
// offer, adds those it does not hold (each change adds a scope, named as
// the upstream's first one) and has the server sync, which lists the added
// tools, shows the new specs of the changed ones and stops listing the
// removed ones. What the registry holds of an upstream is thus its list
// now, whatever it offered before. A tool whose name the registry cannot
// take is named on stderr, once.
func (u *upstreams) follow(ctx context.Context) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.srv == nil {
		return // scopes has not run yet, or serve will add what it missed
	}
	for _, c := range u.clients {
		now := c.Tools()
		offered := make(map[tool.Interface]bool, len(now))
		for _, t := range now {
			offered[t] = true
		}
		var gone []tool.Interface
		for _, t := range u.served[c] {
			if !offered[t] {
				gone = append(gone, t)
			}
		}
		u.reg.Remove(gone...)
		u.served[c] = slices.DeleteFunc(u.served[c], func(t tool.Interface) bool { return !offered[t] })
		var added []tool.Interface
		for _, t := range now {
			if held, ok := u.reg.Lookup(t.Name()); (!ok || held != t) && !u.refused[t.Name()] {
				added = append(added, t) // new, or with the name of a tool served already
			}
		}
		if len(added) == 0 {
			continue
		}
		if left := u.budget - u.servedCount(); len(added) > left {
			for _, t := range added[max(left, 0):] {
				if !u.refused[t.Name()] {
					fmt.Fprintf(u.stderr, "hands: not serving the tool %s that the upstream %s added: the upstreams offer the %d tools they may offer together\n", t.Name(), c.Name(), u.budget)
					u.refused[t.Name()] = true
				}
			}
			added = added[:max(left, 0)]
		}
		for len(added) > 0 {
			err := u.reg.Add(&tool.Scope{Name: "upstream " + c.Name(), Tools: added, DeferLoading: u.deferred})
			if err == nil {
				u.served[c] = append(u.served[c], added...)
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
	// Forget the refusals of names no upstream offers now, so that they
	// cannot pile up either.
	offered := map[string]bool{}
	for _, c := range u.clients {
		for _, t := range c.Tools() {
			offered[t.Name()] = true
		}
	}
	maps.DeleteFunc(u.refused, func(name string, _ bool) bool { return !offered[name] })
	u.srv.Sync(ctx)
}

// servedCount returns how many tools of the upstreams reg holds. Hold mu.
func (u *upstreams) servedCount() int {
	n := 0
	for _, tools := range u.served {
		n += len(tools)
	}
	return n
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

// safeEnv names the variables of hands' environment that every upstream
// command gets: where it lives and how it should speak, nothing that
// grants access. LC_ stands for every LC_ variable.
var safeEnv = []string{"HOME", "PATH", "LANG", "LC_", "TMPDIR", "TEMP", "TMP", "TZ", "TERM", "USER", "LOGNAME", "SHELL",
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PROGRAMDATA", "PROGRAMFILES"}

// upstreamEnv returns the environment an upstream command is started with:
// the variables of env named in safeEnv or in pass, and no other — an
// upstream is another program, and hands' credentials (its token, cloud
// and model keys) are not its to see unless the operator passes them on
// by name. HANDS_TOKEN, HANDS_TOKENS and HANDS_STATE_KEY are never passed.
func upstreamEnv(env, pass []string) []string {
	out := make([]string, 0, len(safeEnv)+len(pass))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HANDS_TOKEN" || name == "HANDS_TOKENS" || name == "HANDS_STATE_KEY" {
			continue
		}
		if slices.Contains(safeEnv, name) || slices.Contains(pass, name) || strings.HasPrefix(name, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}
