package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTerminateDuration is how long a CommandTransport's connection,
// once closed, waits for the server to exit before it sends SIGTERM, and
// then SIGKILL: five seconds, as the SDK's mcp.CommandTransport waits.
const DefaultTerminateDuration = 5 * time.Second

// A CommandTransport starts an MCP server as a process and speaks to it
// over its standard input and output, as the SDK's mcp.CommandTransport
// does: messages are JSON values, one a line; closing the connection
// closes the server's input and waits for it to exit, then terminates it.
// It decodes each message it reads without the SDK's decoder, which
// allocates 32 KiB for every message (three times, for a response), the
// larger part of what a small call costs. A batch (a JSON array), which
// protocol versions from 2025-06-18 do not allow, ends the connection with
// an error, as does a message over the limit or anything but a line break
// after one.
type CommandTransport struct {
	// Command is the server's command; Connect starts it. Its Stdin and
	// Stdout must be unset.
	Command *exec.Cmd
	// TerminateDuration is how long Close waits for the server to exit
	// after closing its input, and again after SIGTERM. Zero selects
	// DefaultTerminateDuration.
	TerminateDuration time.Duration
	// MaxMessageBytes is the longest message read. Zero selects
	// mcp.DefaultMaxLineLength (16 MiB), as the SDK's transport.
	MaxMessageBytes int
}

// Connect implements mcp.Transport: it starts the command.
func (t *CommandTransport) Connect(context.Context) (mcp.Connection, error) {
	stdout, err := t.Command.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.Command.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Command.Start(); err != nil {
		return nil, err
	}
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = mcp.DefaultMaxLineLength
	}
	c := &commandConn{
		cmd:       t.Command,
		stdin:     stdin,
		terminate: t.TerminateDuration,
		inbox:     jsonrpcwire.NewInbox(),
	}
	if c.terminate <= 0 {
		c.terminate = DefaultTerminateDuration
	}
	go c.read(stdout, limit)
	return c, nil
}

// A commandConn is the connection of a CommandTransport.
type commandConn struct {
	cmd       *exec.Cmd
	terminate time.Duration

	writeMu sync.Mutex // one message per line, whole
	stdin   io.WriteCloser

	inbox     *jsonrpcwire.Inbox
	closeOnce sync.Once
	closeErr  error
}

var (
	errMessageTooLong = errors.New("mcpclient: a message from the server is over the limit")
	errTrailing       = errors.New("mcpclient: invalid trailing data after a message from the server")
	errBatch          = errors.New("mcpclient: the server sent a batch, which this protocol does not allow")
)

// read decodes the server's messages and hands them to Read, until the
// output ends, a message cannot be read, or the connection is closed.
// Each value is read from the stream once, checked, and decoded from
// the decoder's own buffer.
func (c *commandConn) read(stdout io.Reader, limit int) {
	frame := &frameLimit{r: stdout, limit: limit}
	dec := jsontext.NewDecoder(frame, jsonrpcwire.Options)
	for {
		raw, err := dec.ReadValue()
		if err == nil {
			// A message ends its line: what follows it is a line break or
			// the end of the output.
			if next := dec.UnreadBuffer(); len(next) > 0 && next[0] != '\n' && next[0] != '\r' {
				err = errTrailing
			}
		}
		var msg jsonrpc.Message
		switch {
		case errors.Is(err, errFrameTooLong):
			err = fmt.Errorf("%w of %d bytes", errMessageTooLong, limit)
		case err != nil:
		case raw.Kind() == '[':
			err = errBatch
		default:
			msg, err = jsonrpcwire.Decode(raw) // which copies what it keeps of raw
		}
		if !c.inbox.Hand(msg, err) {
			return
		}
		if err != nil {
			return
		}
		frame.next()
	}
}

// Read implements mcp.Connection.
func (c *commandConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	return c.inbox.Read(ctx)
}

// Write implements mcp.Connection.
func (c *commandConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpcwire.EncodeLine(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(data)
	return err
}

// Close implements mcp.Connection: it closes the server's input and waits
// for the server to exit, sending SIGTERM and then SIGKILL when it does
// not within the TerminateDuration.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		c.inbox.Close()
		c.closeErr = c.stop()
	})
	return c.closeErr
}

// killWait is how long stop waits for a killed server's process to exit.
const killWait = 30 * time.Second

// stop ends the server as the MCP specification says a client ends a
// stdio server: input closed, then SIGTERM, then SIGKILL.
func (c *commandConn) stop() error {
	c.writeMu.Lock()
	err := c.stdin.Close()
	c.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	wait := func(d time.Duration) (error, bool) {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case err := <-exited:
			return err, true
		case <-timer.C:
			return nil, false
		}
	}
	if err, ok := wait(c.terminate); ok {
		return err
	}
	if c.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(c.terminate); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	// A killed process cannot refuse to die, but a loaded machine may take
	// more than the TerminateDuration to run it down and reap it: its exit
	// is waited for up to killWait, after which only a process stuck in
	// the kernel is left.
	if err, ok := wait(max(c.terminate, killWait)); ok {
		return err
	}
	return errors.New("mcpclient: the server's process does not exit, though killed")
}

// SessionID implements mcp.Connection; a stdio session has no ID.
func (c *commandConn) SessionID() string { return "" }

var errFrameTooLong = errors.New("frame too long")

// A frameLimit bounds the bytes read for one message: past limit, Read
// fails, and the decoder with it. next starts the count again for the
// next message.
type frameLimit struct {
	r     io.Reader
	limit int
	count int
}

func (f *frameLimit) Read(p []byte) (int, error) {
	if f.count >= f.limit {
		return 0, errFrameTooLong
	}
	if len(p) > f.limit-f.count {
		p = p[:f.limit-f.count]
	}
	n, err := f.r.Read(p)
	f.count += n
	return n, err
}

func (f *frameLimit) next() { f.count = 0 }
