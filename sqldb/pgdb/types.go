package pgdb

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/hands-go/hands/sqldb"
)

// NameTypes implements sqldb.TypeNamer: pgx names a column of a type
// outside its map (void, an enum, a type of an extension) by its OID; this
// looks the OIDs up in pg_type and gives their names, in capitals as pgx
// gives the others. It queries only when a column needs it.
func (Engine) NameTypes(ctx context.Context, db *sql.DB, cols []sqldb.Column) error {
	var oids []string
	for _, c := range cols {
		if _, err := strconv.ParseUint(c.Type, 10, 32); err == nil {
			oids = append(oids, c.Type)
		}
	}
	if len(oids) == 0 {
		return nil
	}
	rows, err := db.QueryContext(ctx, `SELECT oid::text, typname FROM pg_type WHERE oid = ANY($1::oid[])`, "{"+strings.Join(oids, ",")+"}")
	if err != nil {
		return err
	}
	defer rows.Close()
	names := map[string]string{}
	for rows.Next() {
		var oid, name string
		if err := rows.Scan(&oid, &name); err != nil {
			return err
		}
		names[oid] = strings.ToUpper(name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, c := range cols {
		if name, ok := names[c.Type]; ok {
			cols[i].Type = name
		}
	}
	return nil
}
