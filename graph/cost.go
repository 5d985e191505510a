package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/graph/model"
)

// The cost resolvers: their SQL is in internal/store (cost.go, beside the
// rollup it reads); here the viewer's access, the arguments' checks and the
// GraphQL shapes.

// maxCostRange caps the period of a cost query.
const maxCostRange = 2 * 366 * 24 * time.Hour

// runSet is the viewer's runs created in [from, to), filtered by f.
func (h *api) runSet(ctx context.Context, from, to time.Time, f *model.CostFilter) (runstats.RunSet, error) {
	a, err := h.access(ctx)
	if err != nil {
		return runstats.RunSet{}, err
	}
	if !to.After(from) {
		return runstats.RunSet{}, invalid("to must be after from")
	}
	if to.Sub(from) > maxCostRange {
		return runstats.RunSet{}, invalid("the period may span at most two years")
	}
	s := runstats.RunSet{From: from, To: to, Restricted: !a.all, RepoIDs: a.repoIDs}
	if f != nil {
		s.RepositoryID, s.ReviewerID = f.RepositoryID, f.ReviewerID
	}
	return s, nil
}

func groupingOf(g model.CostGroupBy) runstats.CostGrouping {
	switch g {
	case model.CostGroupByDay:
		return runstats.CostGrouping{Period: "d"}
	case model.CostGroupByWeek:
		return runstats.CostGrouping{Period: "w"}
	}
	return runstats.CostGrouping{Entity: runstats.CostEntity(g)}
}

// costBucket is the GraphQL bucket of figures a, keyed key.
func costBucket(a *runstats.CostFigures, key string) *model.CostBucket {
	b := model.CostBucket{Key: key, Runs: a.Runs, SucceededRuns: a.SucceededRuns, FailedRuns: a.FailedRuns, CostUsd: a.CostUSD,
		InputTokens: a.InputTokens, OutputTokens: a.OutputTokens, CacheReadTokens: a.CacheReadTokens, CacheWriteTokens: a.CacheWriteTokens}
	b.Findings = severityCounts(a.Severity[0], a.Severity[1], a.Severity[2], a.Severity[3])
	if b.Findings.Total > 0 {
		x := b.CostUsd / float64(b.Findings.Total)
		b.CostPerFinding = &x
	}
	b.P50DurationMs, b.P95DurationMs = a.Percentile(50), a.Percentile(95)
	return &b
}

func (h *api) costSummary(ctx context.Context, from, to time.Time, g model.CostGroupBy, f *model.CostFilter) (*model.CostSummary, error) {
	if !g.IsValid() {
		return nil, invalid("unknown groupBy")
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	total, byKey, err := runstats.AggregateCosts(ctx, h.db, s, groupingOf(g))
	if err != nil {
		return nil, err
	}
	buckets := make([]*model.CostBucket, 0, len(byKey))
	for k, a := range byKey {
		buckets = append(buckets, costBucket(a, k))
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
	shadow, only := s, true
	shadow.Shadow = &only
	bt, err := runstats.CountRuns(ctx, h.db, shadow)
	if err != nil {
		return nil, err
	}
	return &model.CostSummary{From: from, To: to, GroupBy: g, Total: costBucket(total, "total"), Buckets: buckets,
		Backtest: &model.BacktestShare{Runs: bt.Runs, CostUsd: bt.CostUSD}}, nil
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
	gr := runstats.CostGrouping{Period: "d", Entity: runstats.CostEntity(entity)}
	if interval == model.CostIntervalWeek {
		gr.Period = "w"
	}
	_, byKey, err := runstats.AggregateCosts(ctx, h.db, s, gr)
	if err != nil {
		return nil, err
	}
	type acc struct {
		total  runstats.CostFigures
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
		e.total.Add(a)
		e.points = append(e.points, costBucket(a, day))
	}
	totals := make([]*model.CostBucket, 0, len(series))
	points := map[*model.CostBucket][]*model.CostBucket{}
	for id, e := range series {
		t := costBucket(&e.total, id)
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
	prs, err := runstats.ExpensivePullRequests(ctx, h.db, s, n)
	if err != nil {
		return nil, err
	}
	out := make([]*model.PullRequestCost, 0, len(prs))
	repoIDs := make([]int, 0, len(prs))
	for _, p := range prs {
		out = append(out, &model.PullRequestCost{Repository: &ent.Repository{ID: p.RepositoryID}, PrNumber: p.PrNumber,
			PrTitle: p.PrTitle, PrURL: p.PrURL, CostUsd: p.CostUSD, Runs: p.Runs, Findings: p.Findings})
		repoIDs = append(repoIDs, p.RepositoryID)
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
	c, err := runstats.CountRuns(ctx, h.db, s)
	if err != nil {
		return nil, fmt.Errorf("reviewer stats: %w", err)
	}
	st := model.ReviewerStats{Runs: c.Runs, Succeeded: c.Succeeded, Failed: c.Failed, Cancelled: c.Cancelled,
		Findings: c.Findings, TotalCostUsd: c.CostUSD}
	if finished := st.Succeeded + st.Failed + st.Cancelled; finished > 0 {
		st.FailureRate = float64(st.Failed) / float64(finished)
	}
	if st.Runs > 0 {
		st.FindingsPerRun = float64(st.Findings) / float64(st.Runs)
		st.MeanCostUsd = st.TotalCostUsd / float64(st.Runs)
	}
	return &st, nil
}
