// Command notes is an MCP server on stdio whose tools are bound to a SQL
// database, as a Worker's tool is bound to D1: the binding is a field of
// the environment, opened from its URL, and each tool reaches it by
// closure. With no configuration the database is notes.db in the working
// directory (which git ignores in the clone); NOTES_DB=postgres://user:pw@host/db
// uses PostgreSQL instead.
// It exits 0 when the client closes its input or on an interrupt.
package main

import (
	"context"
	"database/sql"
	"log"
	"os"
	"os/signal"

	"github.com/hands-go/hands/bind"
	"github.com/hands-go/hands/mcpserver"
	_ "github.com/hands-go/hands/sqldb/pgdb"
	_ "github.com/hands-go/hands/sqldb/sqlitedb"
	"github.com/hands-go/hands/tool"
	"github.com/hands-go/hands/toolbox/sqltool"
)

// Env is what the tools are bound to.
type Env struct {
	DB *sql.DB `bind:"NOTES_DB,default=sqlite://./notes.db"`
}

// AddArgs are add_note's arguments.
type AddArgs struct {
	Text string `json:"text" jsonschema:"the note" tool:"minLength=1,maxLength=2000"`
}

// Added is add_note's result.
type Added struct {
	ID int64 `json:"id"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var env Env
	if err := bind.Load(ctx, &env, nil); err != nil {
		log.Fatal(err)
	}
	defer bind.Close(&env)
	if _, err := env.DB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)`); err != nil {
		log.Fatal(err)
	}

	addNote := tool.New("add_note", "Save a note.",
		func(ctx context.Context, a AddArgs) (Added, error) {
			var out Added
			err := env.DB.QueryRowContext(ctx, `INSERT INTO notes (text) VALUES ($1) RETURNING id`, a.Text).Scan(&out.ID)
			return out, err
		})
	srv, err := mcpserver.NewTools(nil,
		addNote,
		sqltool.Query(env.DB, nil), // read-only: the model searches the notes with SQL
		sqltool.Schema(env.DB, ""),
	)
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Run(ctx, &mcpserver.StdioTransport{}); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
