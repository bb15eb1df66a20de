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
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
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
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed; .ci/run installs it")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	password := rand.Text()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--requirepass", password, "--dir", dir, "--daemonize", "no", "--loglevel", "warning")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(20 * time.Second)
	for !ping(addr, password) {
		select {
		case <-done:
			t.Fatalf("redistest: redis-server exited: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: redis-server did not answer within 20s: %s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	u := url.URL{Scheme: "redis", User: url.UserPassword("", password), Host: addr, Path: "/0"}
	return &Server{URL: u.String(), Addr: addr, Password: password}
}

// ping reports whether the server at addr answers an authenticated PING.
func ping(addr, password string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "AUTH %s\r\nPING\r\n", password)
	r := bufio.NewReader(c)
	a, _ := r.ReadString('\n')
	b, _ := r.ReadString('\n')
	return strings.HasPrefix(a, "+OK") && strings.HasPrefix(b, "+PONG")
}
