package metrics

import (
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
		conn := storetest.PlanConn(t, db)
		scan := regexp.MustCompile(`^SCAN (runs|r|webhook_events|cost_rollups|c|findings|f)( |$)`)
		if db.Postgres() {
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
			plan := storetest.Plan(t, db, conn, q, args...)
			if len(plan) == 0 {
				t.Errorf("no plan for %s", q)
			}
			for i, d := range plan {
				// SQLite: a SCAN, even of an index, reads it whole; a SEARCH a range.
				// PostgreSQL: a Seq Scan reads the table whole, and so does any
				// index scan that no Index Cond (the next line) bounds.
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
