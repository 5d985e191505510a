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

// aggregate runs the figures query and the duration percentiles query for
// buckets keyed by key ("" for one bucket over the whole set).
func (h *api) aggregate(ctx context.Context, s runSet, key string) (map[string]*model.CostBucket, error) {
	where, args := s.where()
	k, group := "''", ""
	if key != "" {
		k, group = key, " GROUP BY "+key
	}
	q := `SELECT ` + k + ` AS k, COUNT(*),
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
	CAST(COALESCE(SUM(findings_nit), 0) AS BIGINT)
FROM ` + run.Table + ` WHERE ` + where + group
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("cost figures: %w", err)
	}
	defer rows.Close()
	out := map[string]*model.CostBucket{}
	for rows.Next() {
		var b model.CostBucket
		var bl, ma, mi, ni int
		var key sql.NullString
		if err := rows.Scan(&key, &b.Runs, &b.CostUsd, &b.SucceededRuns, &b.FailedRuns, &b.InputTokens, &b.OutputTokens,
			&b.CacheReadTokens, &b.CacheWriteTokens, &bl, &ma, &mi, &ni); err != nil {
			return nil, fmt.Errorf("cost figures: scan: %w", err)
		}
		b.Key = key.String
		b.Findings = severityCounts(bl, ma, mi, ni)
		if b.Findings.Total > 0 {
			c := b.CostUsd / float64(b.Findings.Total)
			b.CostPerFinding = &c
		}
		out[b.Key] = &b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cost figures: %w", err)
	}
	if err := h.percentiles(ctx, s, key, out); err != nil {
		return nil, err
	}
	return out, nil
}

// percentiles fills p50/p95 duration (nearest rank) of finished runs per bucket,
// with window functions both SQLite and PostgreSQL have.
func (h *api) percentiles(ctx context.Context, s runSet, key string, into map[string]*model.CostBucket) error {
	where, args := s.where()
	k, part := "''", ""
	if key != "" {
		k, part = key, "PARTITION BY "+key+" "
	}
	q := `SELECT k, n, rn, duration_ms FROM (
	SELECT ` + k + ` AS k, duration_ms,
		ROW_NUMBER() OVER (` + part + `ORDER BY duration_ms) AS rn,
		COUNT(*) OVER (` + strings.TrimSpace(part) + `) AS n
	FROM ` + run.Table + ` WHERE ` + where + ` AND status IN ('succeeded', 'failed') AND duration_ms > 0
) t WHERE rn = (n * 50 + 99) / 100 OR rn = (n * 95 + 99) / 100`
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("cost percentiles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key sql.NullString
		var n, rn, d int64
		if err := rows.Scan(&key, &n, &rn, &d); err != nil {
			return fmt.Errorf("cost percentiles: scan: %w", err)
		}
		b := into[key.String]
		if b == nil {
			continue
		}
		if rn == (n*50+99)/100 {
			b.P50DurationMs = &d
		}
		if rn == (n*95+99)/100 {
			b.P95DurationMs = &d
		}
	}
	return rows.Err()
}

func (h *api) costSummary(ctx context.Context, from, to time.Time, g model.CostGroupBy, f *model.CostFilter) (*model.CostSummary, error) {
	if !g.IsValid() {
		return nil, invalid("unknown groupBy")
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	totals, err := h.aggregate(ctx, s, "")
	if err != nil {
		return nil, err
	}
	total := totals[""]
	if total == nil {
		total = &model.CostBucket{Findings: severityCounts(0, 0, 0, 0)}
	}
	total.Key = "total"
	byKey, err := h.aggregate(ctx, s, h.bucketExpr(g))
	if err != nil {
		return nil, err
	}
	buckets := make([]*model.CostBucket, 0, len(byKey))
	for _, b := range byKey {
		buckets = append(buckets, b)
	}
	switch g {
	case model.CostGroupByDay, model.CostGroupByWeek:
		for _, b := range buckets {
			if t, err := time.Parse("2006-01-02", b.Key); err == nil {
				b.Start = &t
			}
		}
		sort.Slice(buckets, func(i, j int) bool { return buckets[i].Key < buckets[j].Key })
	default:
		sort.Slice(buckets, func(i, j int) bool {
			if buckets[i].CostUsd != buckets[j].CostUsd {
				return buckets[i].CostUsd > buckets[j].CostUsd
			}
			return buckets[i].Key < buckets[j].Key
		})
		if err := h.attachEntities(ctx, g, buckets); err != nil {
			return nil, err
		}
	}
	return &model.CostSummary{From: from, To: to, GroupBy: g, Total: total, Buckets: buckets}, nil
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
