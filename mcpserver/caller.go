package mcpserver

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/internal/mcptrace"
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
// the server works out whether a session's list changed, after the
// session's calls and in Sync (then with the session and what its latest
// request carried). It reports false outside a request
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

// A sessionList is what the server knows of one session's tool list. It
// has a lock of its own: no other session's request waits for it.
type sessionList struct {
	caller     atomic.Pointer[Caller] // from the session's latest request
	refreshing atomic.Bool            // a refresh after a call is scheduled

	mu      sync.Mutex
	names   []string // the tools last listed to it, or announced as changed; nil when the registry has no predicates
	changed bool     // the list changed, and the session is yet to be told
}

// refreshDelay is how long after a call the caller's list is evaluated
// again: the calls within it are answered by one evaluation.
const refreshDelay = 10 * time.Millisecond

// perCaller is a receiving middleware: every request is served with its
// Caller in the context, and tools/list lists the tools enabled for it.
func (s *Server) perCaller(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		caller := callerOf(req)
		ctx = context.WithValue(ctx, callerKey{}, caller)
		ctx = served(ctx, method, req, caller)
		if caller.Session != nil && method != "tools/list" {
			if l := s.list(caller.Session); l != nil {
				l.seen(caller)
			}
		}
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		var names []string
		if s.reg.HasPredicates() {
			names = s.reg.EnabledNames(ctx)
			enabled := make(map[string]bool, len(names))
			for _, n := range names {
				enabled[n] = true
			}
			if s.search != nil {
				enabled[SearchToolName] = true
			}
			list.Tools = slices.DeleteFunc(list.Tools, func(t *mcp.Tool) bool { return !enabled[t.Name] })
		}
		if s.search != nil {
			ss := caller.Session
			if ctx.Value(httpRequestKey{}) != nil {
				ss = nil // a stateless request's session ends with it
			}
			list.Tools = s.search.hide(list.Tools, ss)
		}
		if caller.Session != nil {
			s.remember(caller, names)
		}
		list.TTLMs, list.CacheScope = s.listTTLMs, s.listScope()
		return list, nil
	}
}

// listScope returns the cacheScope of a tools/list result (SEP-2549):
// "private" when the list may depend on who asks — the registry has an
// enabled predicate, which may read CallerFrom, or tool search lists to
// each session the tools its searches found — so that a shared cache
// keeps it for that caller alone; "public" when every caller is listed
// the same tools. A list the SDK would mark public by default could
// otherwise be served from a shared cache to a caller it was not made
// for.
func (s *Server) listScope() string {
	if s.reg.HasPredicates() || s.search != nil {
		return "private"
	}
	return "public"
}

// served returns ctx continuing the trace the request carries (SEP-414:
// traceparent, tracestate and baggage in its _meta, else in its HTTP
// headers) and marked with what otelhands records of an MCP request
// (mcptrace.Served): the method, the session's ID where there is one,
// the protocol version.
func served(ctx context.Context, method string, req mcp.Request, caller Caller) context.Context {
	var meta map[string]any
	if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
		meta = p.GetMeta()
	}
	ctx, link := mcptrace.Extract(ctx, meta, caller.Header)
	s := mcptrace.Served{Method: method, Link: link}
	s.ProtocolVersion, _ = meta[mcp.MetaKeyProtocolVersion].(string)
	if caller.Session != nil {
		if _, stateless := ctx.Value(httpRequestKey{}).(context.Context); !stateless {
			s.SessionID = caller.Session.ID()
		}
		if ip := caller.Session.InitializeParams(); s.ProtocolVersion == "" && ip != nil {
			s.ProtocolVersion = ip.ProtocolVersion
		}
	}
	return mcptrace.WithServed(ctx, s)
}

// list returns what the server knows of a session's list, or nil if the
// session has not listed tools.
func (s *Server) list(ss *mcp.ServerSession) *sessionList {
	if v, ok := s.sessions.Load(ss); ok {
		return v.(*sessionList)
	}
	return nil
}

// seen records the caller of a session's latest request, when it differs
// from the one recorded: an HTTP request's headers and token may.
func (l *sessionList) seen(c Caller) {
	if old := l.caller.Load(); old == nil || old.Token != c.Token || old.Header != nil || c.Header != nil {
		l.caller.Store(&c)
	}
}

// remember records the list a session was sent. A session is forgotten
// when it ends.
func (s *Server) remember(c Caller, names []string) {
	l := &sessionList{names: names}
	l.caller.Store(&c)
	if v, loaded := s.sessions.LoadOrStore(c.Session, l); loaded {
		old := v.(*sessionList)
		old.seen(c)
		old.mu.Lock()
		old.names = names
		old.mu.Unlock()
		return
	}
	go func() {
		c.Session.Wait() // ends when the session does
		s.sessions.Delete(c.Session)
	}()
}

