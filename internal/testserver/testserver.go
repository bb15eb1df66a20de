// Package testserver holds what the packages that start a throwaway server
// for a test share (pgtest, redistest, dovecottest, mailpittest): a free
// port of 127.0.0.1, the skip (or, under CI=true, the failure) when the
// server is not installed, and the server's process, kept for the test,
// stopped when it ends and waited on until it answers.
package testserver

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// FreePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Missing skips t for want of the program what, or fails it under CI=true,
// where .ci/run installs it; install is the command that does, as in
// "apt-get install redis-server".
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed; .ci/run installs it (%s)", what, install)
	}
	t.Skipf("%s is not installed (%s)", what, install)
}

// stopWait is how long a process stopped with a signal has to exit before
// it is killed.
const stopWait = 20 * time.Second

// A Process is a server's program, running for a test.
type Process struct {
	name    string
	cmd     *exec.Cmd
	out     buffer
	done    chan struct{}
	logFile string
}

// Start starts cmd, whose standard output and error it keeps for the
// messages of Wait, and stops it when t ends: with stop, when not nil,
// then SIGKILL if the process has not exited within 20 seconds; with
// SIGKILL at once otherwise. name, such as "redistest: redis-server",
// begins the messages. logFile, when not "", is a file the program writes
// its log to, which the messages show after its output.
func Start(t testing.TB, name string, cmd *exec.Cmd, stop os.Signal, logFile string) *Process {
	t.Helper()
	p := &Process{name: name, cmd: cmd, done: make(chan struct{}), logFile: logFile}
	cmd.Stdout, cmd.Stderr = &p.out, &p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if stop != nil && cmd.Process.Signal(stop) == nil {
			select {
			case <-p.done:
				return
			case <-time.After(stopWait):
			}
		}
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// Wait calls ready every interval until it returns nil, and fails t when
// the process exits first or timeout passes, with the last error of
// ready and what the program wrote.
func (p *Process) Wait(t testing.TB, timeout, interval time.Duration, ready func() error) {
	t.Helper()
	if err := p.wait(timeout, interval, ready); err != nil {
		t.Fatal(err)
	}
}

func (p *Process) wait(timeout, interval time.Duration, ready func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %s", p.name, p.Output())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer within %v (%v): %s", p.name, timeout, err, p.Output())
		}
		time.Sleep(interval)
	}
}

// Output returns what the program has written so far, followed by its log
// file's content.
func (p *Process) Output() string {
	s := p.out.String()
	if p.logFile != "" {
		l, _ := os.ReadFile(p.logFile)
		s += string(l)
	}
	return s
}

// buffer is a bytes.Buffer that the copying goroutines of exec.Cmd write
// while Wait reads it.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
