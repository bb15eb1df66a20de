package sqlitekv_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hands-go/hands/kv/sqlitekv"
)

// BenchmarkList lists a page of 100 keys at the start, the middle and the
// end of stores of 10⁴, 10⁵ and 10⁶ keys, through the driver: a page's cost
// does not depend on where the cursor is, nor, but for the index's depth,
// on the store's size.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1e4, 1e5, 1e6} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			s, err := sqlitekv.Open(b.Context(), filepath.Join(b.TempDir(), "kv.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var db *sql.DB
			s.As(&db)
			tx, err := db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			ins, err := tx.Prepare(`INSERT INTO kv(key, value) VALUES (?, x'00')`)
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if _, err := ins.Exec(fmt.Sprintf("user/%07d", i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			for _, at := range []struct {
				name  string
				after string
			}{{"start", ""}, {"middle", fmt.Sprintf("user/%07d", n/2)}, {"end", fmt.Sprintf("user/%07d", n-101)}} {
				b.Run("at="+at.name, func(b *testing.B) {
					b.ReportAllocs()
					now := time.Now()
					for b.Loop() {
						keys, _, err := s.List(b.Context(), "user/", at.after, 100, now)
						if err != nil || len(keys) != 100 {
							b.Fatal(len(keys), err)
						}
					}
				})
			}
		})
	}
}
