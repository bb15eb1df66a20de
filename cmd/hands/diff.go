package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hands-go/hands/compat"
	"github.com/hands-go/hands/internal/buildinfo"
	"github.com/hands-go/hands/mcpclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errBreaking ends hands diff when a change breaks callers; the changes
// have been printed. It exits with 1.
var errBreaking = fmt.Errorf("%w: breaking changes", errReported)

// A compareError is why hands diff could not compare the two tool lists:
// a list it could not read (a missing or invalid file, a server that
// failed or did not answer), or output it could not write. It exits with
// 3, so that a script tells it from a breaking change (1) and from a
// mistake in the command line (2).
type compareError struct{ err error }

func (e *compareError) Error() string { return e.err.Error() }

func (e *compareError) Unwrap() error { return e.err }

// couldNotCompare wraps err as a compareError, unless it is a usage error.
func couldNotCompare(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*usageError](err); ok {
		return err
	}
	return &compareError{err}
}

// maxListedTools is how many tools hands diff and hands snapshot take from
// a server.
const maxListedTools = mcpclient.DefaultMaxTools

// headers is a repeatable --header flag.
type headers []string

func (h *headers) String() string { return strings.Join(*h, ", ") }

func (h *headers) Set(v string) error {
	if k, _, ok := strings.Cut(v, ":"); !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want NAME: VALUE, got %q", v)
	}
	*h = append(*h, v)
	return nil
}

func (h headers) header() http.Header {
	out := http.Header{}
	for _, v := range h {
		k, val, _ := strings.Cut(v, ":")
		out.Add(strings.TrimSpace(k), strings.TrimSpace(val))
	}
	return out
}

// sourceFlags are the flags of the commands that read a tool list.
type sourceFlags struct {
	timeout *time.Duration
	headers headers
}

func addSourceFlags(fs *flag.FlagSet) *sourceFlags {
	s := &sourceFlags{}
	s.timeout = fs.Duration("timeout", 30*time.Second, "give up reading a server's tools after `D`")
	fs.Var(&s.headers, "header", "send `NAME: VALUE` with each HTTP request to a server (repeatable)")
	return s
}

// diffTools compares two tool lists and prints every change; it exits
// non-zero when one breaks the callers of the old list.
func diffTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("diff", "diff [flags] OLD NEW", stdout, stderr)
	src := addSourceFlags(fs)
	asJSON := fs.Bool("json", false, "print the changes as a JSON array")
	declaredOnly := fs.Bool("declared-only", false, "assume callers send only declared properties: adding one to an open object is compatible")
	modeName := fs.String("mode", "backward", "which callers must keep working: `backward` (of OLD), forward (of NEW reaching a replica of OLD, as in a rolling deploy) or full (both)")
	acceptFile := fs.String("accept", "", "accept the breaking changes that the waivers in `FILE` name (lines of TOOL [POINTER] [# reason])")
	if done, err := parse(fs, args, stdout, stderr); done {
		return err
	}
	mode, err := compat.ParseMode(*modeName)
	if err != nil {
		return &usageError{msg: "--mode: want backward, forward or full, got " + strconv.Quote(*modeName)}
	}
	var waivers []compat.Waiver
	if *acceptFile != "" {
		data, err := os.ReadFile(*acceptFile)
		if err != nil {
			return &compareError{fmt.Errorf("--accept: %w", err)}
		}
		if waivers, err = compat.ParseWaivers(data); err != nil {
			return &compareError{fmt.Errorf("--accept %s: %w", *acceptFile, err)}
		}
	}
	if fs.NArg() != 2 {
		fs.SetOutput(stderr)
		fs.Usage()
		return &usageError{msg: "diff needs two tool lists: a snapshot file, an MCP server's http(s) URL, or a command that serves MCP on stdio"}
	}
	old, err := loadTools(ctx, fs.Arg(0), src, stderr)
	if err != nil {
		return couldNotCompare(err)
	}
	new, err := loadTools(ctx, fs.Arg(1), src, stderr)
	if err != nil {
		return couldNotCompare(err)
	}
	changes := compat.Tools(old, new, &compat.Options{DeclaredOnly: *declaredOnly, Mode: mode})
	changes, unused := compat.Waive(changes, waivers)
	for _, w := range unused {
		fmt.Fprintf(stderr, "hands diff: %s: the waiver of %s %s accepts no change; remove it\n", *acceptFile, w.Tool, cmp.Or(w.Pointer, "(all)"))
	}
	if err := printChanges(stdout, changes, *asJSON); err != nil {
		return couldNotCompare(err)
	}
	if compat.Breaks(changes) {
		return errBreaking
	}
	return nil
}

