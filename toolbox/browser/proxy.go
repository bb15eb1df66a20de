package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hands-go/hands/toolbox/netguard"
)

// A proxy is the HTTP proxy of one browser context: every request the
// context's pages make (http, https through CONNECT, WebSockets) reaches
// the network through it, and it dials through the address guard, on the
// address being dialed, after DNS resolution. It listens on a loopback
// port of its own, so that what it refuses is told to the calls of that
// context alone.
type proxy struct {
	ln        net.Listener
	srv       *http.Server
	guard     *netguard.Guard
	transport *http.Transport

	mu      sync.Mutex
	refused []refusal // what the guard refused, for the calls to report
}

// A refusal is a connection the guard refused.
type refusal struct {
	target string // "host:port" as the request named it
	err    error  // a *netguard.BlockedError
}

func (r refusal) String() string {
	return fmt.Sprintf("refused a connection to %s: %v", r.target, r.err)
}

// maxRefusals bounds the refusals a proxy remembers between two calls.
const maxRefusals = 20

// newProxy starts a proxy on a loopback port.
func newProxy(g *netguard.Guard) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the browser's proxy: %w", err)
	}
	t := g.Transport(nil)
	t.MaxIdleConnsPerHost = 4
	t.IdleConnTimeout = 30 * time.Second
	p := &proxy{ln: ln, guard: g, transport: t}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// addr is the "host:port" the browser reaches the proxy at.
func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops the proxy and every connection through it.
func (p *proxy) close() {
	p.srv.Close()
	p.transport.CloseIdleConnections()
}

// takeRefusals returns what the guard refused since the last take.
func (p *proxy) takeRefusals() []refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.refused
	p.refused = nil
	return r
}

// refuse records a refusal of the guard, for the call to report.
func (p *proxy) refuse(target string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.refused) < maxRefusals {
		p.refused = append(p.refused, refusal{target, err})
	}
}

// hopHeaders are the headers a proxy does not pass on.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding"}

// ServeHTTP serves one request of the browser: a CONNECT tunnel, or a
// plain http request by its absolute URL. Nothing else is served.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "the browser's proxy serves http URLs and CONNECT only", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if r.Header.Get("Upgrade") != "" {
		// A WebSocket over plain http: the upgrade headers go through.
		out.Header.Set("Connection", "Upgrade")
		out.Header.Set("Upgrade", r.Header.Get("Upgrade"))
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		p.fail(w, r.URL.Host, err)
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		p.upgrade(w, resp)
		return
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// fail answers a request the proxy could not pass on.
func (p *proxy) fail(w http.ResponseWriter, target string, err error) {
	if berr, ok := errors.AsType[*netguard.BlockedError](err); ok {
		p.refuse(target, berr)
		http.Error(w, berr.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, err.Error(), http.StatusBadGateway)
}

// tunnel serves CONNECT: https, wss, and whatever else a page tunnels.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	up, err := p.guard.DialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		p.fail(w, r.Host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	down.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
	splice(down, up, buf.Reader)
}

// upgrade passes a switched protocol (a WebSocket) on both ways.
func (p *proxy) upgrade(w http.ResponseWriter, resp *http.Response) {
	up, ok := resp.Body.(io.ReadWriteCloser)
	hj, ok2 := w.(http.Hijacker)
	if !ok || !ok2 {
		http.Error(w, "cannot upgrade", http.StatusBadGateway)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	var head strings.Builder
	fmt.Fprintf(&head, "HTTP/1.1 %s\r\n", resp.Status)
	resp.Header.Set("Connection", "Upgrade")
	resp.Header.Write(&head)
	head.WriteString("\r\n")
	down.Write([]byte(head.String()))
	splice(down, up, buf.Reader)
}

// splice copies between the browser's connection and the upstream one
// until either ends, then closes both.
func splice(down net.Conn, up io.ReadWriteCloser, pending io.Reader) {
	// pending reads what the server buffered of down, then down itself.
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(up, pending) // the hijacked buffer, then the connection
		done <- struct{}{}
	}()
	go func() {
		io.Copy(down, up)
		done <- struct{}{}
	}()
	<-done
	down.Close()
	up.Close()
	<-done
}
