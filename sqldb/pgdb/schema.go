package pgdb

import (
	"context"
	"database/sql"

	"github.com/hands-go/hands/sqldb"
)

// Schema implements sqldb.Engine: the tables and views the role can see,
// outside pg_catalog and information_schema, with their columns, primary
// keys and foreign keys.
func (Engine) Schema(ctx context.Context, db *sql.DB) ([]sqldb.Table, error) {
	rows, err := db.QueryContext(ctx, `
SELECT c.table_schema, c.table_name, t.table_type = 'VIEW', c.column_name, c.data_type, c.is_nullable = 'NO',
       coalesce((SELECT k.ordinal_position FROM information_schema.table_constraints tc
                 JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
                 WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = c.table_schema
                   AND tc.table_name = c.table_name AND k.column_name = c.column_name LIMIT 1), 0)
FROM information_schema.columns c
JOIN information_schema.tables t USING (table_schema, table_name)
WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')
ORDER BY c.table_schema, c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tables []sqldb.Table
	for rows.Next() {
		var schema, name string
		var view bool
		var c sqldb.TableColumn
		if err := rows.Scan(&schema, &name, &view, &c.Name, &c.Type, &c.NotNull, &c.PrimaryKey); err != nil {
			return nil, err
		}
		if n := len(tables); n == 0 || tables[n-1].Schema != schema || tables[n-1].Name != name {
			tables = append(tables, sqldb.Table{Schema: schema, Name: name, View: view, Columns: []sqldb.TableColumn{}})
		}
		t := &tables[len(tables)-1]
		t.Columns = append(t.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	fks, err := db.QueryContext(ctx, `
SELECT con.conname, ns.nspname, rel.relname, a.attname, frel.relname, fa.attname
FROM pg_constraint con
JOIN pg_class rel ON rel.oid = con.conrelid
JOIN pg_namespace ns ON ns.oid = rel.relnamespace
JOIN pg_class frel ON frel.oid = con.confrelid
CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(attnum, fattnum, ord)
JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
JOIN pg_attribute fa ON fa.attrelid = con.confrelid AND fa.attnum = k.fattnum
WHERE con.contype = 'f' AND ns.nspname NOT IN ('pg_catalog', 'information_schema')
ORDER BY ns.nspname, rel.relname, con.conname, k.ord`)
	if err != nil {
		return nil, err
	}
	defer fks.Close()
	index := map[[2]string]int{}
	for i, t := range tables {
		index[[2]string{t.Schema, t.Name}] = i
	}
	lastName := ""
	for fks.Next() {
		var conname, schema, table, col, ref, refCol string
		if err := fks.Scan(&conname, &schema, &table, &col, &ref, &refCol); err != nil {
			return nil, err
		}
		i, ok := index[[2]string{schema, table}]
		if !ok {
			continue
		}
		t := &tables[i]
		key := schema + "." + table + "." + conname
		if key != lastName {
			t.ForeignKeys = append(t.ForeignKeys, sqldb.ForeignKey{RefTable: ref})
			lastName = key
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, refCol)
	}
	return tables, fks.Err()
}
