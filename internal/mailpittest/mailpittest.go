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
	"testing"
	"time"

	"github.com/hands-go/hands/internal/testserver"
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
		testserver.Missing(t, "mailpit", fmt.Sprintf("GOBIN=$HOME/.cache/hands/mailpit@%s go install github.com/axllent/mailpit@%[1]s", Version))
	}
	smtpPort, httpPort := testserver.FreePort(t), testserver.FreePort(t)
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
	p := testserver.Start(t, "mailpittest: mailpit", exec.Command(bin, args...), nil, "")
	s := &Server{
		SMTPAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(smtpPort)),
		APIURL:   "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(httpPort)),
	}
	// Mailpit's first start on a machine migrates its database; a loaded
	// CI box can take a while.
	p.Wait(t, 60*time.Second, 50*time.Millisecond, s.ready)
	return s
}

// ready returns nil when both the API and the SMTP server answer.
func (s *Server) ready() error {
	resp, err := http.Get(s.APIURL + "/readyz")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /readyz: %s", resp.Status)
	}
	c, err := net.DialTimeout("tcp", s.SMTPAddr, time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// String describes the server for a test's log.
func (s *Server) String() string { return fmt.Sprintf("mailpit smtp=%s api=%s", s.SMTPAddr, s.APIURL) }
