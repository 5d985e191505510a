package metrics

import (
	"fmt"
	"strings"
	"time"

	entschema "github.com/chakshu-dev/chakshu/ent/schema"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
)

// The scrape's SQL. Each reads a bounded set of rows: the rollup's
// per-reviewer monthly rows (grain "mv"), the runs in progress and the
// webhook deliveries not done, each through an index on status.

var totalsQuery = func() string {
	cols := []string{"SUM(c.succeeded)", "SUM(c.failed)", "SUM(c.cancelled)", "SUM(c.cost_usd)"}
	for i := 0; i < entschema.CostRollupBuckets; i++ {
		cols = append(cols, fmt.Sprintf("SUM(c.h%02d)", i))
	}
	return `SELECT COALESCE(v.name, ''), ` + strings.Join(cols, ", ") + `
		FROM cost_rollups c LEFT JOIN reviewers v ON v.id = c.reviewer_id
		WHERE c.grain = 'mv' GROUP BY v.name`
}()

const activeQuery = `SELECT r.status, COALESCE(v.name, ''), COUNT(*)
	FROM runs r LEFT JOIN reviewers v ON v.id = r.reviewer_runs
	WHERE r.status IN ('queued', 'dispatched', 'running', 'publishing') GROUP BY r.status, v.name`

var webhookStatuses = []webhookevent.Status{webhookevent.StatusPending, webhookevent.StatusProcessing, webhookevent.StatusFailed}

const webhookQuery = `SELECT status, COUNT(*) FROM webhook_events
	WHERE status IN ('pending', 'processing', 'failed') GROUP BY status`

// OutcomesWindow is how far back chakshu_findings_outcomes counts decisions.
const OutcomesWindow = 30 * 24 * time.Hour

// outcomesQuery counts the posted findings decided since its one argument
// (a time), by reviewer and outcome, shadow runs excluded: it reads the
// findings through their outcome_at index (the decisions of the window, not
// every finding) and each one's run and reviewer by primary key.
const outcomesQuery = `SELECT COALESCE(v.name, ''), f.outcome, COUNT(*)
	FROM findings f JOIN runs r ON r.id = f.run_findings LEFT JOIN reviewers v ON v.id = r.reviewer_runs
	WHERE f.outcome_at >= ? AND f.posted = ? AND r.shadow = ? GROUP BY v.name, f.outcome`

// ScrapeQueries are the statements a scrape runs besides ent's indexed
// queue look-ups, for the query-plan test.
var ScrapeQueries = []string{totalsQuery, activeQuery, webhookQuery}

// ScrapeQueriesWithArgs are the scrape's statements that take arguments,
// with example arguments, for the query-plan test.
var ScrapeQueriesWithArgs = map[string][]any{outcomesQuery: {time.Now().Add(-OutcomesWindow), true, false}}
