package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/graph/model"
)

// The quality resolver: the counts come from internal/store (quality.go);
// here the viewer's access, the rates and the GraphQL shapes.

func (h *api) quality(ctx context.Context, from, to time.Time, groupBy model.QualityGroupBy, interval model.CostInterval, f *model.QualityFilter) (*model.QualityReport, error) {
	if !groupBy.IsValid() || !interval.IsValid() {
		return nil, invalid("unknown groupBy or interval")
	}
	var cf *model.CostFilter
	if f != nil {
		cf = &model.CostFilter{RepositoryID: f.RepositoryID, ReviewerID: f.ReviewerID}
	}
	s, err := h.runSet(ctx, from, to, cf)
	if err != nil {
		return nil, err
	}
	if f != nil {
		s.InstallationID = f.InstallationID
	}
	rep, err := runstats.AggregateQuality(ctx, h.db, s, runstats.QualityDim(groupBy), interval == model.CostIntervalWeek)
	if err != nil {
		return nil, err
	}
	out := &model.QualityReport{From: from, To: to, GroupBy: groupBy, Total: qualityFigures(rep.Total)}
	for k, c := range rep.Groups {
		out.Groups = append(out.Groups, &model.QualityGroup{Key: k, Figures: qualityFigures(c)})
	}
	if err := h.nameQualityGroups(ctx, groupBy, out.Groups); err != nil {
		return nil, err
	}
	sort.Slice(out.Groups, func(i, j int) bool {
		a, b := out.Groups[i], out.Groups[j]
		if a.Figures.Findings != b.Figures.Findings {
			return a.Figures.Findings > b.Figures.Findings
		}
		return a.Key < b.Key
	})
	for k, c := range rep.Periods {
		start, err := time.Parse(time.DateOnly, k)
		if err != nil {
			return nil, fmt.Errorf("quality: period %q: %w", k, err)
		}
		out.Series = append(out.Series, &model.QualityPoint{Start: start, Key: k, Figures: qualityFigures(c)})
	}
	sort.Slice(out.Series, func(i, j int) bool { return out.Series[i].Key < out.Series[j].Key })
	if out.Groups == nil {
		out.Groups = []*model.QualityGroup{}
	}
	if out.Series == nil {
		out.Series = []*model.QualityPoint{}
	}
	return out, nil
}

// qualityFigures are the GraphQL figures of c: its counts and their rates
// (null where the denominator is zero).
func qualityFigures(c *runstats.QualityCounts) *model.QualityFigures {
	ratio := func(n, d float64) *float64 {
		if d == 0 {
			return nil
		}
		x := n / d
		return &x
	}
	o := c.Outcomes
	q := &model.QualityFigures{
		Findings: c.Findings(), Open: o[finding.OutcomeOpen], Fixed: o[finding.OutcomeFixed],
		Acknowledged: o[finding.OutcomeAcknowledged], Dismissed: o[finding.OutcomeDismissed],
		OpenAtMerge: o[finding.OutcomeOpenAtMerge], ClosedUnmerged: o[finding.OutcomeClosedUnmerged],
		Decided: c.Decided(), PullRequests: c.PullRequests,
	}
	q.AcceptanceRate = ratio(float64(c.Accepted()), float64(q.Decided))
	q.DismissRate = ratio(float64(q.Dismissed), float64(q.Decided))
	q.FindingsPerPullRequest = ratio(float64(q.Findings), float64(q.PullRequests))
	if c.CostKnown {
		cost := c.CostUSD
		q.CostUsd = &cost
		q.CostPerFixedFinding = ratio(cost, float64(q.Fixed))
	}
	return q
}

// nameQualityGroups loads the reviewers or repositories of groups (keyed by
// id) in one query and keys the groups by their names.
func (h *api) nameQualityGroups(ctx context.Context, g model.QualityGroupBy, groups []*model.QualityGroup) error {
	ids := make([]int, 0, len(groups))
	for _, b := range groups {
		if g == model.QualityGroupByReviewerCategory {
			if id, _, ok := runstats.SplitReviewerCategoryKey(b.Key); ok {
				ids = append(ids, id)
			}
		} else if id, err := strconv.Atoi(b.Key); err == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	switch g {
	case model.QualityGroupByReviewer:
		rs, err := h.client.Reviewer.Query().Where(reviewer.IDIn(ids...)).All(ctx)
		if err != nil {
			return fmt.Errorf("quality: reviewers: %w", err)
		}
		for _, r := range rs {
			for _, b := range groups {
				if b.Key == strconv.Itoa(r.ID) {
					b.Reviewer, b.Key = r, r.Name
				}
			}
		}
	case model.QualityGroupByReviewerCategory:
		rs, err := h.client.Reviewer.Query().Where(reviewer.IDIn(ids...)).All(ctx)
		if err != nil {
			return fmt.Errorf("quality: reviewers: %w", err)
		}
		byID := map[int]*ent.Reviewer{}
		for _, r := range rs {
			byID[r.ID] = r
		}
		for _, b := range groups {
			id, cat, _ := runstats.SplitReviewerCategoryKey(b.Key)
			if r := byID[id]; r != nil {
				c := cat
				b.Reviewer, b.Category, b.Key = r, &c, r.Name+"/"+cat
			}
		}
	case model.QualityGroupByRepository:
		rs, err := h.client.Repository.Query().Where(repository.IDIn(ids...)).All(ctx)
		if err != nil {
			return fmt.Errorf("quality: repositories: %w", err)
		}
		for _, r := range rs {
			for _, b := range groups {
				if b.Key == strconv.Itoa(r.ID) {
					b.Repository, b.Key = r, r.FullName
				}
			}
		}
	}
	return nil
}
