package publish

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// DropShadow is why a shadow run's finding that a review would have posted
// was not: a backtest's replay posts nothing.
const DropShadow = "shadow run: nothing posted"

// publishShadow records a shadow run's result without a call to GitHub:
// every finding is stored unposted (placement none), those a review would
// have posted with DropShadow and the others with the reason the reviewer's
// rules give (below min_severity, over max_findings, duplicate). The run's
// figures count by severity what would have been posted, so a backtest
// compares two versions of a reviewer as their reviews would have read. The
// rules are those of the run's reviewer snapshot. Nothing is read from the
// PR either: no review of its threads decides what "already on the PR" is,
// since both sides of a backtest must see the same PR.
func (p *Publisher) publishShadow(ctx context.Context, r *ent.Run) error {
	res, _, err := storedReview(r)
	if err != nil {
		return err
	}
	used, err := reviewerconfig.ForRun(r, r.Edges.Reviewer)
	if err != nil {
		return resultError(err)
	}
	cfg := reviewerconfig.FromEnt(used)
	plan := MakePlan(res.Findings, Rules{MinSeverity: cfg.MinSeverity, MaxFindings: cfg.MaxFindings}, nil, nil)
	would := plan.Posted()
	for _, it := range would {
		it.Placement, it.Dropped = PlaceNone, DropShadow
	}
	rows, err := p.saveFindings(ctx, r.ID, &plan)
	if err != nil {
		return err
	}
	n := len(would)
	return p.finish(ctx, r, finishInput{
		plan: &plan, rows: rows, standing: would, duration: durationOf(r, p.cfg.Now()),
		message: fmt.Sprintf("Backtest run recorded: %d %s a review would have posted; nothing was posted on the pull request.", n, plural(n, "finding", "findings")),
	})
}
