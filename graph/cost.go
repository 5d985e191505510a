package graph

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/graph/model"
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

// where is the SQL condition (with ? placeholders) and its arguments.
func (s runSet) where() (string, []any) {
	// SQLite stores times as text in the writer's zone (ent writes time.Now()):
	// compare in that zone. PostgreSQL compares timestamptz whatever the zone.
	conds := []string{run.FieldCreatedAt + " >= ?", run.FieldCreatedAt + " < ?"}
	args := []any{s.from.In(time.Local), s.to.In(time.Local)}
	if s.restricted {
		if len(s.repoIDs) == 0 {
			conds = append(conds, "1 = 0")
		} else {
			conds = append(conds, run.RepositoryColumn+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(s.repoIDs)), ", ")+")")
			for _, id := range s.repoIDs {
				args = append(args, id)
			}
		}
	}
	if s.repositoryID != nil {
		conds = append(conds, run.RepositoryColumn+" = ?")
		args = append(args, *s.repositoryID)
	}
	if s.reviewerID != nil {
		conds = append(conds, run.ReviewerColumn+" = ?")
		args = append(args, *s.reviewerID)
	}
	return strings.Join(conds, " AND "), args
}

// bucketExpr is the SQL of a bucket key, per dialect; "" means one bucket.
func (h *api) bucketExpr(g model.CostGroupBy) string {
	pg := h.db.Postgres()
	switch g {
	case model.CostGroupByDay:
		if pg {
			return "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
		}
		return "substr(created_at, 1, 10)"
	case model.CostGroupByWeek:
		if pg {
			return "to_char(date_trunc('week', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')"
		}
		return "date(substr(created_at, 1, 10), 'weekday 0', '-6 days')"
	case model.CostGroupByReviewer:
		return "CAST(" + run.ReviewerColumn + " AS TEXT)"
	case model.CostGroupByRepository:
		return "CAST(" + run.RepositoryColumn + " AS TEXT)"
	}
	return ""
}

// costAcc accumulates the figures of one bucket: sums, severity counts and
// the duration classes the percentiles come from.
type costAcc struct {
	b       model.CostBucket
	sev     [4]int
	classes []durationClass
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
	a.classes = append(a.classes, o.classes...)
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
	b.P50DurationMs, b.P95DurationMs = percentile(a.classes, 50), percentile(a.classes, 95)
	return &b
}

// aggregate computes the figures of each bucket (keyed by the SQL key; ""
// for one bucket) and of the whole set, in ONE pass over the runs: the rows
// are grouped by bucket and by a duration class (number of digits and the
// two leading digits), so sums add up per bucket and the duration
// percentiles come from the class histogram without sorting every run. A
// percentile is the longest duration in the class holding its nearest rank:
// exact when a class holds one value, otherwise at most ~10% above.
func (h *api) aggregate(ctx context.Context, s runSet, key string) (total *costAcc, buckets map[string]*costAcc, err error) {
	where, args := s.where()
	k := "''"
	if key != "" {
		k = key
	}
	const timed = "status IN ('succeeded', 'failed') AND duration_ms > 0"
	q := `SELECT ` + k + ` AS k,
	length(CAST(duration_ms AS TEXT)), substr(CAST(duration_ms AS TEXT), 1, 2),
	COUNT(*),
	CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION),
	COALESCE(SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
	CAST(COALESCE(SUM(input_tokens), 0) AS BIGINT),
	CAST(COALESCE(SUM(output_tokens), 0) AS BIGINT),
	CAST(COALESCE(SUM(cache_read_tokens), 0) AS BIGINT),
	CAST(COALESCE(SUM(cache_write_tokens), 0) AS BIGINT),
	CAST(COALESCE(SUM(findings_blocker), 0) AS BIGINT),
	CAST(COALESCE(SUM(findings_major), 0) AS BIGINT),
	CAST(COALESCE(SUM(findings_minor), 0) AS BIGINT),
	CAST(COALESCE(SUM(findings_nit), 0) AS BIGINT),
	COALESCE(SUM(CASE WHEN ` + timed + ` THEN 1 ELSE 0 END), 0),
	CAST(COALESCE(MAX(CASE WHEN ` + timed + ` THEN duration_ms END), 0) AS BIGINT)
FROM ` + run.Table + ` WHERE ` + where + `
GROUP BY ` + k + `, length(CAST(duration_ms AS TEXT)), substr(CAST(duration_ms AS TEXT), 1, 2)`
	if key == "" {
		q = strings.Replace(q, "GROUP BY '', ", "GROUP BY ", 1)
	}
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("cost figures: %w", err)
	}
	defer rows.Close()
	total = &costAcc{}
	buckets = map[string]*costAcc{}
	for rows.Next() {
		var r costAcc
		var key, lead sql.NullString
		var digits int
		var dc durationClass
		if err := rows.Scan(&key, &digits, &lead, &r.b.Runs, &r.b.CostUsd, &r.b.SucceededRuns, &r.b.FailedRuns, &r.b.InputTokens,
			&r.b.OutputTokens, &r.b.CacheReadTokens, &r.b.CacheWriteTokens, &r.sev[0], &r.sev[1], &r.sev[2], &r.sev[3], &dc.n, &dc.max); err != nil {
			return nil, nil, fmt.Errorf("cost figures: scan: %w", err)
		}
		if dc.n > 0 {
			l, _ := strconv.Atoi(lead.String)
			dc.order = digits*100 + l
			r.classes = []durationClass{dc}
		}
		b := buckets[key.String]
		if b == nil {
			b = &costAcc{}
			buckets[key.String] = b
		}
		b.add(&r)
		total.add(&r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("cost figures: %w", err)
	}
	return total, buckets, nil
}

// durationClass is one histogram class of run durations.
type durationClass struct {
	order int   // digits*100 + leading two digits: sorts classes by duration
	n     int   // runs in the class
	max   int64 // longest duration in the class
}

// percentile is the nearest-rank p-th percentile over the classes (nil when empty).
func percentile(cls []durationClass, p int) *int64 {
	cls = append([]durationClass(nil), cls...)
	sort.Slice(cls, func(i, j int) bool { return cls[i].order < cls[j].order })
	merged := cls[:0]
	for _, c := range cls { // the same class from several buckets (the total)
		if n := len(merged); n > 0 && merged[n-1].order == c.order {
			merged[n-1].n += c.n
			merged[n-1].max = max(merged[n-1].max, c.max)
			continue
		}
		merged = append(merged, c)
	}
	n := 0
	for _, c := range merged {
		n += c.n
	}
	if n == 0 {
		return nil
	}
	rank := (n*p + 99) / 100
	seen := 0
	for _, c := range merged {
		seen += c.n
		if seen >= rank {
			v := c.max
			return &v
		}
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
	total, byKey, err := h.aggregate(ctx, s, h.bucketExpr(g))
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
	period := h.bucketExpr(model.CostGroupBy(interval))
	entity := model.CostGroupBy(by)
	_, byKey, err := h.aggregate(ctx, s, h.bucketExpr(entity)+" || '|' || "+period)
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
