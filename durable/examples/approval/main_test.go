package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/durable/internal/devtest"
)

// exampleArgs, when set, makes the test binary run the command with these
// arguments (separated by newlines) and nothing else: a worker process.
const exampleArgs = "HANDS_APPROVAL_ARGS"

func TestMain(m *testing.M) {
	runDocScript()
	if args := os.Getenv(exampleArgs); args != "" {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		go func() { // the parent kills us, or closes our input
			os.Stdin.Read(make([]byte, 1))
			stop()
		}()
		if err := run(ctx, strings.Split(args, "\n"), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func server(t *testing.T) []string {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	s := devtest.Start(t)
	return []string{"-hostport", s.HostPort, "-namespace", s.Namespace}
}

// TestDemo runs the example as its documentation does first: one process,
// against a Temporal server.
func TestDemo(t *testing.T) {
	flags := server(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, append(flags, "-id", "demo"), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := `run demo waits for approval: remove {"path":"notes.txt"}
approve call_1_1
answer: done: removed notes.txt
notes.txt is gone: true
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestDecideWithoutAWaitingCall: approve and reject give up at once, with
// an error that says why, on an ID no run has and on a run that has
// ended, and after -wait on a run no worker moves.
func TestDecideWithoutAWaitingCall(t *testing.T) {
	flags := server(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, append(flags, "-id", "ended"), &out); err != nil { // the demonstration: a run approved and ended
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, tt := range []struct {
		name string
		args []string
		want error
	}{
		{"approve, unknown ID", []string{"approve", "-id", "nosuch"}, errNoRun},
		{"reject, unknown ID", []string{"reject", "-id", "nosuch", "no"}, errNoRun},
		{"approve, ended run", []string{"approve", "-id", "ended"}, errRunEnded},
		{"reject, ended run", []string{"reject", "-id", "ended", "no"}, errRunEnded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args[:1:1], append(flags, tt.args[1:]...)...) // the command, then the server's flags, then its own
			if err := run(ctx, args, &out); !errors.Is(err, tt.want) {
				t.Errorf("run(%q) = %v, want %v", args, err, tt.want)
			}
		})
	}
	// A run no worker moves: start gives up after -wait.
	args := append(append([]string{"start"}, flags...), "-queue", "no-worker", "-id", "stuck", "-wait", "1s", "remove notes.txt")
	if err := run(ctx, args, &out); !errors.Is(err, errNoCallWaits) {
		t.Errorf("run(%q) = %v, want %v", args, err, errNoCallWaits)
	}
}

// TestAcrossProcesses runs the example as its documentation does second:
// a worker, a run started, the worker killed and another started, the
// approval; the file is removed once.
func TestAcrossProcesses(t *testing.T) {
	flags := server(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	first := startProcess(t, append([]string{"worker", "-dir", dir}, flags...))
	var out bytes.Buffer
	if err := run(ctx, append(append([]string{"start"}, flags...), "-id", "tidy", "remove notes.txt"), &out); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if _, err := os.Stat(notes); err != nil {
		t.Fatalf("notes.txt before the approval: %v", err)
	}
	startProcess(t, append([]string{"worker", "-dir", dir}, flags...))
	if err := run(ctx, append(append([]string{"approve"}, flags...), "-id", "tidy"), &out); err != nil {
		t.Fatalf("approve: %v", err)
	}
	want := `run tidy waits for approval: remove {"path":"notes.txt"}
next: approval approve ` + strings.Join(flags, " ") + ` -id tidy
approve call_1_1
answer: done: removed notes.txt
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if _, err := os.Stat(notes); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes.txt after the approval: %v, want it removed", err)
	}
}

// startProcess runs the example with args in a process of its own (the
// test binary again), stopped when the test ends.
func startProcess(t *testing.T, args []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), exampleArgs+"="+strings.Join(args, "\n"))
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}
