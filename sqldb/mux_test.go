package sqldb_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/hands-go/hands/sqldb"
)

func TestURLMux(t *testing.T) {
	var m sqldb.URLMux
	if _, err := m.OpenDB(t.Context(), "nope://x"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("OpenDB of an unknown scheme = %v, want an error naming it", err)
	}
	if _, err := m.OpenDB(t.Context(), "not a url"); err == nil {
		t.Error("OpenDB of a relative reference = nil error")
	}
	m.Register("x", nil)
	if !m.ValidScheme("x") || m.ValidScheme("y") || len(m.Schemes()) != 1 {
		t.Errorf("after Register(x): Schemes = %v", m.Schemes())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a scheme twice did not panic")
		}
	}()
	m.Register("x", nil)
}

// TestNoEngine refuses a database whose driver registered no engine,
// rather than running a model's statement without its rules.
func TestNoEngine(t *testing.T) {
	db := sql.OpenDB(nullConnector{})
	defer db.Close()
	if _, err := sqldb.Query(t.Context(), db, "SELECT 1", nil, nil); !errors.Is(err, sqldb.ErrNoEngine) {
		t.Errorf("Query = %v, want ErrNoEngine", err)
	}
	if _, err := sqldb.Schema(t.Context(), db); !errors.Is(err, sqldb.ErrNoEngine) {
		t.Errorf("Schema = %v, want ErrNoEngine", err)
	}
}
