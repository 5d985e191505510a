package graph

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/chakshu-dev/chakshu/internal/runstats"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/graph/model"
)

// severityRank orders trends: blocker first.
var severityRank = map[finding.Severity]int{
	finding.SeverityBlocker: 0, finding.SeverityMajor: 1, finding.SeverityMinor: 2, finding.SeverityNit: 3,
}

// findingTrends counts the findings of the runs in the set per day or week
// (UTC; weeks from Monday, as the cost buckets), severity and category.
// SQL groups per run (the runs' own where clause, runSet); the runs' times
// are bucketed here, which reads the same on SQLite (times stored as text in
// the writer's zone) and PostgreSQL.
func (h *api) findingTrends(ctx context.Context, from, to time.Time, interval model.CostInterval, f *model.CostFilter) ([]*model.FindingTrend, error) {
	if !interval.IsValid() {
		return nil, invalid("interval is DAY or WEEK")
	}
	s, err := h.runSet(ctx, from, to, f)
	if err != nil {
		return nil, err
	}
	reviews := false // a backtest's shadow runs found nothing on a review anyone asked for
	s.Shadow = &reviews
	where, args := s.Where()
	q := `SELECT r.` + run.FieldCreatedAt + `, f.` + finding.FieldSeverity + `, f.` + finding.FieldCategory + `, COUNT(*),
	SUM(CASE WHEN f.` + finding.FieldPosted + ` THEN 1 ELSE 0 END)
FROM ` + finding.Table + ` f JOIN (SELECT ` + run.FieldID + `, ` + run.FieldCreatedAt + ` FROM ` + run.Table + ` WHERE ` + where + `) r
	ON f.` + finding.RunColumn + ` = r.` + run.FieldID + `
GROUP BY r.` + run.FieldID + `, r.` + run.FieldCreatedAt + `, f.` + finding.FieldSeverity + `, f.` + finding.FieldCategory
	rows, err := h.db.SQL.QueryContext(ctx, h.db.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("finding trends: %w", err)
	}
	defer rows.Close()
	type key struct {
		start    time.Time
		severity finding.Severity
		category string
	}
	acc := map[key]*model.FindingTrend{}
	for rows.Next() {
		var (
			created  any
			sev      string
			category string
			count    int
			posted   int
		)
		if err := rows.Scan(&created, &sev, &category, &count, &posted); err != nil {
			return nil, fmt.Errorf("finding trends: scan: %w", err)
		}
		at, err := scanTime(created)
		if err != nil {
			return nil, fmt.Errorf("finding trends: %w", err)
		}
		k := key{start: periodStart(at, interval), severity: finding.Severity(sev), category: category}
		t := acc[k]
		if t == nil {
			t = &model.FindingTrend{Start: k.start, Key: k.start.Format(time.DateOnly), Severity: k.severity, Category: category}
			acc[k] = t
		}
		t.Count += count
		t.Posted += posted
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("finding trends: %w", err)
	}
	out := make([]*model.FindingTrend, 0, len(acc))
	for _, t := range acc {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] < severityRank[b.Severity]
		}
		return a.Category < b.Category
	})
	return out, nil
}

// periodStart is the start of the UTC day or week (Monday) holding t.
func periodStart(t time.Time, interval model.CostInterval) time.Time {
	return runstats.PeriodStart(t, interval == model.CostIntervalWeek)
}

// sqliteTimeLayouts are how SQLite (modernc) hands back a stored time when
// the column's declared type is lost (as through a subquery).
var sqliteTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	time.RFC3339Nano,
}

// scanTime reads a time column scanned into any: a time.Time (PostgreSQL, or
// SQLite with the declared type) or its text.
func scanTime(v any) (time.Time, error) {
	var s string
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return time.Time{}, fmt.Errorf("created_at: unexpected %T", v)
	}
	for _, l := range sqliteTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("created_at: unreadable time %q", s)
}
