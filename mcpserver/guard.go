package mcpserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// CheckHost returns next behind the SDK's guard against DNS rebinding, for
// routes served beside the MCP endpoint (the playground, hosted files): a
// request that came to a loopback address with a Host header that does not
// name a loopback host (a page of evil.example whose name now resolves to
// 127.0.0.1) is refused with 403 Forbidden. The endpoint of HTTPHandler
// and the playground check the same already.
func CheckHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r) {
			http.Error(w, fmt.Sprintf("host %q is not allowed on a loopback address", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed reports whether r may be served given its Host header: a
// request to a loopback address must name a loopback host, as the SDK's
// streamable handler requires.
func hostAllowed(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local == nil || !isLoopback(local.String()) || isLoopback(r.Host)
}

// equalTokens reports whether got is the secret token. It compares
// SHA-256 digests in constant time, so that neither the position of the
// first wrong byte nor the length of the token shows in the time taken
// (subtle.ConstantTimeCompare returns at once on a length mismatch).
func equalTokens(got, token string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// A challengeWriter adds a WWW-Authenticate header to a 401 response that
// lacks one, as RFC 9110 requires: the SDK's bearer-token check writes it
// only when there is resource metadata or a scope to name.
type challengeWriter struct {
	http.ResponseWriter
	presented bool // the request carried an Authorization header
}

func (w *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		challenge := "Bearer"
		if w.presented {
			challenge = `Bearer error="invalid_token"` // RFC 6750, section 3.1
		}
		w.Header().Set("WWW-Authenticate", challenge)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the flusher and deadlines of
// the writer beneath.
func (w *challengeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// challenge returns next with every 401 it writes carrying a
// WWW-Authenticate header.
func challenge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&challengeWriter{ResponseWriter: w, presented: r.Header.Get("Authorization") != ""}, r)
	})
}

// A retryWriter writes a retry field into the first server-sent event of
// a response, which sets how long a client whose stream breaks waits
// before it reconnects (the SSE specification's reconnection time). A
// field needs no event of its own: it is put before the first event's
// other fields.
type retryWriter struct {
	http.ResponseWriter
	field   []byte // "retry: <ms>\n"
	written bool   // the first write went out
}

func (w *retryWriter) Write(p []byte) (int, error) {
	if w.written {
		return w.ResponseWriter.Write(p)
	}
	w.written = true
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		return w.ResponseWriter.Write(p)
	}
	n, err := w.ResponseWriter.Write(append(bytes.Clone(w.field), p...))
	return max(0, n-len(w.field)), err
}

// Unwrap lets http.ResponseController reach the flusher and deadlines of
// the writer beneath.
func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// retryField returns the SSE field that sets the reconnection time to ms
// milliseconds.
func retryField(ms int64) []byte {
	return []byte("retry: " + strconv.FormatInt(ms, 10) + "\n")
}
