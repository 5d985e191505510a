package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	entschema "github.com/chakshu-dev/chakshu/ent/schema"
)

// The cost rollup (table cost_rollups, ent/schema/costrollup.go) holds, per
// UTC day, week (from Monday) and month, repository and reviewer, the figures
// of the runs created then: counts by outcome, cost, tokens, findings by
// severity and a histogram of durations. The cost aggregates read it instead
// of scanning the runs.
//
// Triggers on runs maintain it in the transaction of every write: an insert
// adds the run's contribution, a delete removes it, and an update that changes
// a figure or the status removes the old contribution and adds the new one. So
// it equals an aggregation of the runs whoever writes them (state transitions,
// the gateway's metering, a retried or re-finished run, bulk seeds), and a
// repeated update adds nothing twice. Migrate installs the triggers and, when
// they are new, rebuilds the rollup from the runs in the same transaction.

// Each period is kept at four levels, told apart by a suffix of the grain:
// per repository and reviewer (grain "d", "w", "m"), per repository over all
// reviewers ("dr", …; reviewer_id 0), per reviewer over all repositories
// ("dv", …; repository_id 0) and over everything ("dt", …; both 0). A query
// reads the coarsest level its grouping and filter allow: a year by week per
// repository reads ~5,000 rows instead of one per repository and reviewer
// (~50,000 with ten reviewers), a year by week 52. Each write of a run
// upserts one row per grain and level, in one statement.

// RollupVersion numbers the triggers (runs_rollup_v<N>_…); bump it when
// their SQL changes (4: the cells in lock order, coarsest first). Migrate replaces installed triggers only when they are
// older than this, never newer ones (migrate.go), and then rebuilds the rollup.
const RollupVersion = 4

// RollupGrains are the periods the rollup keeps: day, week, month.
var RollupGrains = []string{"d", "w", "m"}

// rollupLevel is a level of the rollup: the grain suffix of its rows and
// whether they are per repository and per reviewer.
type rollupLevel struct {
	suffix             string
	byRepo, byReviewer bool
}

var rollupLevels = []rollupLevel{{"", true, true}, {"r", true, false}, {"v", false, true}, {"t", false, false}}

// RollupLevel is the grain suffix of the coarsest rows that are still per
// repository when byRepo and per reviewer when byReviewer.
func RollupLevel(byRepo, byReviewer bool) string {
	for _, l := range rollupLevels {
		if l.byRepo == byRepo && l.byReviewer == byReviewer {
			return l.suffix
		}
	}
	return ""
}

// cols are the repository and reviewer values of a row of level l from the
// run columns prefixed by p: the run's, or 0 for a dimension summed over.
func (l rollupLevel) cols(p string) (repo, rev string) {
	repo, rev = "0", "0"
	if l.byRepo {
		repo = p + "repository_runs"
	}
	if l.byReviewer {
		rev = p + "reviewer_runs"
	}
	return repo, rev
}

// DurationBound is the upper bound (inclusive, ms) of histogram bucket i:
// 1 s × 2^(i/4), quarter octaves from 1 s to ~57 min. A duration above the
// next-to-last bound counts in the last bucket. A percentile read from the
// histogram is the bound of the bucket holding its rank: at most 19% above the
// exact value (runs under 1 s report 1 s; over ~48 min, ~57 min).
func DurationBound(i int) int64 {
	return int64(math.Round(1000 * math.Pow(2, float64(i)/4)))
}

// DurationBucket is the histogram bucket of a duration in ms.
func DurationBucket(ms int64) int {
	for i := 0; i < entschema.CostRollupBuckets-1; i++ {
		if ms <= DurationBound(i) {
			return i
		}
	}
	return entschema.CostRollupBuckets - 1
}

// RollupSums are the summed columns of cost_rollups, in order.
var RollupSums = func() []string {
	cols := []string{"runs", "succeeded", "failed", "cancelled", "cost_usd", "input_tokens", "output_tokens",
		"cache_read_tokens", "cache_write_tokens", "findings_blocker", "findings_major", "findings_minor", "findings_nit"}
	for i := 0; i < entschema.CostRollupBuckets; i++ {
		cols = append(cols, fmt.Sprintf("h%02d", i))
	}
	return cols
}()

