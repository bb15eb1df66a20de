package sqlitedb

import (
	"context"
	"database/sql"

	"github.com/hands-go/hands/sqldb"
)

// Schema implements sqldb.Engine: the tables and views of the main
// database, without SQLite's own.
func (Engine) Schema(ctx context.Context, db *sql.DB) ([]sqldb.Table, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var tables []sqldb.Table
	for rows.Next() {
		var t sqldb.Table
		var typ string
		if err := rows.Scan(&t.Name, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		t.View = typ == "view"
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range tables {
		t := &tables[i]
		t.Columns = []sqldb.TableColumn{}
		cols, err := db.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, t.Name)
		if err != nil {
			return nil, err
		}
		for cols.Next() {
			var c sqldb.TableColumn
			if err := cols.Scan(&c.Name, &c.Type, &c.NotNull, &c.PrimaryKey); err != nil {
				cols.Close()
				return nil, err
			}
			t.Columns = append(t.Columns, c)
		}
		cols.Close()
		if err := cols.Err(); err != nil {
			return nil, err
		}
		fks, err := db.QueryContext(ctx, `SELECT id, "table", "from", coalesce("to", '') FROM pragma_foreign_key_list(?) ORDER BY id, seq`, t.Name)
		if err != nil {
			return nil, err
		}
		last := -1
		for fks.Next() {
			var id int
			var ref, from, to string
			if err := fks.Scan(&id, &ref, &from, &to); err != nil {
				fks.Close()
				return nil, err
			}
			if id != last {
				t.ForeignKeys = append(t.ForeignKeys, sqldb.ForeignKey{RefTable: ref})
				last = id
			}
			fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
			fk.Columns = append(fk.Columns, from)
			fk.RefColumns = append(fk.RefColumns, to)
		}
		fks.Close()
		if err := fks.Err(); err != nil {
			return nil, err
		}
	}
	return tables, nil
}
