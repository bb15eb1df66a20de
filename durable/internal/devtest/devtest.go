// Package devtest starts the Temporal server of durable's tests: the
// program of the module in ../devserver, built once per version of its
// sources and kept in the user's cache directory, run as a process of its
// own for the test that asks for it (Start), or for all the tests of a
// test binary that ask for it (Shared).
package devtest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
)

// A Server is a Temporal server running in a process of its own.
type Server struct {
	HostPort  string // where it listens, on 127.0.0.1
	Namespace string // the one namespace it has
}

// Start builds the server if its cached build is missing, runs it, and
// returns its address and namespace. The server is stopped when the test
// ends. A server that cannot be built or started skips the test, except
// under CI=true, where it fails it.
//
// The server is a module and a process of its own because it cannot be
// built into durable's: go.temporal.io/server needs
// go.opentelemetry.io/otel/log v0, and hands requires v1.
func Start(t testing.TB) Server {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	s, stop, err := start(t)
	if err != nil {
		fail("%v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// shared is the server Shared started, and how to stop it, or why it
// could not start.
var shared struct {
	once sync.Once
	s    Server
	stop func() error
	err  error
}

// Shared is Start for the tests of one test binary that run their
// workers in the test's process: the first test that calls it starts the
// server, and the later ones get the same, so that a package's tests
// start one server between them. TestMain stops it after the tests
// (StopShared); it stops anyway when the test binary exits, which closes
// its standard input. Tests that share it tell their runs apart by task
// queue and workflow ID. A server that cannot be built or started skips
// each test that asks for it, except under CI=true, where it fails them.
func Shared(t testing.TB) Server {
	t.Helper()
	shared.once.Do(func() { shared.s, shared.stop, shared.err = start(t) })
	if shared.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v", shared.err)
		}
		t.Skipf("%v", shared.err)
	}
	return shared.s
}

// StopShared stops the server Shared started, if it did, and waits for
// it to exit.
func StopShared() error {
	if shared.stop == nil {
		return nil
	}
	return shared.stop()
}

// start builds the server if need be and starts it; stop closes its
// standard input and waits for it to exit.
func start(t testing.TB) (s Server, stop func() error, err error) {
	bin, err := build(t)
	if err != nil {
		return Server{}, nil, fmt.Errorf("building the Temporal server: %w", err)
	}

	// A port of the system's choosing, and the server's own namespace,
	// which needs no registration. The server stops when its standard
	// input closes, so it does not outlive this process even if the
	// process is killed.
	cmd := exec.Command(bin, "-addr=", "-namespace=", "-exit-with-stdin")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Server{}, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Server{}, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return Server{}, nil, fmt.Errorf("starting the Temporal server: %w", err)
	}
	stopped := make(chan error, 1)
	stop = func() error {
		stdin.Close()
		select {
		case <-stopped:
			return nil
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-stopped
			return errors.New("the Temporal server did not stop within 30s of its standard input closing")
		}
	}

	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(io.LimitReader(stdout, 4096))
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout) // never block the server's writes
		stopped <- cmd.Wait()
	}()
	select {
	case l, ok := <-line:
		hostPort, namespace, found := strings.Cut(l, " ")
		if !ok || !found {
			stop()
			return Server{}, nil, fmt.Errorf("the Temporal server exited or printed %q, want \"host:port namespace\"", l)
		}
		return Server{HostPort: hostPort, Namespace: namespace}, stop, nil
	case <-time.After(2 * time.Minute):
		stop()
		return Server{}, nil, errors.New("the Temporal server printed no address within 2 minutes")
	}
}

// Build returns the path of the server's program, built if its cached
// build is missing; a build also leaves the packages it compiled in Go's
// build cache, so that another build of the program only links it. A
// server that cannot be built skips the test, except under CI=true,
// where it fails it.
func Build(t testing.TB) string {
	t.Helper()
	bin, err := build(t)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("building the Temporal server: %v", err)
		}
		t.Skipf("building the Temporal server: %v", err)
	}
	return bin
}

// Dial returns a client of the server, closed when the test ends.
func (s Server) Dial(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.HostPort, Namespace: s.Namespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// build returns the path of the server's program, built for the sources
// of ../devserver and this toolchain. The build is kept in the user's
// cache directory under a name made from both, so that the test binaries
// of one go test run, and later runs, build it once: a cold build takes
// minutes and gigabytes, and even a warm one relinks for seconds. A lock
// file makes the test binaries that go test runs at once wait for the one
// that builds.
func build(t testing.TB) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", os.ErrNotExist
	}
	src := filepath.Join(filepath.Dir(file), "..", "devserver")
	h := sha256.New()
	io.WriteString(h, runtime.Version())
	for _, name := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", err
		}
		io.WriteString(h, name)
		h.Write(data)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "hands", "devserver")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "devserver-"+hex.EncodeToString(h.Sum(nil))[:16])

	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}

	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	// A cold build takes minutes; leave the test two of its own.
	budget := 15 * time.Minute
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok {
			budget = min(budget, time.Until(d)-2*time.Minute)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	tmp := bin + ".tmp"
	// Without a symbol table and DWARF, the link takes half the CPU.
	cmd := exec.CommandContext(ctx, goBin, "build", "-ldflags=-s -w", "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: out}
	}
	return bin, os.Rename(tmp, bin)
}

// A buildError is a failed build, with what go build printed.
type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }
