package runstats

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	entschema "github.com/chakshu-dev/chakshu/ent/schema"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// The cost queries: aggregates of the runs' figures over a period, read from
// the rollup (rollup.go) for whole days, weeks and months and from the runs
// for the partial days at the ends. graph/cost.go turns them into GraphQL.

// RunSet selects runs for the aggregates: created in [From, To), in the
// viewer's repositories, optionally of one repository or reviewer. It is the
// one place their WHERE clause is built.
type RunSet struct {
	From, To time.Time
	// Restricted limits to RepoIDs (non-admins).
	Restricted   bool
	RepoIDs      []int
	RepositoryID *int
	ReviewerID   *int
	// InstallationID limits to the installation's repositories (the
	// Quality page's filter).
	InstallationID *int
	// Shadow, when set, keeps only the shadow runs of backtests (true) or
	// leaves them out (false). Only the queries over the runs themselves
	// honour it (CountRuns, Where); the rollup does not tell them apart.
	Shadow *bool
}

// filter is the SQL condition (with ? placeholders) and arguments of the
// viewer's repositories and the filter, over the given columns.
func (s RunSet) filter(repoCol, revCol string) ([]string, []any) {
	var conds []string
	var args []any
	if s.Restricted {
		if len(s.RepoIDs) == 0 {
			conds = append(conds, "1 = 0")
		} else {
			conds = append(conds, repoCol+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(s.RepoIDs)), ", ")+")")
			for _, id := range s.RepoIDs {
				args = append(args, id)
			}
		}
	}
	if s.RepositoryID != nil {
		conds = append(conds, repoCol+" = ?")
		args = append(args, *s.RepositoryID)
	}
	if s.ReviewerID != nil {
		conds = append(conds, revCol+" = ?")
		args = append(args, *s.ReviewerID)
	}
	if s.InstallationID != nil {
		conds = append(conds, repoCol+" IN (SELECT "+repository.FieldID+" FROM "+repository.Table+" WHERE "+repository.InstallationColumn+" = ?)")
		args = append(args, *s.InstallationID)
	}
	return conds, args
}

// Where is the SQL condition over runs (with ? placeholders) and its arguments.
func (s RunSet) Where() (string, []any) {
	return s.whereRuns(s.From, s.To)
}

// whereRuns is where for the runs created in [from, to).
func (s RunSet) whereRuns(from, to time.Time) (string, []any) {
	// SQLite stores times as text in the writer's zone (ent writes time.Now()):
	// compare in that zone. PostgreSQL compares timestamptz whatever the zone.
	conds := []string{run.FieldCreatedAt + " >= ?", run.FieldCreatedAt + " < ?"}
	args := []any{from.In(time.Local), to.In(time.Local)}
	c, a := s.filter(run.RepositoryColumn, run.ReviewerColumn)
	if s.Shadow != nil {
		c = append(c, run.FieldShadow+" = ?")
		a = append(a, *s.Shadow)
	}
	return strings.Join(append(conds, c...), " AND "), append(args, a...)
}

// CostEntity is what cost buckets are per, besides a period.
type CostEntity string

// The entities cost buckets can be per.
const (
	CostByReviewer   CostEntity = "REVIEWER"
	CostByRepository CostEntity = "REPOSITORY"
	// CostByProvider groups by the model provider that carried each run; the
	// rollup has no provider, so it is read from the runs.
	CostByProvider CostEntity = "PROVIDER"
)

// CostGrouping is how AggregateCosts keys its buckets: by Period ("d" or
// "w": the day or week's first day, YYYY-MM-DD), by Entity (its id), by both
// ("<entity id>|<period day>"), or not at all ("").
type CostGrouping struct {
	Period string
	Entity CostEntity
}

// keyCols are the SQL columns of a bucket key over rollup rows of grain, or
// over runs when grain is "": the period first, then the entity, plain
// columns where they can be, so SQLite groups the rollup's rows in the order
// of its (grain, day, repository_id, reviewer_id) index instead of sorting.
func (db conn) costKeyCols(gr CostGrouping, grain string) []string {
	var cols []string
	switch {
	case gr.Period == "":
	case grain == "":
		cols = append(cols, db.RollupDay(gr.Period, run.FieldCreatedAt))
	case grain == gr.Period:
		cols = append(cols, "day")
	case db.Postgres(): // days of a week
		cols = append(cols, "to_char(date_trunc('week', CAST(day AS date)), 'YYYY-MM-DD')")
	default:
		cols = append(cols, db.RollupDay("w", "day"))
	}
	switch gr.Entity {
	case CostByReviewer:
		cols = append(cols, map[bool]string{true: run.ReviewerColumn, false: "reviewer_id"}[grain == ""])
	case CostByRepository:
		cols = append(cols, map[bool]string{true: run.RepositoryColumn, false: "repository_id"}[grain == ""])
	case CostByProvider: // runs only (costSpans)
		cols = append(cols, run.FieldProvider)
	}
	return cols
}

// bucketKey is the key of a bucket from its key columns' values: the
// period's day, the entity's id, or "<entity id>|<period day>".
func costBucketKey(gr CostGrouping, vals []sql.NullString) string {
	switch {
	case gr.Period != "" && gr.Entity != "":
		return vals[1].String + "|" + vals[0].String
	case len(vals) > 0:
		return vals[0].String
	}
	return ""
}

// span is part of a period: whole days, weeks or months read from the
// rollup (grain d, w, m; days as YYYY-MM-DD), or, grain "", runs created in
// [from, to) read from the runs (the partial days at the ends).
type span struct {
	grain    string
	from, to time.Time
}

// spans covers [from, to) with the fewest rollup rows the grouping allows:
// months (when buckets are not days or weeks), then weeks (unless buckets are
// days), then days, and the runs themselves for partial days. Days are
// UTC on PostgreSQL and the writer's zone on SQLite, as the rollup's.
func (db conn) costSpans(from, to time.Time, gr CostGrouping) []span {
	zone := time.UTC
	if !db.Postgres() {
		zone = time.Local
	}
	from, to = from.In(zone), to.In(zone)
	floorDay := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, zone) }
	ceilDay := func(t time.Time) time.Time {
		if d := floorDay(t); d.Equal(t) {
			return d
		}
		return floorDay(t).AddDate(0, 0, 1)
	}
	d0, d1 := ceilDay(from), floorDay(to)
	if !d0.Before(d1) || gr.Entity == CostByProvider { // the rollup has no provider: read the runs
		return []span{{"", from, to}}
	}
	var out []span
	if from.Before(d0) {
		out = append(out, span{"", from, d0})
	}
	if d1.Before(to) {
		out = append(out, span{"", d1, to})
	}
	// cover adds [a, b) (whole days) at grain g, its ends at the finer grains.
	var cover func(a, b time.Time, grains []string)
	cover = func(a, b time.Time, grains []string) {
		if !a.Before(b) {
			return
		}
		g := grains[0]
		start, end := a, b
		switch g {
		case "m":
			if start.Day() != 1 {
				start = time.Date(a.Year(), a.Month()+1, 1, 0, 0, 0, 0, zone)
			}
			end = time.Date(b.Year(), b.Month(), 1, 0, 0, 0, 0, zone)
		case "w":
			monday := func(t time.Time) time.Time { return t.AddDate(0, 0, -(int(t.Weekday())+6)%7) }
			if start = monday(a); start.Before(a) {
				start = start.AddDate(0, 0, 7)
			}
			end = monday(b)
		}
		if !start.Before(end) {
			cover(a, b, grains[1:])
			return
		}
		out = append(out, span{g, start, end})
		cover(a, start, grains[1:])
		cover(end, b, grains[1:])
	}
	switch gr.Period {
	case "d":
		cover(d0, d1, []string{"d"})
	case "w":
		cover(d0, d1, []string{"w", "d"})
	default:
		cover(d0, d1, []string{"m", "w", "d"})
	}
	return out
}

// CostFigures are the figures of one bucket: sums, severity counts
// (blocker, major, minor, nit) and the duration histogram the percentiles
// come from.
type CostFigures struct {
	Runs, SucceededRuns, FailedRuns                              int
	CostUSD                                                      float64
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
	Severity                                                     [4]int
	Hist                                                         [entschema.CostRollupBuckets]int64
}

// Add merges o into a.
func (a *CostFigures) Add(o *CostFigures) {
	a.Runs += o.Runs
	a.CostUSD += o.CostUSD
	a.SucceededRuns += o.SucceededRuns
	a.FailedRuns += o.FailedRuns
	a.InputTokens += o.InputTokens
	a.OutputTokens += o.OutputTokens
	a.CacheReadTokens += o.CacheReadTokens
	a.CacheWriteTokens += o.CacheWriteTokens
	for i := range o.Severity {
		a.Severity[i] += o.Severity[i]
	}
	for i := range o.Hist {
		a.Hist[i] += o.Hist[i]
	}
}

// Percentile is the nearest-rank p-th percentile of the duration histogram
// (nil when empty): the upper bound of the bucket holding the rank, at most
// 19% above the exact value (store.DurationBound).
func (a *CostFigures) Percentile(p int64) *int64 {
	hist := a.Hist[:]
	var n int64
	for _, c := range hist {
		n += c
	}
	if n == 0 {
		return nil
	}
	rank := (n*p + 99) / 100
	var seen int64
	for i, c := range hist {
		if seen += c; seen >= rank {
			v := store.DurationBound(i)
			return &v
		}
	}
	return nil
}

// AggregateCosts computes the figures of each bucket (keyed as gr says) and of
// the whole set. Whole days, weeks and months come from the rollup
// (rollup.go: a few thousand rows for a year); only the partial days at
// the ends are read from the runs. Figures are exact; duration percentiles come
// from the rollup's histogram (see percentile).
func AggregateCosts(ctx context.Context, sdb *store.DB, s RunSet, gr CostGrouping) (total *CostFigures, buckets map[string]*CostFigures, err error) {
	db := conn{sdb}
	total = &CostFigures{}
	buckets = map[string]*CostFigures{}
	// The coarsest rollup rows that still tell apart what the grouping and
	// the filter need: per repository, per reviewer, both or neither.
	level := store.RollupLevel(s.Restricted || s.RepositoryID != nil || s.InstallationID != nil || gr.Entity == CostByRepository,
		s.ReviewerID != nil || gr.Entity == CostByReviewer)
	for _, sp := range db.costSpans(s.From, s.To, gr) {
		var sums []string
		var where string
		var args []any
		if sp.grain == "" {
			sums = store.RunContribution("")
			where, args = s.whereRuns(sp.from, sp.to)
			where = "FROM " + run.Table + " WHERE " + where
		} else {
			sums = append([]string(nil), store.RollupSums...)
			conds, a := s.filter("repository_id", "reviewer_id")
			where = "FROM cost_rollups WHERE " + strings.Join(append([]string{"grain = ?", "day >= ?", "day < ?"}, conds...), " AND ")
			args = append([]any{sp.grain + level, sp.from.Format(time.DateOnly), sp.to.Format(time.DateOnly)}, a...)
		}
		k := db.costKeyCols(gr, sp.grain)
		// Rollup rows of the bucket's period and of exactly its entity are
		// one a bucket: read as they are, not summed (a year by week per
		// repository: 5,200 rows, ~60 sums each). scanCosts adds up rows
		// of one key anyway.
		perRow := sp.grain != "" && sp.grain == gr.Period &&
			level == store.RollupLevel(gr.Entity == CostByRepository, gr.Entity == CostByReviewer)
		q := "SELECT " + strings.Join(append(append([]string(nil), k...), db.costFigureCols(sums, !perRow)...), ", ") + " " + where
		if len(k) > 0 && !perRow {
			q += " GROUP BY " + strings.Join(k, ", ")
		}
		if err := db.scanCosts(ctx, q, args, gr, len(k), total, buckets); err != nil {
			return nil, nil, err
		}
	}
	return total, buckets, nil
}

// costSum is the index of cost_usd in store.RollupSums: the one figure that
// is not an integer.
const costSum = 4

// figureCols are the two columns of the figures from sums (SQL over rollup
// rows or runs, in the order of store.RollupSums), summed when sum: the cost,
// and the integers as one text (a JSON array on SQLite, comma-separated on
// PostgreSQL; NULL, or nulls, over no rows). Sixty columns a row cost more to
// fetch and scan than the query's own work (~25 µs a row on SQLite, pgx's
// decoding on PostgreSQL); one text parses in ~1 µs, and SQLite's json_array
// builds it at a third of the cost of concatenating.
func (db conn) costFigureCols(sums []string, sum bool) []string {
	ints := make([]string, 0, len(sums))
	for i, c := range sums {
		if sum {
			c = "SUM(" + c + ")"
		}
		if i == costSum {
			continue
		}
		if db.Postgres() {
			c = "CAST(" + c + " AS TEXT)"
		}
		ints = append(ints, c)
	}
	cost := sums[costSum]
	if sum {
		cost = "COALESCE(SUM(" + cost + "), 0)"
	}
	cost = "CAST(" + cost + " AS DOUBLE PRECISION)"
	if db.Postgres() {
		return []string{cost, strings.Join(ints, " || ',' || ")}
	}
	return []string{cost, "json_array(" + strings.Join(ints, ", ") + ")"}
}

// parseFigures fills v (one per store.RollupSums) from the columns of
// figureCols (a null counts 0); false when the text is not that of len(v)-1
// numbers.
func parseFigures(cost float64, ints string, v []float64) bool {
	ints = strings.TrimSuffix(strings.TrimPrefix(ints, "["), "]")
	for i := range v {
		if i == costSum {
			v[i] = cost
			continue
		}
		var f string
		f, ints, _ = strings.Cut(ints, ",")
		if f == "null" {
			v[i] = 0
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return false
		}
		v[i] = x
	}
	return ints == ""
}

