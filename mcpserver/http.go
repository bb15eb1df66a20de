package mcpserver

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions.
const (
	// DefaultSessionTimeout is how long a session may go without a request
	// before it is closed.
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultMaxSessions is how many sessions may be open at once.
	DefaultMaxSessions = 1000
)

// HTTPOptions configure HTTPHandler. A nil *HTTPOptions selects every
// default.
type HTTPOptions struct {
	// Stateless serves every request on its own, with no session kept
	// between requests, so that many replicas can run behind any load
	// balancer. Server-to-client requests and list-change notifications are
	// then unavailable.
	Stateless bool
	// JSONResponse answers with application/json rather than a stream of
	// server-sent events.
	JSONResponse bool
	// SessionTimeout closes a session that has had no request for this
	// long, and frees what it held. Zero selects DefaultSessionTimeout; a
	// negative value keeps idle sessions open until the client ends them.
	SessionTimeout time.Duration
	// MaxSessions is how many sessions may be open on the server at once.
	// A request that would open one more is refused with 503 Service
	// Unavailable and a Retry-After header. Zero selects DefaultMaxSessions;
	// a negative value removes the cap.
	MaxSessions int
}

// HTTPHandler returns a handler for MCP's streamable HTTP transport.
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	timeout := o.SessionTimeout
	switch {
	case timeout == 0:
		timeout = DefaultSessionTimeout
	case timeout < 0:
		timeout = 0 // the SDK's "never"
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	h := &httpHandler{
		srv:  s,
		opts: o,
		sdk: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
			Stateless:      o.Stateless,
			JSONResponse:   o.JSONResponse,
			Logger:         s.logger,
			SessionTimeout: timeout,
		}),
	}
	return h
}

// An httpHandler guards the SDK's streamable HTTP handler.
type httpHandler struct {
	srv  *Server
	opts HTTPOptions
	sdk  *mcp.StreamableHTTPHandler

	opening atomic.Int64 // requests that may open a session, now
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Stateless && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && h.opts.MaxSessions > 0 {
		// A POST without a session ID opens a session. Those being opened
		// count against the cap too, so that a burst cannot overshoot it.
		defer h.opening.Add(-1)
		if n := h.opening.Add(1) - 1; n+int64(h.srv.sessionCount()) >= int64(h.opts.MaxSessions) {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
			http.Error(w, "too many sessions; try again later", http.StatusServiceUnavailable)
			return
		}
	}
	h.sdk.ServeHTTP(w, r)
}

// retryAfter is the Retry-After, in seconds, of a request refused at the
// session cap.
const retryAfter = 5

// sessionCount returns how many sessions are open on the server.
func (s *Server) sessionCount() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}
