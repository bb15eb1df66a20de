package sqltool_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hands-go/hands/dialect"
	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/sqltool"
)

func TestSQLTools(t *testing.T) {
	db, err := sqldb.Open(t.Context(), "sqlite://"+filepath.ToSlash(t.TempDir())+"/app.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL); INSERT INTO notes(body) VALUES ('one'), ('two')`); err != nil {
		t.Fatal(err)
	}
	query := sqltool.Query(db, nil)
	schemaTool := sqltool.Schema(db, "")
	for _, d := range []*dialect.Dialect{dialect.OpenAIStrict(), dialect.AnthropicStrict(), dialect.Gemini()} {
		for _, p := range tool.Lint(d, query, schemaTool) {
			if p.Severity == dialect.SeverityError {
				t.Errorf("%s: %v", d.Name, p)
			}
		}
	}
	if a := query.Spec().Annotations; a == nil || !a.ReadOnly || a.Destructive {
		t.Errorf("read-only sql_query annotations = %+v", a)
	}
	for _, spec := range []tool.Spec{query.Spec(), schemaTool.Spec()} {
		if spec.Title == "" {
			t.Errorf("%s has no title", spec.Name)
		}
	}
	if a := schemaTool.Spec().Annotations; a == nil || !a.ReadOnly {
		t.Errorf("sql_schema annotations = %+v, want read-only", a)
	}

	res := tool.Run(t.Context(), query, tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"SELECT id, body FROM notes WHERE id = ?","params":["2"]}`)})
	if res.IsError {
		t.Fatal(res.Err)
	}
	if want := "id (INTEGER) | body (TEXT)\n2 | two\n(1 row)"; res.Content != want {
		t.Errorf("Content = %q, want %q", res.Content, want)
	}
	if want := `{"columns":[{"name":"id","type":"INTEGER"},{"name":"body","type":"TEXT"}],"rows":[[2,"two"]]}`; string(res.Structured) != want {
		t.Errorf("Structured = %s, want %s", res.Structured, want)
	}

	res = tool.Run(t.Context(), query, tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"COMMIT; DELETE FROM notes"}`)})
	if !res.IsError {
		t.Errorf("a stacked write = %q, want an error", res.Content)
	}
	if _, ok := errors.AsType[*sqldb.QueryError](res.Err); !ok {
		t.Errorf("the error is %T, want a *sqldb.QueryError", res.Err)
	}

	// A refused change says the tool is read-only and what allows writes.
	named := sqltool.Query(db, &sqltool.Options{WriteSetting: "HANDS_SQL_WRITE=true"})
	res = tool.Run(t.Context(), named, tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"DELETE FROM notes"}`)})
	if !res.IsError || !errors.Is(res.Err, sqldb.ErrReadOnly) || !strings.Contains(res.Err.Error(), "read-only") || !strings.Contains(res.Err.Error(), "HANDS_SQL_WRITE=true") {
		t.Errorf("a read-only DELETE = %v, want a read-only error that names HANDS_SQL_WRITE=true", res.Err)
	}

	res = tool.Run(t.Context(), schemaTool, tool.Call{Name: "sql_schema", Args: json.RawMessage(`{}`)})
	if want := "notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)\n"; res.IsError || res.Content != want {
		t.Errorf("sql_schema = %q (%v), want %q", res.Content, res.Err, want)
	}

	write := sqltool.Query(db, &sqltool.Options{Write: true})
	if a := write.Spec().Annotations; a == nil || a.ReadOnly || !a.Destructive {
		t.Errorf("writable sql_query annotations = %+v, want destructive", a)
	}
	res = tool.Run(t.Context(), write, tool.Call{Name: "sql_query", Args: json.RawMessage(`{"sql":"INSERT INTO notes(body) VALUES (?) RETURNING id","params":["three"]}`)})
	if res.IsError || !strings.Contains(res.Content, "3") {
		t.Errorf("an insert = %q, %v", res.Content, res.Err)
	}
}
