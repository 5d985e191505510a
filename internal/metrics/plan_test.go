package metrics

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A scrape reads no table whole: each scrape query's plan searches an index
// (the rollup's grain, the runs' and webhook events' status) rather than
// scanning runs, webhook_events or cost_rollups. PostgreSQL is asked with
// sequential scans disabled, so it shows a sequential scan only where no
// index can serve the query (a tiny table would otherwise be scanned anyway).
func TestScrapeReadsNoWholeTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		conn, err := db.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		scan := regexp.MustCompile(`^SCAN (runs|r|webhook_events|cost_rollups|c|findings|f)( |$)`)
		if db.Postgres() {
			if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			explain = "EXPLAIN "
			scan = regexp.MustCompile(`^Seq Scan on (runs|webhook_events|cost_rollups|findings)\b`)
		}
		queries := map[string][]any{}
		for _, q := range ScrapeQueries {
			queries[q] = nil
		}
		for q, args := range ScrapeQueriesWithArgs {
			queries[db.Rebind(q)] = args
		}
		for q, args := range queries {
			rows, err := conn.QueryContext(ctx, explain+q, args...)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			var plan []string
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, strings.TrimSpace(toString(vals[len(vals)-1])))
			}
			rows.Close()
			if len(plan) == 0 {
				t.Errorf("no plan for %s", q)
			}
			for i, d := range plan {
				// SQLite: a SCAN, even of an index, reads it whole; a SEARCH a range.
				// PostgreSQL: a Seq Scan reads the table whole, and so does any
				// index scan that no Index Cond (the next line) bounds.
				d = strings.TrimLeft(d, "-> ")
				bad := scan.MatchString(d)
				if db.Postgres() && indexScan.MatchString(d) && (i+1 >= len(plan) || !strings.HasPrefix(plan[i+1], "Index Cond")) {
					bad = true
				}
				if bad {
					t.Errorf("a scrape reads a whole table: %s\nquery: %s\nplan: %q", d, q, plan)
				}
			}
		}
	})
}

var indexScan = regexp.MustCompile(`^(Index Scan|Index Only Scan|Bitmap Index Scan) `)

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}