// scanCosts adds the rows of q (nkey key columns, then costFigureCols) to total
// and buckets.
func (db conn) scanCosts(ctx context.Context, q string, args []any, gr CostGrouping, nkey int, total *CostFigures, buckets map[string]*CostFigures) error {
	rows, err := db.SQL.QueryContext(ctx, db.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("cost figures: %w", err)
	}
	defer rows.Close()
	v := make([]float64, len(store.RollupSums))
	keys := make([]sql.NullString, nkey)
	var cost float64
	var ints sql.NullString
	var dst []any
	for i := range keys {
		dst = append(dst, &keys[i])
	}
	dst = append(dst, &cost, &ints)
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("cost figures: scan: %w", err)
		}
		if !ints.Valid {
			continue // no rows
		}
		if !parseFigures(cost, ints.String, v) {
			return fmt.Errorf("cost figures: scan: not %d sums: %q", len(v)-1, ints.String)
		}
		if v[0] == 0 {
			continue // no runs (left by runs deleted or an empty period)
		}
		var r CostFigures
		n := func(i int) int { return int(math.Round(v[i])) }
		r.Runs, r.SucceededRuns, r.FailedRuns = n(0), n(1), n(2)
		r.CostUSD = v[4]
		r.InputTokens, r.OutputTokens = int64(n(5)), int64(n(6))
		r.CacheReadTokens, r.CacheWriteTokens = int64(n(7)), int64(n(8))
		r.Severity = [4]int{n(9), n(10), n(11), n(12)}
		for i := range r.Hist {
			r.Hist[i] = int64(n(13 + i))
		}
		key := costBucketKey(gr, keys)
		b := buckets[key]
		if b == nil {
			b = &CostFigures{}
			buckets[key] = b
		}
		b.Add(&r)
		total.Add(&r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cost figures: %w", err)
	}
	return nil
}

// PullRequestCost is one pull request's figures over a RunSet.
type PullRequestCost struct {
	RepositoryID, PrNumber int
	PrTitle, PrURL         string
	CostUSD                float64
	Runs, Findings         int
}

// ExpensivePullRequests are the limit pull requests of s that cost most,
// highest first (then by repository and number).
func ExpensivePullRequests(ctx context.Context, sdb *store.DB, s RunSet, limit int) ([]PullRequestCost, error) {
	db := conn{sdb}
	where, args := s.Where()
	q := `SELECT ` + run.RepositoryColumn + `, pr_number, MAX(pr_title), MAX(pr_url),
	CAST(SUM(cost_usd) AS DOUBLE PRECISION) AS c, COUNT(*),
	CAST(SUM(findings_blocker + findings_major + findings_minor + findings_nit) AS BIGINT)
FROM ` + run.Table + ` WHERE ` + where + `
GROUP BY ` + run.RepositoryColumn + `, pr_number
ORDER BY c DESC, ` + run.RepositoryColumn + `, pr_number LIMIT ?`
	rows, err := db.SQL.QueryContext(ctx, db.Rebind(q), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("expensive pull requests: %w", err)
	}
	defer rows.Close()
	var out []PullRequestCost
	for rows.Next() {
		var p PullRequestCost
		if err := rows.Scan(&p.RepositoryID, &p.PrNumber, &p.PrTitle, &p.PrURL, &p.CostUSD, &p.Runs, &p.Findings); err != nil {
			return nil, fmt.Errorf("expensive pull requests: scan: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("expensive pull requests: %w", err)
	}
	return out, nil
}

// RunCounts are the counts and sums of a RunSet's runs.
type RunCounts struct {
	Runs, Succeeded, Failed, Cancelled int
	Findings                           int
	CostUSD                            float64
}

// CountRuns counts s's runs by outcome and sums their findings and cost.
func CountRuns(ctx context.Context, sdb *store.DB, s RunSet) (RunCounts, error) {
	db := conn{sdb}
	q, args := db.countRuns(s)
	var st RunCounts
	err := db.SQL.QueryRowContext(ctx, q, args...).Scan(&st.Runs, &st.Succeeded, &st.Failed, &st.Cancelled, &st.Findings, &st.CostUSD)
	if err != nil {
		return st, fmt.Errorf("count runs: %w", err)
	}
	return st, nil
}

// countRuns is CountRuns's statement (rebound) and its arguments.
func (db conn) countRuns(s RunSet) (string, []any) {
	where, args := s.Where()
	q := `SELECT COUNT(*),
	COALESCE(SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END), 0),
	CAST(COALESCE(SUM(findings_blocker + findings_major + findings_minor + findings_nit), 0) AS BIGINT),
	CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION)
FROM ` + run.Table + ` WHERE ` + where
	return db.Rebind(q), args
}
