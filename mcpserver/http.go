package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hands-go/hands/internal/mcptask"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of HTTPOptions.
const (
	// DefaultSessionTimeout is how long a session may go without a request
	// before it is closed.
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultMaxSessions is how many sessions may be open at once.
	DefaultMaxSessions = 1000
	// DefaultBodyTimeout is how long a request's body may take to arrive.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMaxBodyBytes is the largest request body read: 16 MiB, room
	// for a tool whose own limit is a few MiB to see the arguments and say
	// what its limit is.
	DefaultMaxBodyBytes = 16 << 20
	// DefaultResumeBytes is how much memory, over all sessions, keeps the
	// messages of streams that a client may resume.
	DefaultResumeBytes = 10 << 20
	// DefaultReconnectDelay is the reconnection time sent at the start of
	// every event stream.
	DefaultReconnectDelay = time.Second
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
	// AllowedOrigins are the origins (such as "https://app.example.com")
	// whose pages may send requests; "*" allows any. A request without an
	// Origin header is allowed, and so are localhost origins when the
	// request came to a loopback address. Any other Origin is refused with
	// 403 Forbidden, as the transport specification requires against DNS
	// rebinding.
	AllowedOrigins []string
	// BodyTimeout is how long a request's body may take to arrive once its
	// headers have; a client that trickles its body is cut off with 408
	// Request Timeout. It bounds the body only, not the response, so event
	// streams and long calls are unaffected. Zero selects
	// DefaultBodyTimeout; a negative value removes the bound.
	BodyTimeout time.Duration
	// MaxBodyBytes is the largest request body read. A larger one is
	// refused with 413 Content Too Large and a JSON-RPC error; a body within
	// it reaches the tool, whose own limits (tool.WithLimits, and checks in
	// its handler) then answer with an error result the model can act on.
	// Zero selects DefaultMaxBodyBytes; a negative value removes the limit.
	MaxBodyBytes int64
	// ResumeBytes bounds the memory that keeps the messages sent on each
	// stream, so that a client whose stream broke mid-call reconnects with
	// Last-Event-ID and gets what it missed (in the SDK's
	// mcp.MemoryEventStore: over the bound, the first message of every
	// stream is dropped, round after round). It applies in stateful mode,
	// to sessions on protocol versions before 2026-07-28, which have
	// resumable streams (later versions send the request again instead).
	// Zero selects DefaultResumeBytes; a negative value turns resumption
	// off.
	ResumeBytes int
	// ReconnectDelay is sent as the retry field at the start of every event
	// stream: how long a client whose stream broke waits before it
	// reconnects (and, with resumption, asks for what it missed). Zero
	// selects DefaultReconnectDelay; a negative value sends none, leaving
	// the client to its own delay.
	ReconnectDelay time.Duration
	// Verify, when set, requires a bearer token on every request to the
	// endpoint (and to the playground's tools.json), checked with the
	// SDK's auth.RequireBearerToken: a request without a valid token gets
	// 401 with a WWW-Authenticate header, a Bearer challenge that names
	// ResourceMetadataURL when it is set. The verified token reaches
	// predicates and handlers as CallerFrom(ctx).Token. StaticToken makes
	// a Verify for a single user.
	Verify auth.TokenVerifier
	// ResourceMetadataURL is where the OAuth 2.0 protected resource
	// metadata (RFC 9728) is served, such as
	// "https://mcp.example.com/.well-known/oauth-protected-resource", so
	// that clients can find the authorization server; serve it there with
	// auth.ProtectedResourceMetadataHandler.
	ResourceMetadataURL string
	// Scopes are the scopes a token must carry.
	Scopes []string
}

// StaticToken returns a Verify for one secret token, for a single user: a
// request that presents it is served as UserID user. The comparison takes
// the same time whatever is presented, and shows neither where it differs
// from the token nor the token's length. An empty token admits nobody.
func StaticToken(token, user string) auth.TokenVerifier {
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if !equalTokens(got, token) || token == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
}

