package sqldb_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hands-go/hands/sqldb"
)

func TestText(t *testing.T) {
	r := &sqldb.Result{
		Columns: []sqldb.Column{{Name: "id", Type: "INTEGER"}, {Name: "body", Type: "TEXT"}, {Name: "at"}, {Name: "ok"}},
		Rows: [][]any{
			{int64(1), "a|b\nc", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), true},
			{int64(-2), nil, nil, 1.5},
		},
		Truncated: "row limit 2 reached",
	}
	want := "id (INTEGER) | body (TEXT) | at | ok\n" +
		`1 | a\|b\nc | 2024-05-01T00:00:00Z | true` + "\n" +
		"-2 | NULL | NULL | 1.5\n" +
		"(2 rows; more not shown: row limit 2 reached)"
	if got := r.Text(); got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
}

// TestTextAllocations renders 100 rows of text with a few allocations for
// the whole table, none per row or cell.
func TestTextAllocations(t *testing.T) {
	r := &sqldb.Result{Columns: []sqldb.Column{{Name: "id", Type: "INTEGER"}, {Name: "body", Type: "TEXT"}}}
	for i := range 100 {
		r.Rows = append(r.Rows, []any{int64(i), fmt.Sprintf("note | number\n%d", i)})
	}
	text := r.Text()
	if !strings.Contains(text, `42 | note \| number\n42`) {
		t.Fatalf("Text = %s", text)
	}
	if n := testing.AllocsPerRun(20, func() { r.Text() }); n > 20 {
		t.Errorf("Text of 100 rows: %v allocations, want at most 20", n)
	}
}
