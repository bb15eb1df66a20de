package sqldb_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hands-go/hands/sqldb"
	_ "github.com/hands-go/hands/sqldb/sqlitedb"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sqldb-example")
	defer os.RemoveAll(dir)
	db, err := sqldb.Open(ctx, "sqlite://"+filepath.ToSlash(dir)+"/app.db")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.Exec(`CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('one'), ('two')`)

	// A model's statement: read-only, one statement, bounded.
	res, err := sqldb.Query(ctx, db, `SELECT id, body FROM notes ORDER BY id`, nil, &sqldb.QueryOptions{MaxRows: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	_, err = sqldb.Query(ctx, db, `DELETE FROM notes`, nil, nil)
	fmt.Println("delete refused:", err != nil)
	// Output:
	// id (INTEGER) | body (TEXT)
	// 1 | one
	// (1 row; more not shown: row limit 1 reached; add a LIMIT or a narrower WHERE)
	// delete refused: true
}
