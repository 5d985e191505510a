package graph

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	entschema "github.com/chakshu-dev/chakshu/ent/schema"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// maxCostRange caps the period of a cost query.
const maxCostRange = 2 * 366 * 24 * time.Hour

// runSet selects runs for the aggregates: created in [from, to), in the
// viewer's repositories, optionally of one repository or reviewer. It is the
// one place their WHERE clause is built.
type runSet struct {
	from, to time.Time
	// restricted limits to repoIDs (non-admins).
	restricted   bool
	repoIDs      []int
	repositoryID *int
	reviewerID   *int
}

func (h *api) runSet(ctx context.Context, from, to time.Time, f *model.CostFilter) (runSet, error) {
	a, err := h.access(ctx)
	if err != nil {
		return runSet{}, err
	}
	if !to.After(from) {
		return runSet{}, invalid("to must be after from")
	}
	if to.Sub(from) > maxCostRange {
		return runSet{}, invalid("the period may span at most two years")
	}
	s := runSet{from: from, to: to, restricted: !a.all, repoIDs: a.repoIDs}
	if f != nil {
		s.repositoryID, s.reviewerID = f.RepositoryID, f.ReviewerID
	}
	return s, nil
}

// filter is the SQL condition (with ? placeholders) and arguments of the
// viewer's repositories and the filter, over the given columns.
func (s runSet) filter(repoCol, revCol string) ([]string, []any) {
	var conds []string
	var args []any
	if s.restricted {
		if len(s.repoIDs) == 0 {
			conds = append(conds, "1 = 0")
		} else {
			conds = append(conds, repoCol+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(s.repoIDs)), ", ")+")")
			for _, id := range s.repoIDs {
				args = append(args, id)
			}
		}
	}
	if s.repositoryID != nil {
		conds = append(conds, repoCol+" = ?")
		args = append(args, *s.repositoryID)
	}
	if s.reviewerID != nil {
		conds = append(conds, revCol+" = ?")
		args = append(args, *s.reviewerID)
	}
	return conds, args
}

// where is the SQL condition over runs (with ? placeholders) and its arguments.
func (s runSet) where() (string, []any) {
	return s.whereRuns(s.from, s.to)
}

// whereRuns is where for the runs created in [from, to).
func (s runSet) whereRuns(from, to time.Time) (string, []any) {
	// SQLite stores times as text in the writer's zone (ent writes time.Now()):
	// compare in that zone. PostgreSQL compares timestamptz whatever the zone.
	conds := []string{run.FieldCreatedAt + " >= ?", run.FieldCreatedAt + " < ?"}
	args := []any{from.In(time.Local), to.In(time.Local)}
	c, a := s.filter(run.RepositoryColumn, run.ReviewerColumn)
	return strings.Join(append(conds, c...), " AND "), append(args, a...)
}

// grouping is how aggregate keys its buckets: by period ("d" or "w"), by
// entity (REVIEWER or REPOSITORY), by both ("<entity id>|<period day>"), or
// not at all ("").
type grouping struct {
	period string
	entity model.CostGroupBy
}

func groupingOf(g model.CostGroupBy) grouping {
	switch g {
	case model.CostGroupByDay:
		return grouping{period: "d"}
	case model.CostGroupByWeek:
		return grouping{period: "w"}
	}
	return grouping{entity: g}
}

// keyCols are the SQL columns of a bucket key over rollup rows of grain, or
// over runs when grain is "": the period first, then the entity, plain
// columns where they can be, so SQLite groups the rollup's rows in the order
// of its (grain, day, repository_id, reviewer_id) index instead of sorting.
func (h *api) keyCols(gr grouping, grain string) []string {
	var cols []string
	switch {
	case gr.period == "":
	case grain == "":
		cols = append(cols, h.db.RollupDay(gr.period, run.FieldCreatedAt))
	case grain == gr.period:
		cols = append(cols, "day")
	case h.db.Postgres(): // days of a week
		cols = append(cols, "to_char(date_trunc('week', CAST(day AS date)), 'YYYY-MM-DD')")
	default:
		cols = append(cols, h.db.RollupDay("w", "day"))
	}
	switch gr.entity {
	case model.CostGroupByReviewer:
		cols = append(cols, map[bool]string{true: run.ReviewerColumn, false: "reviewer_id"}[grain == ""])
	case model.CostGroupByRepository:
		cols = append(cols, map[bool]string{true: run.RepositoryColumn, false: "repository_id"}[grain == ""])
	case model.CostGroupByProvider: // runs only (spans)
		cols = append(cols, run.FieldProvider)
	}
	return cols
}

