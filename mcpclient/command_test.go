package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/cost"
	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/hands-go/hands/internal/mcpwire"
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
// batch, for anything but white space after a message on its line, and
// for a message over the limit: the error mcpserver's StdioTransport
// answers such a line with.
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
		{"batch", "[" + resp + "]\n", 0, mcpwire.ErrBatch},
		{"trailing data", resp + " x\n", 0, mcpwire.ErrNotJSON},
		{"over the limit", `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 300) + `"}` + "\n", 0, mcpwire.ErrLineTooLong},
		{"split over lines, over the limit", "{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":\"" + strings.Repeat("a", 190) + "\"}\n", 0, mcpwire.ErrLineTooLong},
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
	// The server writes its line once it ignores SIGTERM: reading it is
	// knowing it does, however long a busy machine takes to start it.
	tr := linesServer(t, `{"jsonrpc":"2.0","method":"notifications/ready"}`+"\n", true)
	conn, err := tr.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(t.Context()); err != nil {
		t.Fatalf("the server's line: %v", err)
	}
	start := time.Now()
	err = conn.Close()
	took := time.Since(start)
	if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Close = %v, want the server killed", err)
	}
	if took < 2*tr.TerminateDuration || took > time.Minute {
		t.Errorf("Close took %v, want from %v to a minute", took, 2*tr.TerminateDuration)
	}
	if tr.Command.ProcessState == nil || !tr.Command.ProcessState.Exited() && tr.Command.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the server's state after Close = %v", tr.Command.ProcessState)
	}
}

// readChecked is what commandConn.read reads, written over the whole
// output in memory: its lines, split at line feeds and trimmed of JSON's
// white space, blank ones skipped, each at most limit bytes; a message
// is a line, or lines joined with line feeds while encoding/json finds
// them a JSON value cut short, at most limit bytes in all; it must be
// valid JSON, not an array, and a JSON-RPC message.
func readChecked(c *commandConn, stdout io.Reader, limit int) {
	all, _ := io.ReadAll(stdout)
	var joined []byte
	last := bytes.Count(all, []byte("\n")) // the index of the part after the last line feed
	hand := func(msg jsonrpc.Message, err error) bool { return c.inbox.Hand(msg, err) && err == nil }
	for i, line := range bytes.Split(all, []byte("\n")) {
		if len(line) > limit {
			hand(nil, mcpwire.ErrLineTooLong)
			return
		}
		if line = bytes.Trim(line, " \t\r"); len(line) == 0 {
			continue
		}
		if joined != nil {
			joined = append(joined, '\n')
		}
		joined = append(joined, line...)
		if len(joined) > limit {
			hand(nil, mcpwire.ErrLineTooLong)
			return
		}
		var v any
		err := json.Unmarshal(joined, &v)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) && strings.Contains(err.Error(), "unexpected end of JSON input") && i < last {
			continue // a value cut short, with lines to come
		}
		var msg jsonrpc.Message
		switch {
		case err != nil && !json.Valid(joined):
			err = mcpwire.ErrNotJSON
		case joined[0] == '[':
			err = mcpwire.ErrBatch
		default:
			msg, err = jsonrpcwire.Decode(joined)
		}
		if !hand(msg, err) {
			return
		}
		joined = nil
	}
	if joined != nil {
		hand(nil, io.ErrUnexpectedEOF)
		return
	}
	hand(nil, io.EOF)
}

// chunks is a reader of data that gives at most size bytes a Read, as a
// pipe gives what the other end has written so far. It counts the bytes
// it gave.
type chunks struct {
	data []byte
	size int
	read int
}

func (r *chunks) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.size)], r.data)
	r.data = r.data[n:]
	r.read += n
	return n, nil
}

// readAll runs read over output, given chunk bytes at a time, and returns
// the messages it hands over and what ends them: io.EOF for the end of
// the output, another error for anything else.
func readAll(read func(*commandConn, io.Reader, int), output []byte, chunk, limit int) ([]jsonrpc.Message, error) {
	c := &commandConn{inbox: jsonrpcwire.NewInbox()}
	go read(c, &chunks{data: output, size: chunk}, limit)
	var msgs []jsonrpc.Message
	for {
		msg, err := c.inbox.Read(context.Background())
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, msg)
	}
}