// afterCall schedules the caller's list to be evaluated again, since the
// call may have changed what its predicates read: once refreshDelay has
// passed, and once for all the calls within it. Other sessions are not
// looked at; Sync does that. A registry without predicates has nothing to
// evaluate.
func (s *Server) afterCall(req *mcp.CallToolRequest) {
	if req.Session == nil || !s.reg.HasPredicates() {
		return
	}
	l := s.list(req.Session)
	if l == nil || !l.refreshing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(refreshDelay, func() {
		l.refreshing.Store(false)
		if s.refresh(context.Background(), l, nil) {
			s.regMu.Lock()
			defer s.regMu.Unlock()
			s.announce(context.Background(), nil, true)
		}
	})
}

// refresh evaluates the predicates for a session's caller and reports
// whether its list changed; the session is then marked to be told.
// changed holds the names of the registered tools whose spec changed.
func (s *Server) refresh(ctx context.Context, l *sessionList, changed map[string]bool) bool {
	// Predicates see this session's caller, and no other request.
	ctx = context.WithValue(context.WithValue(ctx, requestKey{}, nil), callerKey{}, *l.caller.Load())
	names := s.reg.EnabledNames(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Equal(names, l.names) && !slices.ContainsFunc(names, func(n string) bool { return changed[n] }) {
		return false
	}
	l.names, l.changed = names, true
	return true
}

// Sync makes the server follow its registry and sends
// notifications/tools/list_changed to the sessions whose list changed. It
// registers the tools added to the registry (Registry.Add) and registers
// again each tool whose spec changed, so that tools/list shows its spec now
// (name, description, schemas, annotations); then, if the registry has
// enabled predicates, it evaluates them for every session that has listed
// tools, each with its own Caller. A session is told when the names it
// would be listed changed, or when a tool among them changed. Call it when
// anything that predicates read changes for sessions other than the one
// calling, and after adding tools to the registry or changing a tool's
// spec. After a tools/call, the server itself evaluates the caller's list
// again, shortly after, for the calls of that moment together.
//
// Sync costs what changed: a tool's spec is built again only when the
// tool is new, says that it changed (tool.SpecVersioner), or cannot say;
// without predicates, sessions are not looked at unless a tool changed.
// Calls and listing never wait for it.
func (s *Server) Sync(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	s.regMu.Lock()
	defer s.regMu.Unlock()
	tools, gone := s.pending(ctx, true)
	changed := map[string]bool{} // registered before, with a new spec, or taken out
	for _, r := range tools {
		if _, ok := s.registered[r.tool.Name]; ok {
			changed[r.tool.Name] = true
		}
	}
	for _, name := range gone {
		changed[name] = true
	}
	predicates := s.reg.HasPredicates()
	if !predicates && len(tools) == 0 && len(gone) == 0 {
		return
	}
	// The sessions are marked before the SDK server changes, since its
	// list_changed goes out once it has (a few milliseconds later), and
	// listChanged lets it through only to the sessions marked.
	told := false
	s.sessions.Range(func(_, v any) bool {
		l := v.(*sessionList)
		if predicates {
			told = s.refresh(ctx, l, changed) || told
			return true
		}
		l.mu.Lock()
		l.names, l.changed = nil, true
		l.mu.Unlock()
		told = true
		return true
	})
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
		if s.search != nil {
			for _, name := range gone {
				s.search.remove(name)
			}
		}
	}
	s.announce(ctx, tools, told && len(gone) == 0)
}

// announce registers tools with the SDK server, which then sends
// list_changed to every session, and listChanged lets it through to those
// marked. When some session is marked and no tool is to be registered,
// one is registered again, which is how the SDK server is made to send it.
// Hold regMu.
func (s *Server) announce(ctx context.Context, tools []registration, told bool) {
	if told && len(tools) == 0 && s.search != nil {
		s.mcp.AddTool(s.search.listed, s.search.handler) // puts nothing in the index
		return
	}
	if told && len(tools) == 0 {
		for _, r := range s.registered {
			tools = append(tools, r)
			break
		}
	}
	for _, r := range tools {
		s.registerLive(ctx, r)
	}
}

// listChanged is a sending middleware that sends
// notifications/tools/list_changed only to sessions whose list changed.
func (s *Server) listChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			l := s.list(ss)
			if l == nil {
				return nil, nil
			}
			l.mu.Lock()
			send := l.changed
			l.changed = false
			l.mu.Unlock()
			if !send {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}