// bucketKey is the key of a bucket from its key columns' values: the
// period's day, the entity's id, or "<entity id>|<period day>".
func bucketKey(gr grouping, vals []sql.NullString) string {
	switch {
	case gr.period != "" && gr.entity != "":
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
func (h *api) spans(from, to time.Time, gr grouping) []span {
	zone := time.UTC
	if !h.db.Postgres() {
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
	if !d0.Before(d1) || gr.entity == model.CostGroupByProvider { // the rollup has no provider: read the runs
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
	switch gr.period {
	case "d":
		cover(d0, d1, []string{"d"})
	case "w":
		cover(d0, d1, []string{"w", "d"})
	default:
		cover(d0, d1, []string{"m", "w", "d"})
	}
	return out
}

// costAcc accumulates the figures of one bucket: sums, severity counts and
// the duration histogram the percentiles come from.
type costAcc struct {
	b    model.CostBucket
	sev  [4]int
	hist [entschema.CostRollupBuckets]int64
}

// add merges o into a.
func (a *costAcc) add(o *costAcc) {
	a.b.Runs += o.b.Runs
	a.b.CostUsd += o.b.CostUsd
	a.b.SucceededRuns += o.b.SucceededRuns
	a.b.FailedRuns += o.b.FailedRuns
	a.b.InputTokens += o.b.InputTokens
	a.b.OutputTokens += o.b.OutputTokens
	a.b.CacheReadTokens += o.b.CacheReadTokens
	a.b.CacheWriteTokens += o.b.CacheWriteTokens
	for i := range o.sev {
		a.sev[i] += o.sev[i]
	}
	for i := range o.hist {
		a.hist[i] += o.hist[i]
	}
}

// bucket is the finished bucket, keyed key.
func (a *costAcc) bucket(key string) *model.CostBucket {
	b := a.b
	b.Key = key
	b.Findings = severityCounts(a.sev[0], a.sev[1], a.sev[2], a.sev[3])
	if b.Findings.Total > 0 {
		x := b.CostUsd / float64(b.Findings.Total)
		b.CostPerFinding = &x
	}
	b.P50DurationMs, b.P95DurationMs = percentile(a.hist[:], 50), percentile(a.hist[:], 95)
	return &b
}

// percentile is the nearest-rank p-th percentile of the duration histogram
// (nil when empty): the upper bound of the bucket holding the rank, at most
// 19% above the exact value (store.DurationBound).
func percentile(hist []int64, p int64) *int64 {
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

// aggregate computes the figures of each bucket (keyed as gr says) and of
// the whole set. Whole days, weeks and months come from the rollup
// (store/rollup.go: a few thousand rows for a year); only the partial days at
// the ends are read from the runs. Figures are exact; duration percentiles come
// from the rollup's histogram (see percentile).
func (h *api) aggregate(ctx context.Context, s runSet, gr grouping) (total *costAcc, buckets map[string]*costAcc, err error) {
	total = &costAcc{}
	buckets = map[string]*costAcc{}
	// The coarsest rollup rows that still tell apart what the grouping and
	// the filter need: per repository, per reviewer, both or neither.
	level := store.RollupLevel(s.restricted || s.repositoryID != nil || gr.entity == model.CostGroupByRepository,
		s.reviewerID != nil || gr.entity == model.CostGroupByReviewer)
	for _, sp := range h.spans(s.from, s.to, gr) {
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
		k := h.keyCols(gr, sp.grain)
		// Rollup rows of the bucket's period and of exactly its entity are
		// one a bucket: read as they are, not summed (a year by week per
		// repository: 5,200 rows, ~60 sums each). scanCosts adds up rows
		// of one key anyway.
		perRow := sp.grain != "" && sp.grain == gr.period &&
			level == store.RollupLevel(gr.entity == model.CostGroupByRepository, gr.entity == model.CostGroupByReviewer)
		q := "SELECT " + strings.Join(append(append([]string(nil), k...), h.figureCols(sums, !perRow)...), ", ") + " " + where
		if len(k) > 0 && !perRow {
			q += " GROUP BY " + strings.Join(k, ", ")
		}
		if err := h.scanCosts(ctx, q, args, gr, len(k), total, buckets); err != nil {
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
func (h *api) figureCols(sums []string, sum bool) []string {
	ints := make([]string, 0, len(sums))
	for i, c := range sums {
		if sum {
			c = "SUM(" + c + ")"
		}
		if i == costSum {
			continue
		}
		if h.db.Postgres() {
			c = "CAST(" + c + " AS TEXT)"
		}
		ints = append(ints, c)
	}
	cost := sums[costSum]
	if sum {
		cost = "COALESCE(SUM(" + cost + "), 0)"
	}
	cost = "CAST(" + cost + " AS DOUBLE PRECISION)"
	if h.db.Postgres() {
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

// scanCosts adds the rows of q (nkey key columns, then figureCols) to total
// and buckets.
func (h *api) scanCosts(ctx context.Context, q string, args []any, gr grouping, nkey int, total *costAcc, buckets map[string]*costAcc) error {
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), args...)
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
		var r costAcc
		n := func(i int) int { return int(math.Round(v[i])) }
		r.b.Runs, r.b.SucceededRuns, r.b.FailedRuns = n(0), n(1), n(2)
		r.b.CostUsd = v[4]
		r.b.InputTokens, r.b.OutputTokens = int64(n(5)), int64(n(6))
		r.b.CacheReadTokens, r.b.CacheWriteTokens = int64(n(7)), int64(n(8))
		r.sev = [4]int{n(9), n(10), n(11), n(12)}
		for i := range r.hist {
			r.hist[i] = int64(n(13 + i))
		}
		key := bucketKey(gr, keys)
		b := buckets[key]
		if b == nil {
			b = &costAcc{}
			buckets[key] = b
		}
		b.add(&r)
		total.add(&r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("cost figures: %w", err)
	}
	return nil
}

func (h *api) costSummary(ctx context.Context, from, to time.Time, g model.CostGroupBy, f *model.CostFilter) (*model.CostSummary, error) {
	if !g.IsValid() {
		return nil, invalid("unknown groupBy")
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	total, byKey, err := h.aggregate(ctx, s, groupingOf(g))
	if err != nil {
		return nil, err
	}
	buckets := make([]*model.CostBucket, 0, len(byKey))
	for k, a := range byKey {
		buckets = append(buckets, a.bucket(k))
	}
	switch g {
	case model.CostGroupByDay, model.CostGroupByWeek:
		sortPeriods(buckets)
	default:
		sortByCost(buckets)
		if err := h.attachEntities(ctx, g, buckets); err != nil {
			return nil, err
		}
	}
	return &model.CostSummary{From: from, To: to, GroupBy: g, Total: total.bucket("total"), Buckets: buckets}, nil
}

// sortPeriods sets the start of day/week buckets and puts them in time order.
func sortPeriods(buckets []*model.CostBucket) {
	for _, b := range buckets {
		if t, err := time.Parse("2006-01-02", b.Key); err == nil {
			b.Start = &t
		}
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i].Key < buckets[j].Key })
}

// sortByCost puts buckets in cost order, highest first (then by key).
func sortByCost(buckets []*model.CostBucket) {
	sort.Slice(buckets, func(i, j int) bool {
		if buckets[i].CostUsd != buckets[j].CostUsd {
			return buckets[i].CostUsd > buckets[j].CostUsd
		}
		return buckets[i].Key < buckets[j].Key
	})
}

// costSeries is the cost over time per reviewer or repository: one grouped
// pass keyed "<entity id>|<period>", merged into a total per entity.
func (h *api) costSeries(ctx context.Context, from, to time.Time, interval model.CostInterval, by model.CostSeriesBy, f *model.CostFilter) ([]*model.CostSeries, error) {
	if !interval.IsValid() || !by.IsValid() {
		return nil, invalid("unknown interval or by")
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	entity := model.CostGroupBy(by)
	gr := grouping{period: "d", entity: entity}
	if interval == model.CostIntervalWeek {
		gr.period = "w"
	}
	_, byKey, err := h.aggregate(ctx, s, gr)
	if err != nil {
		return nil, err
	}
	type acc struct {
		total  costAcc
		points []*model.CostBucket
	}
	series := map[string]*acc{}
	for k, a := range byKey {
		id, day, _ := strings.Cut(k, "|")
		e := series[id]
		if e == nil {
			e = &acc{}
			series[id] = e
		}
		e.total.add(a)
		e.points = append(e.points, a.bucket(day))
	}
	totals := make([]*model.CostBucket, 0, len(series))
	points := map[*model.CostBucket][]*model.CostBucket{}
	for id, e := range series {
		t := e.total.bucket(id)
		sortPeriods(e.points)
		points[t] = e.points
		totals = append(totals, t)
	}
	// Entities first: the order falls back to the key, the reviewer's or repository's name.
	if err := h.attachEntities(ctx, entity, totals); err != nil {
		return nil, err
	}
	sortByCost(totals)
	out := make([]*model.CostSeries, 0, len(totals))
	for _, t := range totals {
		out = append(out, &model.CostSeries{Key: t.Key, Reviewer: t.Reviewer, Repository: t.Repository, Total: t, Points: points[t]})
	}
	return out, nil
}

// attachEntities loads the reviewers or repositories of buckets in one query
// and keys buckets by their names.
func (h *api) attachEntities(ctx context.Context, g model.CostGroupBy, buckets []*model.CostBucket) error {
	ids := make([]int, 0, len(buckets))
	for _, b := range buckets {
		if id, err := strconv.Atoi(b.Key); err == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	switch g {
	case model.CostGroupByReviewer:
		rs, err := h.client.Reviewer.Query().Where(reviewer.IDIn(ids...)).All(ctx)
		if err != nil {
			return fmt.Errorf("cost buckets: reviewers: %w", err)
		}
		m := map[string]*ent.Reviewer{}
		for _, r := range rs {
			m[strconv.Itoa(r.ID)] = r
		}
		for _, b := range buckets {
			if r := m[b.Key]; r != nil {
				b.Reviewer, b.Key = r, r.Name
			}
		}
	case model.CostGroupByRepository:
		rs, err := h.client.Repository.Query().Where(repository.IDIn(ids...)).All(ctx)
		if err != nil {
			return fmt.Errorf("cost buckets: repositories: %w", err)
		}
		m := map[string]*ent.Repository{}
		for _, r := range rs {
			m[strconv.Itoa(r.ID)] = r
		}
		for _, b := range buckets {
			if r := m[b.Key]; r != nil {
				b.Repository, b.Key = r, r.FullName
			}
		}
	}
	return nil
}

func (h *api) expensivePullRequests(ctx context.Context, from, to time.Time, limit *int, f *model.CostFilter) ([]*model.PullRequestCost, error) {
	n := 10
	if limit != nil {
		n = *limit
	}
	if n < 1 || n > MaxPageSize {
		return nil, invalid("limit must be between 1 and %d", MaxPageSize)
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	where, args := s.where()
	q := `SELECT ` + run.RepositoryColumn + `, pr_number, MAX(pr_title), MAX(pr_url),
	CAST(SUM(cost_usd) AS DOUBLE PRECISION) AS c, COUNT(*),
	CAST(SUM(findings_blocker + findings_major + findings_minor + findings_nit) AS BIGINT)
FROM ` + run.Table + ` WHERE ` + where + `
GROUP BY ` + run.RepositoryColumn + `, pr_number
ORDER BY c DESC, ` + run.RepositoryColumn + `, pr_number LIMIT ?`
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), append(args, n)...)
	if err != nil {
		return nil, fmt.Errorf("expensive pull requests: %w", err)
	}
	defer rows.Close()
	var out []*model.PullRequestCost
	var repoIDs []int
	for rows.Next() {
		var p model.PullRequestCost
		var repoID int
		if err := rows.Scan(&repoID, &p.PrNumber, &p.PrTitle, &p.PrURL, &p.CostUsd, &p.Runs, &p.Findings); err != nil {
			return nil, fmt.Errorf("expensive pull requests: scan: %w", err)
		}
		p.Repository = &ent.Repository{ID: repoID}
		out = append(out, &p)
		repoIDs = append(repoIDs, repoID)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("expensive pull requests: %w", err)
	}
	repos, err := h.client.Repository.Query().Where(repository.IDIn(repoIDs...)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("expensive pull requests: repositories: %w", err)
	}
	m := map[int]*ent.Repository{}
	for _, r := range repos {
		m[r.ID] = r
	}
	kept := out[:0]
	for _, p := range out {
		if r := m[p.Repository.ID]; r != nil {
			p.Repository = r
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// reviewerStats are the reviewer's figures over a period (default: 30 days).
func (h *api) reviewerStats(ctx context.Context, r *ent.Reviewer, from, to *time.Time) (*model.ReviewerStats, error) {
	end := time.Now()
	if to != nil {
		end = *to
	}
	start := end.Add(-30 * 24 * time.Hour)
	if from != nil {
		start = *from
	}
	id := r.ID
	s, err := h.runSet(ctx, start, end, &model.CostFilter{ReviewerID: &id})
	if err != nil {
		return nil, err
	}
	where, args := s.where()
	q := `SELECT COUNT(*),
	COALESCE(SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END), 0),
	CAST(COALESCE(SUM(findings_blocker + findings_major + findings_minor + findings_nit), 0) AS BIGINT),
	CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION)
FROM ` + run.Table + ` WHERE ` + where
	var st model.ReviewerStats
	err = h.db.SQL.QueryRowContext(ctx, h.db.Rebind(q), args...).Scan(&st.Runs, &st.Succeeded, &st.Failed, &st.Cancelled, &st.Findings, &st.TotalCostUsd)
	if err != nil {
		return nil, fmt.Errorf("reviewer stats: %w", err)
	}
	if finished := st.Succeeded + st.Failed + st.Cancelled; finished > 0 {
		st.FailureRate = float64(st.Failed) / float64(finished)
	}
	if st.Runs > 0 {
		st.FindingsPerRun = float64(st.Findings) / float64(st.Runs)
		st.MeanCostUsd = st.TotalCostUsd / float64(st.Runs)
	}
	return &st, nil
}