// StaticTokens returns a Verify for several secret tokens, one a caller:
// tokens maps each caller's name to its token, and a request that
// presents a token is served as UserID the name it maps from, so that
// what is kept per user — enabled predicates' lists, result budgets,
// request states — is kept per caller. Each presented token is compared
// with every caller's, in constant time, so the time taken shows neither
// which caller's token it is nor where it differs from any. It returns an
// error, naming the callers but never their tokens, when a name or a
// token is empty or two callers share a token (which would make them one
// caller), and when tokens is empty.
func StaticTokens(tokens map[string]string) (auth.TokenVerifier, error) {
	if len(tokens) == 0 {
		return nil, errors.New("mcpserver: StaticTokens needs at least one caller's token")
	}
	type entry struct {
		user   string
		digest [sha256.Size]byte
	}
	entries := make([]entry, 0, len(tokens))
	owner := make(map[[sha256.Size]byte]string, len(tokens))
	for _, user := range slices.Sorted(maps.Keys(tokens)) {
		token := tokens[user]
		switch {
		case user == "":
			return nil, errors.New("mcpserver: StaticTokens has a token without a caller's name")
		case token == "":
			return nil, fmt.Errorf("mcpserver: the token of caller %q is empty", user)
		}
		d := sha256.Sum256([]byte(token))
		if other, ok := owner[d]; ok {
			return nil, fmt.Errorf("mcpserver: callers %q and %q have the same token; give each its own", other, user)
		}
		owner[d] = user
		entries = append(entries, entry{user, d})
	}
	return func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		d := sha256.Sum256([]byte(got))
		match := -1
		for i := range entries { // every entry, whichever matches
			if subtle.ConstantTimeCompare(d[:], entries[i].digest[:]) == 1 {
				match = i
			}
		}
		if match < 0 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: entries[match].user, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil
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
	if o.BodyTimeout == 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.ReconnectDelay == 0 {
		o.ReconnectDelay = DefaultReconnectDelay
	}
	var events mcp.EventStore
	if o.ResumeBytes == 0 {
		o.ResumeBytes = DefaultResumeBytes
	}
	if o.ResumeBytes > 0 && !o.Stateless {
		store := mcp.NewMemoryEventStore(nil)
		store.SetMaxBytes(o.ResumeBytes)
		events = store
	}
	h := &httpHandler{
		srv:  s,
		opts: o,
		sdk: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
			Stateless:      o.Stateless,
			JSONResponse:   o.JSONResponse,
			Logger:         s.logger,
			SessionTimeout: timeout,
			EventStore:     events,
			// The body is read and bounded before the SDK sees it.
			MaxRequestBodyBytes:          -1,
			PropagateRequestCancellation: true,
		}),
	}
	h.next = o.requireToken(h.sdk)
	if o.ReconnectDelay > 0 {
		h.retry = retryField(o.ReconnectDelay.Milliseconds())
	}
	return h
}

// requireToken wraps next in the SDK's bearer-token check when the options
// set Verify; otherwise it returns next.
func (o *HTTPOptions) requireToken(next http.Handler) http.Handler {
	if o.Verify == nil {
		return next
	}
	return challenge(auth.RequireBearerToken(o.Verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: o.ResourceMetadataURL,
		Scopes:              o.Scopes,
	})(next))
}

// An httpHandler guards the SDK's streamable HTTP handler.
type httpHandler struct {
	srv   *Server
	opts  HTTPOptions
	sdk   *mcp.StreamableHTTPHandler
	next  http.Handler // sdk, behind the token check when there is one
	retry []byte       // the SSE retry field that starts each event stream; nil for none

	opening atomic.Int64 // requests that may open a session, now
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !hostAllowed(r) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not allowed on a loopback address", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(r, origin, h.opts.AllowedOrigins) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("origin %q is not allowed", origin))
		return
	}
	if r.Method == http.MethodPost && !h.readBody(w, r) {
		return
	}
	if h.opts.Stateless {
		// The request is the whole session: when the client goes away, the
		// calls it made end (see Server.handler).
		r = r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, r.Context()))
	}
	if !h.opts.Stateless && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && h.opts.MaxSessions > 0 {
		// A POST without a session ID opens a session. Those being opened
		// count against the cap too, so that a burst cannot overshoot it.
		defer h.opening.Add(-1)
		if n := h.opening.Add(1) - 1; n+int64(h.srv.sessionCount()) >= int64(h.opts.MaxSessions) {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
			writeError(w, http.StatusServiceUnavailable, "too many sessions are open; try again later")
			return
		}
	}
	if h.retry != nil {
		w = &retryWriter{ResponseWriter: w, field: h.retry}
	}
	h.next.ServeHTTP(w, r)
}