// FuzzCommandRead checks that a CommandTransport reads every output as
// readChecked does, however the output is split into reads: the same
// messages, then the end of the output for both or an error for both.
func FuzzCommandRead(f *testing.F) {
	const resp = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
	for _, s := range []string{
		resp + "\n" + `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\r\n",
		"{\"jsonrpc\":\"2.0\",\n\"id\":1,\"result\":{}}\n", "[" + resp + "]\n", resp + " x\n", resp + resp,
		resp + " \n", "\n\n" + resp, " \t" + resp + "\n  ", resp + "\n{", resp + "\n1\n", resp + "\n\"x\"\n",
		`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 300) + `"}` + "\n",
		"\xef\xbb\xbf" + resp, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":\"\\ud800\"}\n",
		`{"jsonrpc":"2.0","id":1,"result":{},"id":2}` + "\n", "true\n", "nul", "truex\n", "1 2\n", "{}{}",
	} {
		f.Add([]byte(s), uint8(7), uint16(200))
		f.Add([]byte(s), uint8(0), uint16(len(resp)))
	}
	f.Fuzz(func(t *testing.T, output []byte, chunk uint8, limit uint16) {
		size, most := int(chunk)%64+1, int(limit)%512+1
		got, err := readAll((*commandConn).read, output, size, most)
		want, wantErr := readAll(readChecked, output, size, most)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %q (%d bytes a read, limit %d) = %#v; readChecked reads %#v", output, size, most, got, want)
		}
		if (err == io.EOF) != (wantErr == io.EOF) {
			t.Fatalf("read %q (%d bytes a read, limit %d) ends with %v; readChecked ends with %v", output, size, most, err, wantErr)
		}
	})
}

// TestCommandReadHostileSizes checks that what reading a server's output
// costs, in CPU and in memory, grows in proportion to the output, however
// it is made large, given 4 KiB a read as a pipe may give it. A line over
// the limit is read up to the limit and one byte (which tells it goes on)
// and no further, and what that costs
// is checked in memory only (cost.LinearAllocs): the decoder's buffers
// for it come to 8 MiB at the large size, and their pages faulting or not
// when touched, as the runtime gave them back to the system or kept them
// between runs, weighs more in its CPU time than the reading does. Many
// small messages are checked with cost.LinearGoroutines: each is handed
// to the goroutine that reads it, and on a thread locked to the reading
// the hand-overs, switches of the system's threads whose CPU time
// follows the machine's load, were nine tenths of the CPU time or more.
// The other outputs read the same value through the same code, CPU
// included.
//
// Under the race detector, reads are of a 64th of the output instead: the
// token decoder moves what it holds of a value to the front of its buffer
// before each read, and the value starts there already, a copy onto
// itself that the compiler skips but the race detector checks byte by
// byte, so that a value read in pieces of a fixed size costs the square of
// its size there (16 MiB in 4 KiB reads: 16 s of CPU), though not in a
// build without it (77 ms).
func TestCommandReadHostileSizes(t *testing.T) {
	const n = 1 << 20
	readSize := func(output []byte) int { return 4 << 10 }
	if raceEnabled {
		readSize = func(output []byte) int { return len(output)/64 + 1 }
	}
	const resp = `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	for _, tt := range []struct {
		name   string
		output func(n int) string
		over   bool // longer than the limit
		many   bool // a message for every few bytes
	}{
		{"a long string", func(n int) string {
			return `{"jsonrpc":"2.0","id":1,"result":{"s":"` + strings.Repeat("a", n) + `"}}` + "\n"
		}, false, false},
		{"many small messages", func(n int) string { return strings.Repeat(resp, n/len(resp)) }, false, true},
		{"a message over many lines", func(n int) string {
			return `{"jsonrpc":"2.0","id":1,"result":[` + strings.Repeat("1,\n", n/3) + "1]}\n"
		}, false, false},
		{"deep arrays, many of them", func(n int) string {
			deep := strings.Repeat("[", 998) + strings.Repeat("]", 998)
			return `{"jsonrpc":"2.0","id":1,"result":[` + strings.Repeat(deep+",", n/len(deep)) + "0]}\n"
		}, false, false},
		{"over the limit", func(n int) string {
			return `{"jsonrpc":"2.0","id":1,"result":{"s":"` + strings.Repeat("a", 2*n) + `"}}` + "\n"
		}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			outputs := map[int][]byte{n / 4: []byte(tt.output(n / 4)), n: []byte(tt.output(n))}
			linear := cost.Linear
			switch {
			case tt.over:
				linear = cost.LinearAllocs
			case tt.many:
				linear = cost.LinearGoroutines
			}
			linear(t, tt.name, n/4, n, func(size int) {
				c := &commandConn{inbox: jsonrpcwire.NewInbox()}
				done := make(chan struct{})
				go func() {
					defer close(done)
					for {
						if _, err := c.inbox.Read(context.Background()); err != nil {
							return
						}
					}
				}()
				output := &chunks{data: outputs[size], size: readSize(outputs[size])}
				limit := size + size/2
				c.read(output, limit)
				<-done
				if tt.over && output.read != limit+1 {
					t.Errorf("%d bytes read of an output of %d whose first line is longer than the limit, %d; want the limit and one", output.read, len(outputs[size]), limit)
				}
			})
		})
	}
}
