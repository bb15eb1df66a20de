// Command capture records the tools an MCP server lists, as it sends them,
// for the catalogue in package catalogue.
//
// It starts the server's command over stdio, initializes a session, walks
// every page of tools/list and writes one file: the server's name, package
// and version, how it was started, and each tool object exactly as the
// server wrote it on the wire. The catalogue's MANIFEST is updated to match.
//
// Usage:
//
//	go run ./internal/catalogue/capture -name filesystem \
//		-package @modelcontextprotocol/server-filesystem -version 2026.8.31 \
//		-started 'npx @modelcontextprotocol/server-filesystem /tmp/root' \
//		-- node .../dist/index.js /tmp/root
//
// The command inherits capture's environment: give a server that wants a
// token a made-up one there, and one that would reach its service at start
// an address that cannot be reached. Capture itself opens no connection.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/internal/catalogue"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("capture: ")
	name := flag.String("name", "", "the server's short `name`, which names its file")
	pkg := flag.String("package", "", "the `package` the server comes from")
	version := flag.String("version", "", "the package's `version`")
	started := flag.String("started", "", "how the server was started, for people to read (default: the command)")
	dir := flag.String("dir", filepath.Join("internal", "catalogue", "testdata"), "the catalogue's `directory`")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long the server may take to list its tools")
	flag.Parse()
	if *name == "" || *pkg == "" || *version == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *started == "" {
		*started = fmt.Sprint(flag.Args())
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	tools, err := list(ctx, flag.Args())
	if err != nil {
		log.Fatalf("%s: %v", *name, err)
	}
	s := catalogue.Server{
		Name: *name, Package: *pkg, Version: *version, Started: *started,
		Captured: time.Now().UTC().Format(time.DateOnly), Tools: tools,
	}
	if err := write(*dir, s); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d tools\n", *name, len(tools))
}

// list starts argv and returns the tools it lists, each as written.
func list(ctx context.Context, argv []string) ([]json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	s := &session{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	result := make(chan error, 1)
	var tools []json.RawMessage
	go func() {
		var err error
		tools, err = s.tools()
		result <- err
	}()
	select {
	case err := <-result:
		if err != nil {
			return nil, fmt.Errorf("%w; the server's standard error: %s", err, lastBytes(stderr.Bytes(), 2000))
		}
		return tools, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w; the server's standard error: %s", ctx.Err(), lastBytes(stderr.Bytes(), 2000))
	}
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// A session speaks JSON-RPC, one message a line, to a server's stdio.
type session struct {
	in   io.Writer
	out  *bufio.Reader
	next int
}

func (s *session) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(b, '\n'))
	return err
}

// call sends a request and returns the raw result of its response,
// answering the server's own requests meanwhile with "method not found".
func (s *session) call(method string, params any) (json.RawMessage, error) {
	s.next++
	id := s.next
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: read: %w", method, err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue // a line of logging on standard output
		}
		switch {
		case msg.Method != "" && len(msg.ID) > 0:
			var rid any
			json.Unmarshal(msg.ID, &rid)
			if err := s.send(map[string]any{"jsonrpc": "2.0", "id": rid, "error": map[string]any{"code": -32601, "message": "method not found"}}); err != nil {
				return nil, err
			}
		case msg.Method != "":
			// A notification.
		case string(msg.ID) == strconv.Itoa(id):
			if len(msg.Error) > 0 {
				return nil, fmt.Errorf("%s: %s", method, msg.Error)
			}
			return msg.Result, nil
		}
	}
}

func (s *session) tools() ([]json.RawMessage, error) {
	_, err := s.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "catalogue-capture", "version": "1"},
	})
	if err != nil {
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := s.call("tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(tools) == 0 {
		return nil, errors.New("tools/list: no tools")
	}
	return tools, nil
}

const manifestHeader = "# The servers of the catalogue, one a line: name, package@version, tool count, date captured.\n" +
	"# Written by ./capture; each server's tools are in <name>.json, as the server sent them.\n"

// write records s in the catalogue in dir, as <name>.json, one tool a line
// with each tool's bytes unchanged, and rewrites the MANIFEST in dir to
// list every server there.
func write(dir string, s catalogue.Server) error {
	var b bytes.Buffer
	head, err := json.Marshal(map[string]string{
		"name": s.Name, "package": s.Package, "version": s.Version, "started": s.Started, "captured": s.Captured,
	})
	if err != nil {
		return err
	}
	b.Write(head[:len(head)-1])
	b.WriteString(`,"tools":[`)
	for i, t := range s.Tools {
		if !json.Valid(t) {
			return fmt.Errorf("%s: tool %d is not JSON", s.Name, i)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(t)
	}
	b.WriteString("\n]}\n")
	if err := os.WriteFile(filepath.Join(dir, s.Name+".json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	servers, err := catalogue.LoadDir(dir)
	if err != nil {
		return err
	}
	var m strings.Builder
	m.WriteString(manifestHeader)
	for _, s := range servers {
		fmt.Fprintf(&m, "%s\t%s@%s\t%d\t%s\n", s.Name, s.Package, s.Version, len(s.Tools), s.Captured)
	}
	return os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte(m.String()), 0o644)
}
