package agent_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hands-go/hands/agent"
	"github.com/hands-go/hands/agent/agenttest"
	"github.com/hands-go/hands/claims"
	"github.com/hands-go/hands/tool"
	_ "github.com/ncruces/go-sqlite3/driver" // pure Go SQLite, for claims.SQL
)

// openSQLite opens (creating) a SQLite database in the file at path, with
// a busy timeout so that processes sharing it wait for each other's locks.
func openSQLite(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// claimStores returns a fresh store of each kind, over dir.
func claimStores(t *testing.T, dir string) map[string]claims.Store {
	sqlClaims := &claims.SQL{DB: openSQLite(t, filepath.Join(dir, "claims.db"))}
	if err := sqlClaims.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "claims"), 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	dollar := &claims.SQL{DB: sqlClaims.DB, Table: "main.dollar_claims", Placeholder: "$1"}
	if err := dollar.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	return map[string]claims.Store{
		"memory":     &claims.Memory{},
		"dir":        claims.Dir{Path: filepath.Join(dir, "claims")},
		"sql":        sqlClaims,
		"sql-dollar": dollar,
	}
}

// The environment of a child process of TestResumeRaceAcrossProcesses.
const (
	childStore = "HANDS_TEST_RESUME_STORE" // the kind of claim store
	childDir   = "HANDS_TEST_RESUME_DIR"   // the interrupt, the stores and the log of calls run
)

var raceKey = []byte("race-key-race-key-race-key-race!")

// TestResumeRaceAcrossProcesses resumes one saved interrupt in two
// processes at once — this test binary, run again — that share a claim
// store on disk: the call runs once, and the other process gets
// ErrInterruptClaimed.
func TestResumeRaceAcrossProcesses(t *testing.T) {
	if kind := os.Getenv(childStore); kind != "" {
		resumeChild(t, kind, os.Getenv(childDir))
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, kind := range []string{"dir", "sql"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			claimStores(t, dir) // creates the table and the directory
			f := &files{}
			in := pause(t, f, &agent.Options{PauseKey: raceKey}, agenttest.Call("d1", "delete", `{"path":"b"}`))
			saved, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "interrupt.json"), saved, 0o600); err != nil {
				t.Fatal(err)
			}

			type child struct {
				cmd   *exec.Cmd
				in    io.WriteCloser
				lines *bufio.Scanner
			}
			var children []child
			for range 2 {
				cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestResumeRaceAcrossProcesses$", "-test.count=1")
				cmd.Env = append(os.Environ(), childStore+"="+kind, childDir+"="+dir)
				cmd.Stderr = os.Stderr
				stdin, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				children = append(children, child{cmd, stdin, bufio.NewScanner(stdout)})
			}
			// Both are ready, with the interrupt read and the store open;
			// then both go at once.
			next := func(c child) string {
				for c.lines.Scan() {
					if line, ok := strings.CutPrefix(c.lines.Text(), "child: "); ok {
						return line
					}
				}
				return "no answer"
			}
			for _, c := range children {
				if got := next(c); got != "ready" {
					t.Fatalf("a child said %q, want ready", got)
				}
			}
			for _, c := range children {
				io.WriteString(c.in, "go\n")
				c.in.Close()
			}
			var outcomes []string
			for _, c := range children {
				outcomes = append(outcomes, next(c))
				for c.lines.Scan() { // the test framework's own lines
				}
				if err := c.cmd.Wait(); err != nil {
					t.Errorf("a child: %v", err)
				}
			}
			if !(reflect.DeepEqual(outcomes, []string{"ran", "claimed"}) || reflect.DeepEqual(outcomes, []string{"claimed", "ran"})) {
				t.Errorf("the children said %q, want one ran and one claimed", outcomes)
			}
			log, err := os.ReadFile(filepath.Join(dir, "calls.log"))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(log); got != "delete b\n" {
				t.Errorf("the calls run were %q, want delete b once", got)
			}
		})
	}
}

// resumeChild is one of the racing processes: it reads the interrupt,
// says it is ready, waits for its go, resumes, and says how it went.
func resumeChild(t *testing.T, kind, dir string) {
	saved, err := os.ReadFile(filepath.Join(dir, "interrupt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in agent.Interrupt
	if err := json.Unmarshal(saved, &in); err != nil {
		t.Fatal(err)
	}
	store := claimStores(t, dir)[kind]
	log, err := os.OpenFile(filepath.Join(dir, "calls.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	del := tool.New("delete", "Delete a file.", func(ctx context.Context, a pathArgs) (string, error) {
		fmt.Fprintf(log, "delete %s\n", a.Path)
		return "deleted " + a.Path, nil
	}, tool.WithAnnotations(tool.Annotations{Destructive: true}))
	reg := newRegistry(t, &tool.Scope{Name: "files", Tools: []tool.Interface{del}})

	fmt.Println("child: ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	_, err = agent.Resume(context.Background(), agenttest.NewScript(agent.Response{Text: "done"}), reg, &in,
		[]agent.Decision{agent.Approve("d1")}, &agent.Options{PauseKey: raceKey, Claims: store})
	switch {
	case err == nil:
		fmt.Println("child: ran")
	case errors.Is(err, agent.ErrInterruptClaimed):
		fmt.Println("child: claimed")
	default:
		fmt.Println("child: error:", err)
	}
}