// RunContribution is, for each of RollupSums, the SQL of one run's
// contribution, the run's columns prefixed by p ("NEW.", "OLD.", "" or "runs.").
func RunContribution(p string) []string {
	ind := func(cond string) string { return "CASE WHEN " + cond + " THEN 1 ELSE 0 END" }
	out := []string{"1",
		ind(p + "status = 'succeeded'"), ind(p + "status = 'failed'"), ind(p + "status = 'cancelled'"),
		p + "cost_usd", p + "input_tokens", p + "output_tokens", p + "cache_read_tokens", p + "cache_write_tokens",
		p + "findings_blocker", p + "findings_major", p + "findings_minor", p + "findings_nit"}
	// Durations of finished runs only: succeeded or failed, with a duration.
	timed := p + "status IN ('succeeded', 'failed') AND " + p + "duration_ms > 0"
	for i := 0; i < entschema.CostRollupBuckets; i++ {
		c := timed
		if i > 0 {
			c += fmt.Sprintf(" AND %sduration_ms > %d", p, DurationBound(i-1))
		}
		if i < entschema.CostRollupBuckets-1 {
			c += fmt.Sprintf(" AND %sduration_ms <= %d", p, DurationBound(i))
		}
		out = append(out, ind(c))
	}
	return out
}

// RollupDay is the SQL of the first day (YYYY-MM-DD) of the period of grain g
// holding the time expression ts (a runs.created_at). SQLite stores times as
// text in the writer's zone: its days are that zone's, as the raw aggregates'.
func (db *DB) RollupDay(g, ts string) string {
	if db.Postgres() {
		utc := ts + " AT TIME ZONE 'UTC'"
		switch g {
		case "w":
			return "to_char(date_trunc('week', " + utc + "), 'YYYY-MM-DD')"
		case "m":
			return "to_char(date_trunc('month', " + utc + "), 'YYYY-MM-DD')"
		}
		return "to_char(" + utc + ", 'YYYY-MM-DD')"
	}
	switch g {
	case "w":
		return "date(substr(" + ts + ", 1, 10), 'weekday 0', '-6 days')"
	case "m":
		return "substr(" + ts + ", 1, 7) || '-01'"
	}
	return "substr(" + ts + ", 1, 10)"
}

// rollupUpsert adds (sign "+") or removes ("-") the contribution of the run
// row p ("NEW." or "OLD.") to its cells of every grain and level, in one
// statement over a constant list of the cells. One statement rather than one
// per cell keeps the triggers small: SQLite parses them into every
// connection's schema, and twelve copies of the contribution made ~0.5 MB of
// SQL, ~9 MB of memory per connection.
func (db *DB) rollupUpsert(p, sign string) string {
	contrib := RunContribution(p)
	vals := make([]string, len(contrib))
	set := make([]string, len(contrib))
	for i, c := range contrib {
		vals[i] = sign + "(" + c + ")"
		set[i] = RollupSums[i] + " = cost_rollups." + RollupSums[i] + " + excluded." + RollupSums[i]
	}
	// The cells in one order for every run, the cells most runs share first:
	// over everything (month, week, day), then per reviewer, per repository,
	// per both. A writer of a run takes the month's total cell before any
	// other, so two transactions each writing several runs (queueing two
	// reviewers, a metering update beside them) queue on that one row
	// instead of each holding a cell the other waits for: with the order
	// grain-first, PostgreSQL found such deadlocks under load (40P01). Any
	// left (runs of two months in one transaction) are retried (retry.go).
	var cells []string
	for li := len(rollupLevels) - 1; li >= 0; li-- {
		l := rollupLevels[li]
		for gi := len(RollupGrains) - 1; gi >= 0; gi-- {
			g := RollupGrains[gi]
			r, v := 0, 0
			if l.byRepo {
				r = 1
			}
			if l.byReviewer {
				v = 1
			}
			cells = append(cells, fmt.Sprintf("SELECT '%s' AS g, '%s' AS grain, %d AS r, %d AS v", g, g+l.suffix, r, v))
		}
	}
	day := "CASE cell.g WHEN 'd' THEN " + db.RollupDay("d", p+"created_at") + " WHEN 'w' THEN " + db.RollupDay("w", p+"created_at") +
		" ELSE " + db.RollupDay("m", p+"created_at") + " END"
	repo := "CASE WHEN cell.r = 1 THEN " + p + "repository_runs ELSE 0 END"
	rev := "CASE WHEN cell.v = 1 THEN " + p + "reviewer_runs ELSE 0 END"
	// WHERE true: SQLite's parser needs it between a SELECT and ON CONFLICT.
	return "INSERT INTO cost_rollups (grain, day, repository_id, reviewer_id, " + strings.Join(RollupSums, ", ") + ")\n" +
		"SELECT cell.grain, " + day + ", " + repo + ", " + rev + ", " + strings.Join(vals, ", ") + "\n" +
		"FROM (" + strings.Join(cells, " UNION ALL ") + ") AS cell WHERE true\n" +
		"ON CONFLICT (grain, day, repository_id, reviewer_id) DO UPDATE SET " + strings.Join(set, ", ")
}

