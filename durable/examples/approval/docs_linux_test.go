package main

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hands-go/hands/durable/internal/devtest"
)

// docScript, when set, makes the test binary bring up the loopback
// interface of its network namespace and run the shell script it names,
// and nothing else.
const docScript = "HANDS_APPROVAL_DOC_SCRIPT"

// runDocScript runs the script docScript names, if any, in place of the
// test binary.
func runDocScript() {
	script := os.Getenv(docScript)
	if script == "" {
		return
	}
	if err := loopbackUp(); err != nil {
		os.Stderr.WriteString("bringing up the loopback interface: " + err.Error() + "\n")
		os.Exit(2)
	}
	bash, err := exec.LookPath("bash")
	if err == nil {
		err = syscall.Exec(bash, []string{"bash", script}, os.Environ())
	}
	os.Stderr.WriteString("running the script: " + err.Error() + "\n")
	os.Exit(2)
}

// loopbackUp brings up the loopback interface, which a new network
// namespace has down.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(ifr.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	ifr.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return e
	}
	return nil
}

// documentedCommands returns the commands of the package documentation,
// in order: its code blocks' lines.
func documentedCommands(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for line := range strings.SplitSeq(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "\t") {
			commands = append(commands, strings.TrimSpace(line))
		}
	}
	return commands
}

// TestDocumentedCommands runs the commands of the package documentation
// as they are written, in their order, in one shell, from the durable
// directory: the Temporal server built and started in the background, the
// run in one process, and the run across processes. It runs them in a
// network namespace of its own, where 127.0.0.1:7233 is free whatever else
// runs on the machine, with GOBIN (where go install puts the programs,
// first on PATH) and TMPDIR (where the worker makes its workspace) in
// directories of its own. Each command that a command prints as the next
// is one the documentation gives.
func TestDocumentedCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a Temporal server")
	}
	commands := documentedCommands(t)
	for _, want := range []string{"go install -C internal/devserver .", "devserver -detach", "go run ./examples/approval", "approval worker &", "approval approve -id tidy"} {
		if !slices.Contains(commands, want) {
			t.Fatalf("the documentation's commands %q lack %q", commands, want)
		}
	}
	// Compile the server's packages once for every test binary that needs
	// them: go install then only links.
	devtest.Build(t)

	dir := t.TempDir()
	bin, tmp := filepath.Join(dir, "bin"), filepath.Join(dir, "tmp")
	for _, d := range []string{bin, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "doc.sh")
	if err := os.WriteFile(script, []byte("set -e\n"+strings.Join(commands, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	durableDir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Dir = durableDir
	cmd.Env = append(os.Environ(), docScript+"="+script, "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp, "TEMPORAL_ADDRESS=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Setpgid: true}
	// A file, not a pipe: the workers left in the background hold it.
	outFile, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd.Stdout, cmd.Stderr = outFile, outFile
	err = cmd.Start()
	if errors.Is(err, syscall.EPERM) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("a network namespace of its own: %v", err)
		}
		t.Skipf("a network namespace of its own needs root: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	// The workers the script left in the background are in its process
	// group; the server, in a session of its own, said which it is.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	data, rerr := os.ReadFile(outFile.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	text := string(data)
	if m := regexp.MustCompile(`stop it with: kill (\d+)`).FindStringSubmatch(text); m != nil {
		pid, _ := strconv.Atoi(m[1])
		syscall.Kill(pid, syscall.SIGTERM)
	}
	if err != nil {
		t.Fatalf("the documented commands: %v\n%s", err, text)
	}

	for _, want := range []string{
		"127.0.0.1:7233 default\n",
		"answer: done: removed notes.txt\nnotes.txt is gone: true\n", // in one process
		"created the workspace " + filepath.Join(tmp, "hands-approval") + ", with notes.txt\n",
		`run tidy waits for approval: remove {"path":"notes.txt"}` + "\n",
		"approve call_1_1\nanswer: done: removed notes.txt\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the documented commands printed no %q:\n%s", want, text)
		}
	}
	next := regexp.MustCompile(`(?m)^next: (.*)$`).FindAllStringSubmatch(text, -1)
	for _, want := range []string{"approval start -id tidy 'remove notes.txt'", "approval approve -id tidy"} {
		if !slices.ContainsFunc(next, func(m []string) bool { return m[1] == want }) {
			t.Errorf("no command printed %q as the next:\n%s", want, text)
		}
	}
	for _, m := range next {
		if !slices.ContainsFunc(commands, func(c string) bool { return strings.HasPrefix(c, m[1]) }) {
			t.Errorf("a command printed the next as %q, which the documentation does not give", m[1])
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "hands-approval", "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workspace's notes.txt after the approval: %v, want it removed", err)
	}
}
