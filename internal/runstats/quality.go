package runstats

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// The quality aggregates (README "Quality page"): what became of the
// findings the runs of a RunSet posted, per reviewer, category, severity or
// repository and per day or week. Shadow runs (backtests) never count. Two
// grouped reads: the period's runs (their PR, cost and time; the runs'
// created_at index bounds them), and their posted findings counted per run,
// severity, category and outcome through the findings' run index. graph
// turns the counts into rates.

// QualityDim is what quality groups are per.
type QualityDim string

// The dimensions quality groups can be per.
const (
	QualityByReviewer   QualityDim = "REVIEWER"
	QualityByRepository QualityDim = "REPOSITORY"
	QualityByCategory   QualityDim = "CATEGORY"
	QualityBySeverity   QualityDim = "SEVERITY"
	// QualityByReviewerCategory groups per reviewer and category, keyed
	// ReviewerCategoryKey(reviewer id, category).
	QualityByReviewerCategory QualityDim = "REVIEWER_CATEGORY"
)

// ReviewerCategoryKey is the group key of a reviewer's category.
func ReviewerCategoryKey(reviewerID int, category string) string {
	return fmt.Sprintf("%d/%s", reviewerID, category)
}

// SplitReviewerCategoryKey reverses ReviewerCategoryKey.
func SplitReviewerCategoryKey(key string) (reviewerID int, category string, ok bool) {
	id, cat, found := strings.Cut(key, "/")
	n, err := strconv.Atoi(id)
	return n, cat, found && err == nil
}

// AcceptanceWindow is how far back acceptance per category is counted for
// a reviewer's demote_below_acceptance (and the Quality page's default).
const AcceptanceWindow = 90 * 24 * time.Hour

// CategoryAcceptance counts what became of the posted findings of
// reviewerID's runs created in the AcceptanceWindow before now, per
// category (the same counts the Quality page shows).
func CategoryAcceptance(ctx context.Context, sdb *store.DB, reviewerID int, now time.Time) (map[string]*QualityCounts, error) {
	db := conn{sdb}
	rep, err := AggregateQuality(ctx, db.DB, RunSet{From: now.Add(-AcceptanceWindow), To: now, ReviewerID: &reviewerID}, QualityByCategory, false)
	if err != nil {
		return nil, err
	}
	return rep.Groups, nil
}

// QualityCounts are the figures of one group or period: posted findings by
// outcome, the pull requests the runs reviewed and their cost. CostKnown is
// false for category and severity groups: a run's cost is not split
// between its findings.
type QualityCounts struct {
	Outcomes     map[finding.Outcome]int
	PullRequests int
	CostUSD      float64
	CostKnown    bool

	prs map[[2]int]bool
}

func newQualityCounts(costKnown bool) *QualityCounts {
	return &QualityCounts{Outcomes: map[finding.Outcome]int{}, CostKnown: costKnown, prs: map[[2]int]bool{}}
}

// Findings is the number of posted findings.
func (c *QualityCounts) Findings() int {
	n := 0
	for _, v := range c.Outcomes {
		n += v
	}
	return n
}

// Decided is the number of findings with an outcome other than open:
// open_at_merge and closed_unmerged are decided (and not accepted).
func (c *QualityCounts) Decided() int { return c.Findings() - c.Outcomes[finding.OutcomeOpen] }

// Accepted is the number of fixed and acknowledged findings.
func (c *QualityCounts) Accepted() int {
	return c.Outcomes[finding.OutcomeFixed] + c.Outcomes[finding.OutcomeAcknowledged]
}

func (c *QualityCounts) addRun(r *qualityRun) {
	k := [2]int{r.repo, r.pr}
	if !c.prs[k] {
		c.prs[k] = true
		c.PullRequests++
	}
	if c.CostKnown {
		c.CostUSD += r.cost
	}
}

// QualityReport is the result of AggregateQuality: the total, the groups
// (keyed by the reviewer's or repository's id, the category or the
// severity) and the periods (keyed by their first day, YYYY-MM-DD, UTC).
type QualityReport struct {
	Total   *QualityCounts
	Groups  map[string]*QualityCounts
	Periods map[string]*QualityCounts
}

type qualityRun struct {
	id, repo, reviewer, pr int
	cost                   float64
	period                 string
}