// rollupChanged is the trigger condition of an update: a column the rollup
// reads changed. (created_at, repository and reviewer do not change.)
func (db *DB) rollupChanged() string {
	op := " IS NOT "
	if db.Postgres() {
		op = " IS DISTINCT FROM "
	}
	var conds []string
	for _, c := range []string{"status", "duration_ms", "cost_usd", "input_tokens", "output_tokens", "cache_read_tokens",
		"cache_write_tokens", "findings_blocker", "findings_major", "findings_minor", "findings_nit",
		"created_at", "repository_runs", "reviewer_runs"} {
		conds = append(conds, "OLD."+c+op+"NEW."+c)
	}
	return strings.Join(conds, " OR ")
}

// rollupDDL is the SQL that installs the triggers of version v.
func (db *DB) rollupDDL(v int) []string {
	name := rollupTriggerPrefix(v)
	upserts := func(p, sign string) string { return db.rollupUpsert(p, sign) + ";" }
	if db.Postgres() {
		return []string{
			"CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $fn$\nBEGIN\n" +
				"IF TG_OP <> 'INSERT' THEN\n" + upserts("OLD.", "-") + "\nEND IF;\n" +
				"IF TG_OP <> 'DELETE' THEN\n" + upserts("NEW.", "+") + "\nEND IF;\n" +
				"RETURN NULL;\nEND\n$fn$",
			"CREATE TRIGGER " + name + "_insert_delete AFTER INSERT OR DELETE ON runs FOR EACH ROW EXECUTE FUNCTION " + name + "()",
			"CREATE TRIGGER " + name + "_update AFTER UPDATE ON runs FOR EACH ROW WHEN (" + db.rollupChanged() + ") EXECUTE FUNCTION " + name + "()",
		}
	}
	return []string{
		"CREATE TRIGGER " + name + "_insert AFTER INSERT ON runs BEGIN\n" + upserts("NEW.", "+") + "\nEND",
		"CREATE TRIGGER " + name + "_delete AFTER DELETE ON runs BEGIN\n" + upserts("OLD.", "-") + "\nEND",
		"CREATE TRIGGER " + name + "_update AFTER UPDATE ON runs WHEN " + db.rollupChanged() + " BEGIN\n" +
			upserts("OLD.", "-") + "\n" + upserts("NEW.", "+") + "\nEND",
	}
}

// rebuildRollup recomputes every cell from the runs.
func (db *DB) rebuildRollup(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM cost_rollups"); err != nil {
		return fmt.Errorf("cost rollup: clear: %w", err)
	}
	// Every run, added to the emptied table (AddRunsTo, as pruning adds
	// the runs it deletes to the ledger).
	if err := db.AddRunsTo(ctx, tx, "cost_rollups", "true"); err != nil {
		return err
	}
	// Runs pruned by retention are gone from runs but not from the costs.
	return db.addPrunedToRollup(ctx, tx)
}

// RebuildRollup recomputes the rollup from the runs (tests, repair).
func (db *DB) RebuildRollup(ctx context.Context) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("cost rollup: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	if err := db.rebuildRollup(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}