// printChanges writes changes one a line and a summary, or as JSON.
func printChanges(w io.Writer, changes []compat.Change, asJSON bool) error {
	if asJSON {
		type change struct {
			Tool    string `json:"tool"`
			Pointer string `json:"pointer"`
			Kind    string `json:"kind"`
			Effect  string `json:"effect"`
			Message string `json:"message"`
		}
		list := make([]change, 0, len(changes))
		for _, c := range changes {
			list = append(list, change{c.Tool, c.Pointer, c.Kind, c.Effect.String(), c.Message})
		}
		data, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	var b bytes.Buffer
	breaking, migrated, accepted := 0, 0, 0
	for _, c := range changes {
		fmt.Fprintln(&b, c)
		switch {
		case c.Breaks():
			breaking++
		case c.Effect == compat.Migrated:
			migrated++
		case c.Effect == compat.Accepted:
			accepted++
		}
	}
	if len(changes) == 0 {
		b.WriteString("no changes\n")
	} else {
		fmt.Fprintf(&b, "%d changes, %d breaking", len(changes), breaking)
		if migrated > 0 {
			fmt.Fprintf(&b, ", %d breaking old calls that a migration upgrades", migrated)
		}
		if accepted > 0 {
			fmt.Fprintf(&b, ", %d breaking accepted by a waiver", accepted)
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// snapshotTools prints a tool list as a snapshot, for hands diff and
// tooltest.Snapshot to compare later.
func snapshotTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flags("snapshot", "snapshot [flags] SOURCE", stdout, stderr)
	src := addSourceFlags(fs)
	if done, err := parse(fs, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() != 1 {
		fs.SetOutput(stderr)
		fs.Usage()
		return &usageError{msg: "snapshot needs one tool list: a snapshot file, an MCP server's http(s) URL, or a command that serves MCP on stdio"}
	}
	tools, err := loadTools(ctx, fs.Arg(0), src, stderr)
	if err != nil {
		return err
	}
	data, err := (&compat.Snapshot{Tools: tools}).Marshal()
	if err != nil {
		return err
	}
	_, err = stdout.Write(data)
	return err
}

// loadTools reads a tool list from source: an http(s) URL is a streamable
// HTTP MCP server; a file that exists is a snapshot when its first byte
// other than white space is { or [, and otherwise, if it is executable, a
// program run without arguments that serves MCP on stdio; anything else
// is a command, split at spaces, that serves MCP on stdio. The content
// decides, not the name: ./server is run, tools.txt holding JSON is read.
func loadTools(ctx context.Context, source string, src *sourceFlags, stderr io.Writer) ([]compat.Tool, error) {
	if strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://") {
		return listTools(ctx, source, mcpclient.HTTP(source, src.headers.header()), *src.timeout)
	}
	if info, err := os.Stat(source); err == nil && !info.IsDir() {
		f, err := os.Open(source)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, compat.MaxSnapshotBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			s, err := compat.ParseSnapshot(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", source, err)
			}
			return s.Tools, nil
		}
		if info.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("%s: neither a snapshot (a JSON tool list) nor an executable file that serves MCP on stdio", source)
		}
		path := source
		if !strings.ContainsRune(path, filepath.Separator) && !strings.ContainsRune(path, '/') {
			path = "." + string(filepath.Separator) + path // this file, not one found on PATH
		}
		return listCommand(ctx, source, []string{path}, src, stderr)
	}
	args, err := splitWords(source)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	if len(args) == 0 {
		return nil, &usageError{msg: "an empty tool list source"}
	}
	if strings.HasSuffix(args[0], ".json") && len(args) == 1 {
		return nil, fmt.Errorf("%s: no such snapshot file", source)
	}
	return listCommand(ctx, source, args, src, stderr)
}

// listCommand runs args as a command that serves MCP on stdio and lists
// its tools.
func listCommand(ctx context.Context, source string, args []string, src *sourceFlags, stderr io.Writer) ([]compat.Tool, error) {
	cmd := exec.Command(args[0], args[1:]...)
	// The command gets what an upstream of serve gets: the allow-list, and
	// the names in HANDS_UPSTREAM_ENV.
	var pass []string
	for name := range strings.SplitSeq(os.Getenv("HANDS_UPSTREAM_ENV"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			pass = append(pass, name)
		}
	}
	cmd.Env = upstreamEnv(os.Environ(), pass)
	cmd.Stderr = stderr
	return listTools(ctx, source, &mcp.CommandTransport{Command: cmd}, *src.timeout)
}

// listTools asks an MCP server for its tools, all pages, within timeout.
func listTools(ctx context.Context, source string, transport mcp.Transport, timeout time.Duration) ([]compat.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "hands-diff", Version: buildinfo.Read().String()}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	defer session.Close()
	var buf bytes.Buffer
	buf.WriteString(`{"tools":[`)
	n := 0
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%s: no tool list within %v (--timeout)", source, timeout)
			}
			return nil, fmt.Errorf("%s: tools/list: %w", source, err)
		}
		if n++; n > maxListedTools {
			return nil, fmt.Errorf("%s: the server lists more than %d tools", source, maxListedTools)
		}
		data, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %q: %w", source, t.Name, err)
		}
		if n > 1 {
			buf.WriteByte(',')
		}
		buf.Write(data)
		if buf.Len() > compat.MaxSnapshotBytes {
			return nil, fmt.Errorf("%s: %w: the tool list is more than %d bytes", source, compat.ErrSnapshotTooLarge, compat.MaxSnapshotBytes)
		}
	}
	buf.WriteString(`]}`)
	s, err := compat.ParseSnapshot(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s.Tools, nil
}
