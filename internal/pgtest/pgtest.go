// Package pgtest starts a throwaway PostgreSQL server for a test: initdb
// and pg_ctl in a temporary directory, listening on 127.0.0.1 only, stopped
// and removed when the test ends. It uses Debian's binaries
// (/usr/lib/postgresql/*/bin) or those on $PATH. Without them a test is
// skipped, except under CI=true, where it fails: CI installs them.
//
// initdb refuses to run as root, so as root the server runs as the user
// "postgres" that Debian's package creates.
package pgtest

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/hands-go/hands/internal/testserver"
)

// A Server is a running PostgreSQL server.
type Server struct {
	// URL reaches the server's "postgres" database as the superuser "hands",
	// with its password, such as postgres://hands:PW@127.0.0.1:PORT/postgres?sslmode=disable.
	URL string
	// Password is the superuser's password, so that a test can check that
	// no message repeats it.
	Password string
}

// binDir returns the directory of initdb and pg_ctl, or "".
func binDir() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start starts a server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binDir()
	if bin == "" {
		testserver.Missing(t, "postgresql", "apt-get install postgresql")
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: running as root, and no user postgres to run the server as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("pgtest: %s: %v\n%s\n%s", name, err, out, log)
		}
	}
	password := rand.Text()
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		os.Chown(pwfile, int(cred.Uid), int(cred.Gid))
	}
	data := filepath.Join(dir, "data")
	run("initdb", "-D", data, "-U", "hands", "--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C")
	port := testserver.FreePort(t)
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start",
		"-o", fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c synchronous_commit=off", port, dir))
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		cmd.Run()
	})
	u := url.URL{Scheme: "postgres", User: url.UserPassword("hands", password), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/postgres", RawQuery: "sslmode=disable"}
	return &Server{URL: u.String(), Password: password}
}