// PeriodStart is the start of the UTC day, or week from Monday when week,
// holding t.
func PeriodStart(t time.Time, week bool) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if week {
		day = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	}
	return day
}

// AggregateQuality counts what became of the posted findings of s's runs
// (shadow runs excluded), grouped by dim and by UTC day or week (week).
func AggregateQuality(ctx context.Context, sdb *store.DB, s RunSet, dim QualityDim, week bool) (*QualityReport, error) {
	db := conn{sdb}
	where, args := s.Where()
	where += " AND " + run.FieldShadow + " = ?"
	args = append(args, false)
	perRun := dim == QualityByReviewer || dim == QualityByRepository
	rep := &QualityReport{Total: newQualityCounts(true), Groups: map[string]*QualityCounts{}, Periods: map[string]*QualityCounts{}}
	group := func(m map[string]*QualityCounts, key string, costKnown bool) *QualityCounts {
		c := m[key]
		if c == nil {
			c = newQualityCounts(costKnown)
			m[key] = c
		}
		return c
	}

	runs := map[int]*qualityRun{}
	q := `SELECT ` + run.FieldID + `, ` + run.FieldCreatedAt + `, ` + run.RepositoryColumn + `, ` + run.ReviewerColumn + `, ` +
		run.FieldPrNumber + `, CAST(` + run.FieldCostUsd + ` AS DOUBLE PRECISION) FROM ` + run.Table + ` WHERE ` + where
	rows, err := db.SQL.QueryContext(ctx, db.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("quality: runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r qualityRun
		var at time.Time
		if err := rows.Scan(&r.id, &at, &r.repo, &r.reviewer, &r.pr, &r.cost); err != nil {
			return nil, fmt.Errorf("quality: runs: scan: %w", err)
		}
		r.period = PeriodStart(at, week).Format(time.DateOnly)
		runs[r.id] = &r
		rep.Total.addRun(&r)
		group(rep.Periods, r.period, true).addRun(&r)
		if perRun {
			group(rep.Groups, fmt.Sprint(r.entity(dim)), true).addRun(&r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("quality: runs: %w", err)
	}
	rows.Close()

	q = `SELECT f.` + finding.RunColumn + `, f.` + finding.FieldSeverity + `, f.` + finding.FieldCategory + `, f.` + finding.FieldOutcome + `, COUNT(*)
FROM ` + finding.Table + ` f JOIN (SELECT ` + run.FieldID + ` FROM ` + run.Table + ` WHERE ` + where + `) r ON f.` + finding.RunColumn + ` = r.` + run.FieldID + `
WHERE f.` + finding.FieldPosted + ` = ?
GROUP BY f.` + finding.RunColumn + `, f.` + finding.FieldSeverity + `, f.` + finding.FieldCategory + `, f.` + finding.FieldOutcome
	rows, err = db.SQL.QueryContext(ctx, db.Rebind(q), append(args, true)...)
	if err != nil {
		return nil, fmt.Errorf("quality: findings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var runID, n int
		var sev, category, outcome string
		if err := rows.Scan(&runID, &sev, &category, &outcome, &n); err != nil {
			return nil, fmt.Errorf("quality: findings: scan: %w", err)
		}
		r := runs[runID]
		if r == nil {
			continue // created between the two reads
		}
		o := finding.Outcome(outcome)
		rep.Total.Outcomes[o] += n
		group(rep.Periods, r.period, true).Outcomes[o] += n
		switch dim {
		case QualityByCategory:
			group(rep.Groups, category, false).Outcomes[o] += n
		case QualityBySeverity:
			group(rep.Groups, sev, false).Outcomes[o] += n
		case QualityByReviewerCategory:
			group(rep.Groups, ReviewerCategoryKey(r.reviewer, category), false).Outcomes[o] += n
		default:
			group(rep.Groups, fmt.Sprint(r.entity(dim)), true).Outcomes[o] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("quality: findings: %w", err)
	}
	if !perRun {
		// A category's or severity's findings per PR are over every PR reviewed.
		for _, c := range rep.Groups {
			c.PullRequests = rep.Total.PullRequests
		}
	}
	return rep, nil
}

func (r *qualityRun) entity(dim QualityDim) int {
	if dim == QualityByRepository {
		return r.repo
	}
	return r.reviewer
}
