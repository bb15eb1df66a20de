// Package mailpittest starts a throwaway Mailpit for a test: an SMTP server
// that keeps what it is sent, and the HTTP API (Swagger 2.0, under /api/v1)
// that tells what arrived. It listens on free ports of 127.0.0.1, keeps its
// database in the test's temporary directory, and stops when the test ends.
//
// Mailpit is a Go program, installed outside the module (so that it never
// enters go.mod) by .ci/run with
//
//	GOBIN=$HOME/.cache/hands/mailpit@VERSION go install github.com/axllent/mailpit@VERSION
//
// and found through $HANDS_MAILPIT or that directory. Without it a test is
// skipped, except under CI=true, where it fails.
package mailpittest

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Version is the Mailpit that .ci/run installs; keep them in step.
const Version = "v1.33.1"

// A Server is a running Mailpit.
type Server struct {
	// SMTPAddr is the SMTP server's host:port. It offers no TLS, and
	// accepts any user name and password, over plain text too, when the
	// server was started with Options.Auth.
	SMTPAddr string
	// APIURL is the base URL of the web UI and the HTTP API, such as
	// http://127.0.0.1:PORT; the API's document is at APIURL +
	// "/api/v1/swagger.json".
	APIURL string
}

// Options configure a Server. The zero value is a server without
// authentication.
type Options struct {
	// Auth makes the SMTP server ask for, and accept, any user name and
	// password.
	Auth bool
	// Args are more command-line arguments for mailpit.
	Args []string
}

// Binary returns the path of the mailpit program, and false if it is not
// installed.
func Binary() (string, bool) {
	if p := os.Getenv("HANDS_MAILPIT"); p != "" {
		_, err := os.Stat(p)
		return p, err == nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", false
	}
	p := filepath.Join(home, ".cache", "hands", "mailpit@"+Version, "mailpit")
	_, err = os.Stat(p)
	return p, err == nil
}

// Start starts a server for t and stops it when t ends. opts may be nil.
func Start(t testing.TB, opts *Options) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	bin, ok := Binary()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mailpit is not installed; .ci/run installs it (GOBIN=$HOME/.cache/hands/mailpit@%s go install github.com/axllent/mailpit@%[1]s)", Version)
		}
		t.Skipf("mailpit is not installed (GOBIN=$HOME/.cache/hands/mailpit@%s go install github.com/axllent/mailpit@%[1]s)", Version)
	}
	smtpPort, httpPort := freePort(t), freePort(t)
	dir := t.TempDir()
	args := []string{
		"--smtp", "127.0.0.1:" + strconv.Itoa(smtpPort),
		"--listen", "127.0.0.1:" + strconv.Itoa(httpPort),
		"--database", filepath.Join(dir, "mailpit.db"),
		"--disable-version-check", "--smtp-disable-rdns", "--quiet",
		// A POP3 server starts only with an auth file; the label makes the
		// process easy to find.
		"--label", "hands-test-" + rand.Text()[:8],
	}
	if opts.Auth {
		args = append(args, "--smtp-auth-accept-any", "--smtp-auth-allow-insecure")
	}
	args = append(args, opts.Args...)
	cmd := exec.Command(bin, args...)
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
	s := &Server{
		SMTPAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(smtpPort)),
		APIURL:   "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(httpPort)),
	}
	// Mailpit's first start on a machine migrates its database; a loaded
	// CI box can take a while.
	deadline := time.Now().Add(60 * time.Second)
	for !s.ready() {
		select {
		case <-done:
			t.Fatalf("mailpittest: mailpit exited: %s", log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpittest: mailpit did not answer within 60s: %s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// ready reports whether both the API and the SMTP server answer.
func (s *Server) ready() bool {
	resp, err := http.Get(s.APIURL + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	c, err := net.DialTimeout("tcp", s.SMTPAddr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// String describes the server for a test's log.
func (s *Server) String() string { return fmt.Sprintf("mailpit smtp=%s api=%s", s.SMTPAddr, s.APIURL) }
