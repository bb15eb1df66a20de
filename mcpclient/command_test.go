package mcpclient

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLinesServer is not a test: run as a process by TestCommandTransport,
// with MCPCLIENT_TEST_SERVER=lines, it writes MCPCLIENT_TEST_LINES to its
// output and then waits for the end of its input; with
// MCPCLIENT_TEST_STUBBORN set, it ignores both that and SIGTERM.
func TestLinesServer(t *testing.T) {
	if os.Getenv("MCPCLIENT_TEST_SERVER") != "lines" {
		t.Skip("the server of TestCommandTransport")
	}
	if os.Getenv("MCPCLIENT_TEST_STUBBORN") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	os.Stdout.WriteString(os.Getenv("MCPCLIENT_TEST_LINES"))
	io.Copy(io.Discard, os.Stdin)
	if os.Getenv("MCPCLIENT_TEST_STUBBORN") != "" {
		time.Sleep(time.Minute)
	}
	os.Exit(0)
}

// linesServer returns a CommandTransport of TestLinesServer writing lines.
func linesServer(t *testing.T, lines string, stubborn bool) *CommandTransport {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLinesServer$")
	cmd.Env = append(os.Environ(), "MCPCLIENT_TEST_SERVER=lines", "MCPCLIENT_TEST_LINES="+lines)
	if stubborn {
		cmd.Env = append(cmd.Env, "MCPCLIENT_TEST_STUBBORN=1")
	}
	return &CommandTransport{Command: cmd, MaxMessageBytes: 200, TerminateDuration: 200 * time.Millisecond}
}

// TestCommandTransport checks what a CommandTransport reads of a server's
// output: messages, one a line (a message split over lines too, as the
// SDK's transport reads it), and an error that ends the connection for a
// batch, for anything but a line break after a message, and for a message
// over the limit.
func TestCommandTransport(t *testing.T) {
	const resp = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
	for _, tc := range []struct {
		name  string
		lines string
		ok    int   // messages read before the error
		err   error // nil: the output's end, io.EOF or a closed pipe
	}{
		{"messages", resp + "\n" + `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\r\n", 2, nil},
		{"split over lines", "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"result\":{}}\n", 1, nil},
		{"batch", "[" + resp + "]\n", 0, errBatch},
		{"trailing data", resp + " x\n", 0, errTrailing},
		{"over the limit", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 300) + `"}` + "\n", 0, errMessageTooLong},
		{"not JSON-RPC", `{"jsonrpc":"1.0","id":1,"result":{}}` + "\n", 0, errors.New("any")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := linesServer(t, tc.lines, false).Connect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for i := range tc.ok {
				msg, err := conn.Read(t.Context())
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				if _, ok := msg.(*jsonrpc.Response); !ok && i == 0 {
					t.Fatalf("message %d = %#v, want a response", i, msg)
				}
			}
			if tc.err == nil {
				return
			}
			_, err = conn.Read(t.Context())
			if err == nil || (tc.err.Error() != "any" && !errors.Is(err, tc.err)) {
				t.Errorf("Read = %v, want %v", err, tc.err)
			}
		})
	}
}

// TestCommandTransportClose checks that closing the connection of a server
// that ignores the end of its input and SIGTERM kills it, after twice the
// TerminateDuration.
func TestCommandTransportClose(t *testing.T) {
	tr := linesServer(t, "", true)
	conn, err := tr.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // for the server to ignore SIGTERM
	start := time.Now()
	err = conn.Close()
	took := time.Since(start)
	if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Close = %v, want the server killed", err)
	}
	if took < 2*tr.TerminateDuration || took > 10*time.Second {
		t.Errorf("Close took %v, want from %v to 10s", took, 2*tr.TerminateDuration)
	}
	if tr.Command.ProcessState == nil || !tr.Command.ProcessState.Exited() && tr.Command.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the server's state after Close = %v", tr.Command.ProcessState)
	}
}
