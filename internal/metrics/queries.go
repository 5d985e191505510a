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

// outcomesQuery counts the posted findings decided since its first argument
// (a time), by reviewer and outcome, shadow runs excluded: it reads the
// findings through their outcome_at index (the decisions of the window, not
// every finding) and looks up each one's run, and each group's reviewer, by
// primary key (reviewers of one name in two installations are added up by
// the collector). The run is a
// correlated lookup rather than a join so that no planner, on an empty or
// small database, prefers to read the runs whole and hash them.
const outcomesQuery = `SELECT COALESCE((SELECT v.name FROM reviewers v WHERE v.id = x.rev), ''), x.outcome, COUNT(*) FROM (
		SELECT f.outcome, (SELECT r.reviewer_runs FROM runs r WHERE r.id = f.run_findings AND r.shadow = ?) AS rev
		FROM findings f WHERE f.outcome_at >= ? AND f.posted = ?) x
	WHERE x.rev IS NOT NULL GROUP BY x.rev, x.outcome`

// ScrapeQueries are the statements a scrape runs besides ent's indexed
// queue look-ups, for the query-plan test.
var ScrapeQueries = []string{totalsQuery, activeQuery, webhookQuery}

// ScrapeQueriesWithArgs are the scrape's statements that take arguments,
// with example arguments, for the query-plan test.
var ScrapeQueriesWithArgs = map[string][]any{outcomesQuery: {false, time.Now().Add(-OutcomesWindow), true}}
