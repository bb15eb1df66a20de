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

// Sync evaluates the enabled predicates for every session that has listed
// tools, each with its own Caller, and sends notifications/tools/list_changed
// to those whose list changed. The server calls it after every tools/call;
// call it when anything else that predicates read changes. Sessions that
// have ended are forgotten.
func (s *Server) Sync(ctx context.Context) {
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
	changed := false
	for _, l := range lists {
		// Predicates see this session's caller, and no other request.
		names := s.reg.EnabledNames(context.WithValue(context.WithValue(ctx, requestKey{}, nil), callerKey{}, l.caller))
		s.mu.Lock()
		if !slices.Equal(names, l.names) {
			l.names, l.changed, changed = names, true, true
		}
		s.mu.Unlock()
	}
	if changed && len(s.names) > 0 {
		// The SDK sends list_changed to every session when its tools
		// change; registering a tool again is such a change, and
		// listChanged lets the notification through only to the sessions
		// marked above.
		name := s.names[0]
		t, _ := s.reg.Lookup(name)
		spec := t.Spec()
		s.mcp.AddTool(mcpTool(spec), s.handler(spec))
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
