// Package redistest starts a throwaway Redis server for a test:
// redis-server on a free port of 127.0.0.1, with a password, persisting
// nothing, stopped when the test ends. Without redis-server a test is
// skipped, except under CI=true, where it fails: CI installs it.
package redistest

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/testserver"
)

// A Server is a running Redis server.
type Server struct {
	// URL reaches database 0 with the password, such as redis://:PW@127.0.0.1:PORT/0.
	URL string
	// Addr is the server's host:port.
	Addr string
	// Password is the server's password, so that a test can check that no
	// message repeats it.
	Password string
}

// Start starts a server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testserver.Missing(t, "redis-server", "apt-get install redis-server")
	}
	port := testserver.FreePort(t)
	password := rand.Text()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--requirepass", password, "--dir", dir, "--daemonize", "no", "--loglevel", "warning")
	p := testserver.Start(t, "redistest: redis-server", cmd, nil, "")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	p.Wait(t, 20*time.Second, 20*time.Millisecond, func() error { return ping(addr, password) })
	u := url.URL{Scheme: "redis", User: url.UserPassword("", password), Host: addr, Path: "/0"}
	return &Server{URL: u.String(), Addr: addr, Password: password}
}

// ping returns nil if the server at addr answers an authenticated PING.
func ping(addr, password string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "AUTH %s\r\nPING\r\n", password)
	r := bufio.NewReader(c)
	a, _ := r.ReadString('\n')
	b, _ := r.ReadString('\n')
	if !strings.HasPrefix(a, "+OK") || !strings.HasPrefix(b, "+PONG") {
		return fmt.Errorf("AUTH and PING answered %q, %q", a, b)
	}
	return nil
}
