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

	"github.com/hands-go/hands/internal/jsonrpcwire"
	"github.com/hands-go/hands/internal/mcpwire"
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
// It reads the server's output with the framing mcpserver's StdioTransport
// reads its input with (one line reader, one limit, one error for a line
// over it), and decodes each message without the SDK's decoder, which
// allocates 32 KiB for every message (three times, for a response), the
// larger part of what a small call costs. A message may go on over
// several lines, as the SDK's transport reads it, while an object or
// array in it is open. A batch (a JSON array), which protocol versions
// from 2025-06-18 do not allow, ends the connection with an error, as do
// a message over the limit and anything but white space after a message
// on its line.
type CommandTransport struct {
	// Command is the server's command; Connect starts it. Its Stdin and
	// Stdout must be unset.
	Command *exec.Cmd
	// TerminateDuration is how long Close waits for the server to exit
	// after closing its input, and again after SIGTERM. Zero selects
	// DefaultTerminateDuration.
	TerminateDuration time.Duration
	// MaxMessageBytes is the longest message read, line breaks
	// excluded. Zero selects mcp.DefaultMaxLineLength (16 MiB), as the
	// SDK's transport.
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
	c := &commandConn{
		cmd:       t.Command,
		stdin:     stdin,
		terminate: t.TerminateDuration,
		inbox:     jsonrpcwire.NewInbox(),
	}
	if c.terminate <= 0 {
		c.terminate = DefaultTerminateDuration
	}
	go c.read(stdout, t.MaxMessageBytes)
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

// read decodes the server's messages and hands them to Read, until the
// output ends, a message cannot be read, or the connection is closed. A
// limit of zero or below is mcp.DefaultMaxLineLength.
func (c *commandConn) read(stdout io.Reader, limit int) {
	lines := mcpwire.NewLineReader(stdout, limit)
	for {
		msg, err := lines.Message()
		if err != nil && err != io.EOF {
			err = fmt.Errorf("mcpclient: the server's output: %w", err)
		}
		if !c.inbox.Hand(msg, err) || err != nil {
			return
		}
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
	data, err := mcpwire.EncodeLine(msg)
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
