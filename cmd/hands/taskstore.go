package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/hands-go/hands/sqldb"
	"github.com/hands-go/hands/sqldb/pgdb"
	"github.com/hands-go/hands/taskstore"
	"github.com/hands-go/hands/taskstore/redistasks"
	"github.com/hands-go/hands/taskstore/sqltasks"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// openTaskStore opens the store of serve's tasks that rawURL names:
// mem:// (or "") for the process's memory, redis:// or rediss:// for
// Redis, postgres:// or sqlite:// for a SQL database, whose tables it
// creates. It returns nil for memory, the server's default, and a
// function that closes what it opened.
func openTaskStore(ctx context.Context, rawURL string) (taskstore.Store, func(), error) {
	nothing := func() {}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nothing, fmt.Errorf("--task-store: not a URL (%v); write mem://, redis://:PASSWORD@HOST:PORT/DB, postgres://USER:PASSWORD@HOST/DB or sqlite:///FILE", strings.ReplaceAll(err.Error(), rawURL, "…"))
	}
	switch u.Scheme {
	case "", "mem":
		return nil, nothing, nil
	case "redis", "rediss":
		opts, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, nothing, fmt.Errorf("--task-store %s: %w", u.Redacted(), err)
		}
		rdb := redis.NewClient(opts)
		if err := rdb.Ping(ctx).Err(); err != nil {
			rdb.Close()
			return nil, nothing, fmt.Errorf("--task-store %s: %w", u.Redacted(), err)
		}
		return redistasks.New(rdb, nil), func() { rdb.Close() }, nil
	case "postgres", "postgresql", "sqlite":
		var db *sql.DB
		if u.Scheme == "sqlite" {
			db, err = sqldb.Open(ctx, rawURL)
		} else {
			// The store runs its own statements, never a model's: the
			// role may own its tables, and a privileged one is not refused.
			var cfg *pgx.ConnConfig
			if cfg, err = pgx.ParseConfig(rawURL); err == nil {
				db, err = pgdb.OpenConfig(ctx, cfg, &pgdb.Options{AllowSuperuser: true})
			}
		}
		if err != nil {
			return nil, nothing, fmt.Errorf("--task-store %s: %w", u.Redacted(), err)
		}
		s, err := sqltasks.New(ctx, db, nil)
		if err != nil {
			db.Close()
			return nil, nothing, fmt.Errorf("--task-store %s: %w", u.Redacted(), err)
		}
		return s, func() { db.Close() }, nil
	}
	return nil, nothing, fmt.Errorf("--task-store %s: the scheme %s: is not a task store; write mem://, redis://, rediss://, postgres:// or sqlite://", u.Redacted(), u.Scheme)
}
