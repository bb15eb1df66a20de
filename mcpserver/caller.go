package mcpserver

import (
	"context"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Caller is who sent the MCP request being served: what an enabled
// predicate, a middleware or a handler knows of the client.
type Caller struct {
	// Session is the client's session.
	Session *mcp.ServerSession
	// Token is the verified bearer token of a request to an HTTP endpoint
	// that requires one (HTTPOptions.Verify); nil otherwise. Its UserID
	// and Scopes say who calls.
	Token *auth.TokenInfo
	// Header holds the HTTP request's headers on streamable HTTP; nil on
	// other transports.
	Header http.Header
}

// callerKey is the context key of the Caller.
type callerKey struct{}

// CallerFrom returns who sent the MCP request that ctx serves. Enabled
// predicates are evaluated with it for tools/list, for tools/call, and when
// Sync works out which sessions' lists changed (then with the session and
// what its latest request carried). It reports false outside a request
// served by a Server.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// callerOf returns the Caller of req.
func callerOf(req mcp.Request) Caller {
	c := Caller{}
	c.Session, _ = req.GetSession().(*mcp.ServerSession)
	if extra := req.GetExtra(); extra != nil {
		c.Token, c.Header = extra.TokenInfo, extra.Header
	}
	return c
}

// A sessionList is what the server knows of one session's tool list.
type sessionList struct {
	caller  Caller   // from the session's latest request
	names   []string // the tools last listed to it, or announced as changed
	changed bool     // the list changed, and the session is yet to be told
}

// perCaller is a receiving middleware: every request is served with its
// Caller in the context, and tools/list lists the tools enabled for it.
func (s *Server) perCaller(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		caller := callerOf(req)
		ctx = context.WithValue(ctx, callerKey{}, caller)
		if caller.Session != nil && method != "tools/list" {
			s.mu.Lock()
			if l := s.sessions[caller.Session]; l != nil {
				l.caller = caller // what its latest request carried
			}
			s.mu.Unlock()
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		names := s.reg.EnabledNames(ctx)
		list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !slices.Contains(names, t.Name) })
		if caller.Session != nil {
			s.remember(caller.Session, &sessionList{caller: caller, names: names})
		}
		return list, nil
	}
}

// remember records the list a session was sent. Sessions that have ended
// are forgotten here too, each time the map has doubled, so that many
// short sessions (stateless HTTP) cannot grow it without bound.
func (s *Server) remember(ss *mcp.ServerSession, l *sessionList) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[ss] = l
	if len(s.sessions) < s.pruneAt {
		return
	}
	s.mu.Unlock()
	live := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	for ss := range s.sessions {
		if !live[ss] {
			delete(s.sessions, ss)
		}
	}
	s.pruneAt = 2*len(s.sessions) + 64
}

// Sync makes the server follow its registry and sends
// notifications/tools/list_changed to the sessions whose list changed. It
// registers the tools added to the registry (Registry.Add), unregisters
// those taken out (Registry.Remove) and registers again each tool whose
// Spec changed, so that tools/list shows its spec now
// (name, description, schemas, annotations); then it evaluates the enabled
// predicates for every session that has listed tools, each with its own
// Caller. A session is told when the names it would be listed changed, or
// when a tool among them changed. The server itself runs Sync, without
// comparing specs, after every tools/call; call it when anything else that
// predicates read changes, and after adding tools to the registry or
// changing a tool's spec. Sessions that have ended are forgotten.
func (s *Server) Sync(ctx context.Context) { s.sync(ctx, true) }

// sync is Sync; specs says whether to compare the specs of the tools
// already registered, which builds every spec.
func (s *Server) sync(ctx context.Context, specs bool) {
	live := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	lists := make(map[*mcp.ServerSession]*sessionList, len(s.sessions))
	for ss, l := range s.sessions {
		if live[ss] {
			lists[ss] = l
		} else {
			delete(s.sessions, ss)
		}
	}
	s.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	enabled := make(map[*sessionList][]string, len(lists))
	for _, l := range lists {
		// Predicates see this session's caller, and no other request.
		enabled[l] = s.reg.EnabledNames(context.WithValue(context.WithValue(ctx, requestKey{}, nil), callerKey{}, l.caller))
	}

	// The sessions are marked before the SDK server changes, since its
	// list_changed goes out once it has (a few milliseconds later), and
	// listChanged lets it through only to the sessions marked.
	s.regMu.Lock()
	defer s.regMu.Unlock()
	tools := s.pending(ctx, specs)
	changed := false
	s.mu.Lock()
	for l, names := range enabled {
		if !slices.Equal(names, l.names) || slices.ContainsFunc(tools, func(r registration) bool {
			_, ok := s.registered[r.tool.Name]
			return ok && slices.Contains(names, r.tool.Name)
		}) {
			l.names, l.changed, changed = names, true, true
		}
	}
	s.mu.Unlock()
	if changed && len(tools) == 0 {
		// Registering a tool again is how the SDK server is made to send
		// list_changed.
		for _, r := range s.registered {
			tools = append(tools, r)
			break
		}
	}
	for _, r := range tools {
		s.registerLive(ctx, r)
	}
	s.unregisterRemoved()
}

// unregisterRemoved removes from the SDK server the tools the registry no
// longer holds (Registry.Remove), so that what it holds, and pages through
// in tools/list, is the registry's tools and no more. Hold regMu.
func (s *Server) unregisterRemoved() {
	var gone []string
	for name := range s.registered {
		if _, ok := s.reg.Lookup(name); !ok {
			gone = append(gone, name)
			delete(s.registered, name)
			delete(s.refused, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
}

// listChanged is a sending middleware that sends
// notifications/tools/list_changed only to sessions whose list changed.
func (s *Server) listChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			s.mu.Lock()
			l := s.sessions[ss]
			send := l != nil && l.changed
			if send {
				l.changed = false
			}
			s.mu.Unlock()
			if !send {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}
