package sqltasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/internal/pgtest"
	"github.com/hands-go/hands/sqldb"
	_ "github.com/hands-go/hands/sqldb/pgdb"
	"github.com/hands-go/hands/taskstore"
)

// TestCreateReadsFewRows counts the rows PostgreSQL reads for the checks
// of a Create (the statement that sweeps and checks, which EXPLAIN
// ANALYZE runs in a transaction rolled back) while the store holds 2,000
// tasks of the owner "", those of the callers a server cannot tell apart:
// MaxOwnerTasks does not bound that owner, so counting its tasks would
// read every one of them on every Create. A named owner's tasks, which it
// bounds, are counted: as many rows as the owner holds (twice, as a
// bitmap scan reads the index and then the table).
func TestCreateReadsFewRows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	db, err := sqldb.Open(t.Context(), pgtest.Start(t).URL+"&allow_superuser=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := New(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	const held, named = 2000, 5
	lim := taskstore.Limits{MaxTasks: 1 << 20, MaxOwnerTasks: 10}
	for i := range held + named {
		owner := ""
		if i >= held {
			owner = "user ada"
		}
		if _, err := s.Create(t.Context(), taskstore.New{ID: fmt.Sprint(i), Owner: owner, TTL: time.Hour, Lease: time.Hour}, lim); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		owner    string
		min, max int64
	}{{"", 0, 2}, {"user ada", named, 2*named + 2}} {
		tx, err := db.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		us := micros(time.Now(), false)
		var plan []byte
		err = tx.QueryRowContext(t.Context(), "EXPLAIN (ANALYZE, FORMAT JSON) "+s.q.sweepCheck, s.sweepCheckArgs(taskstore.New{ID: "new", Owner: c.owner}, lim, us)...).Scan(&plan)
		tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		var root []struct{ Plan planNode }
		if err := json.Unmarshal(plan, &root); err != nil || len(root) != 1 {
			t.Fatalf("the plan %s: %v", plan, err)
		}
		if got := root[0].Plan.scanned(); got < c.min || got > c.max {
			t.Errorf("a Create of owner %q reads %d rows of a table of %d tasks, want %d to %d:\n%s", c.owner, got, held+named, c.min, c.max, plan)
		}
	}
}

// A planNode is a node of a plan as EXPLAIN (FORMAT JSON) writes it.
type planNode struct {
	NodeType   string     `json:"Node Type"`
	ActualRows int64      `json:"Actual Rows"`
	Loops      int64      `json:"Actual Loops"`
	Plans      []planNode `json:"Plans"`
}

// scanned returns the rows the scans of the plan under n returned.
func (n planNode) scanned() int64 {
	var rows int64
	if strings.HasSuffix(n.NodeType, "Scan") && n.NodeType != "CTE Scan" {
		rows += n.ActualRows * max(n.Loops, 1)
	}
	for _, p := range n.Plans {
		rows += p.scanned()
	}
	return rows
}
