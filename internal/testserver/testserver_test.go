package testserver

import (
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFreePort(t *testing.T) {
	port := FreePort(t)
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("port %d is not free: %v", port, err)
	}
	ln.Close()
}

func TestMissingSkips(t *testing.T) {
	t.Setenv("CI", "")
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Missing(t, "nothing", "apt-get install nothing")
	})
	if !skipped {
		t.Error("Missing did not skip the test outside CI")
	}
}

func TestWaitReady(t *testing.T) {
	p := Start(t, "testserver: sleep", exec.Command("sleep", "60"), nil, "")
	calls := 0
	err := p.wait(time.Minute, time.Millisecond, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("wait = %v after %d calls of ready, want nil after 3", err, calls)
	}
}

func TestWaitExited(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	p := Start(t, "testserver: sh", exec.Command("sh", "-c", "echo said this; echo logged that > "+log+"; exit 3"), nil, log)
	<-p.done
	err := p.wait(time.Minute, time.Millisecond, func() error { return errors.New("refused") })
	if err == nil || !strings.Contains(err.Error(), "testserver: sh exited") || !strings.Contains(err.Error(), "said this") || !strings.Contains(err.Error(), "logged that") {
		t.Errorf("wait = %v, want that sh exited, with its output and log", err)
	}
}

func TestWaitTimeout(t *testing.T) {
	p := Start(t, "testserver: sleep", exec.Command("sleep", "60"), nil, "")
	err := p.wait(0, time.Millisecond, func() error { return errors.New("refused") })
	if err == nil || !strings.Contains(err.Error(), "did not answer within 0s (refused)") {
		t.Errorf("wait = %v, want that sleep did not answer, with the last error", err)
	}
}

// TestStopSignal checks that a process given a signal to stop with gets
// it, and is not killed, when the test ends.
func TestStopSignal(t *testing.T) {
	var p *Process
	log := filepath.Join(t.TempDir(), "log")
	t.Run("server", func(t *testing.T) {
		cmd := exec.Command("sh", "-c", "trap 'echo stopped > "+log+"; exit 0' TERM; echo up; while :; do sleep 0.01; done")
		p = Start(t, "testserver: sh", cmd, syscall.SIGTERM, log)
		p.Wait(t, time.Minute, time.Millisecond, func() error {
			if !strings.Contains(p.Output(), "up") {
				return errors.New("not up")
			}
			return nil
		})
	})
	select {
	case <-p.done:
	default:
		t.Fatal("the process still runs after its test ended")
	}
	if got := p.Output(); !strings.Contains(got, "stopped") {
		t.Errorf("output %q, want the trap's on SIGTERM", got)
	}
	if p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("exit code %d, want 0: killed, not stopped", p.cmd.ProcessState.ExitCode())
	}
}