// readBody reads the body of r within the body timeout and size limit and
// puts it back in r for the SDK; it reports false when it has answered the
// request instead.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) bool {
	rc := http.NewResponseController(w)
	if h.opts.BodyTimeout > 0 {
		if err := rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout)); err == nil {
			defer rc.SetReadDeadline(time.Time{})
		}
	}
	body := r.Body
	if h.opts.MaxBodyBytes > 0 {
		body = http.MaxBytesReader(w, body, h.opts.MaxBodyBytes)
	}
	data, err := io.ReadAll(body)
	r.Body.Close()
	if err != nil {
		w.Header().Set("Connection", "close")
		if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over the limit of %d bytes", mbe.Limit))
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %v", h.opts.BodyTimeout))
		} else {
			writeError(w, http.StatusBadRequest, "the request body could not be read")
		}
		return false
	}
	if msg := taskNameMismatch(r.Header, data); msg != "" {
		writeRPCError(w, http.StatusBadRequest, mcptask.CodeHeaderMismatch, msg)
		return false
	}
	data = mcptask.LiftRequest(data) // see taskCalls
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	return true
}

// originAllowed reports whether a request with this Origin header may be
// served, given the allowed origins of HTTPOptions.
func originAllowed(r *http.Request, origin string, allowed []string) bool {
	for _, o := range allowed {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local != nil && isLoopback(local.String()) && isLoopback(u.Host)
}

// isLoopback reports whether host, with or without a port, names this
// machine: localhost or a loopback address.
func isLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// writeError answers a request the server refused before reading it as
// JSON-RPC, with a JSON-RPC error that has no id, as the transport
// specification allows.
func writeError(w http.ResponseWriter, status int, msg string) {
	data, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"error":   map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// writeRPCError answers a request with a JSON-RPC error of the code.
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	data, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"error":   map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// taskNameMismatch checks the Mcp-Name header of a tasks/get, tasks/update
// or tasks/cancel on protocol version 2026-07-28 or later, which the tasks
// extension (Streamable HTTP: Routing Headers) has the client set to the
// task's ID, for load balancers to route on: a header that is missing or
// names another task than the body (Server Validation) is a mismatch.
// It returns what is wrong, or "" for a request with nothing to check.
func taskNameMismatch(h http.Header, body []byte) string {
	if h.Get("Mcp-Protocol-Version") < mcptask.ExtensionFrom || !bytes.Contains(body, []byte(`"tasks/`)) {
		return ""
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return "" // not one request: the SDK's to refuse
	}
	switch msg.Method {
	case mcptask.MethodGet, mcptask.MethodUpdate, mcptask.MethodCancel:
	default:
		return ""
	}
	name, ok := h.Values("Mcp-Name"), false
	if len(name) != 1 {
		return fmt.Sprintf("Header mismatch: %s needs one Mcp-Name header, the task's ID", msg.Method)
	}
	value := name[0]
	if inner, found := strings.CutPrefix(value, "=?base64?"); found {
		if inner, found = strings.CutSuffix(inner, "?="); found {
			var decoded []byte
			if decoded, ok = decodeBase64(inner); !ok {
				return "Header mismatch: the Mcp-Name header's Base64 value does not decode"
			}
			value = string(decoded)
		}
	}
	if value != msg.Params.TaskID {
		return fmt.Sprintf("Header mismatch: Mcp-Name header value %q does not match body value %q", value, msg.Params.TaskID)
	}
	return ""
}

// decodeBase64 decodes standard Base64, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(s); err != nil {
			return nil, false
		}
	}
	return data, true
}

// httpRequestKey is the context key of the HTTP request that carries a
// stateless session: its context, whose end ends the session's calls.
type httpRequestKey struct{}

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
