// Package examples holds the runnable example programs; its test builds and
// runs each of them.
package examples

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// build compiles the example program in dir and returns its path.
func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	out, err := exec.Command("go", "build", "-o", bin, "./"+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./%s: %v\n%s", dir, err, out)
	}
	return bin
}

// TestExamplesExitCleanly runs every example program: each must exit 0
// when its client closes the input, and when it is interrupted.
func TestExamplesExitCleanly(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			bin := build(t, e.Name())

			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			var stderr bytes.Buffer
			work := t.TempDir() // where an example's default database lands
			cmd := exec.CommandContext(ctx, bin)
			cmd.Dir = work
			cmd.Stdin = strings.NewReader("")
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Errorf("%s with its input closed: %v\n%s", e.Name(), err, stderr.String())
			}

			stderr.Reset()
			cmd = exec.CommandContext(ctx, bin)
			cmd.Dir = work
			stdin, err := cmd.StdinPipe() // kept open: the program waits for a client
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// A server that answers a request has installed its signal
			// handler; a program that reads no input ends its output.
			io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
			lines := bufio.NewScanner(stdout)
			for lines.Scan() && !strings.Contains(lines.Text(), `"id":1`) {
			}
			go io.Copy(io.Discard, stdout)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("%s on an interrupt: %v\n%s", e.Name(), err, stderr.String())
			}
		})
	}
}
