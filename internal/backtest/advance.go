package backtest

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/reviewer"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
)

// progress is where one planned pull request stands.
type progress struct {
	planned
	old, new *ent.Run
	// why it is not covered; "" while pending or when covered.
	skipped string
}

func (p *progress) covered() bool {
	return p.old != nil && p.new != nil && p.old.Status == run.StatusSucceeded && p.new.Status == run.StatusSucceeded
}

// cost is what the pull request's two sides spend or may still spend: a
// finished run what it cost, a run under way at least its estimate, and a
// side not queued yet its estimate once its old side is queued.
func (p *progress) cost() float64 {
	side := func(r *ent.Run) float64 {
		if r == nil {
			return 0
		}
		if runstate.Terminal(r.Status) {
			return r.CostUsd
		}
		return max(r.CostUsd, p.Estimate)
	}
	c := side(p.old) + side(p.new)
	if p.old != nil && p.new == nil && (p.old.Status == run.StatusSucceeded || !runstate.Terminal(p.old.Status)) {
		c += p.Estimate
	}
	return c
}

// Why a planned pull request was not covered.
const (
	skipCap    = "the cost cap was reached"
	skipFailed = "a shadow run did not finish"
)

// advance queues what a running backtest may queue and reports it once every
// shadow run has finished. A pull request's old side is queued only while
// what is spent and committed plus twice its estimate stays within the cap;
// its new side once the old one succeeded (the two cannot wait at once: one
// review run per pull request, reviewer and head is queued or in flight at a
// time). Once what was spent passes the cap, queued shadow runs are cancelled.
func (l *Loop) advance(ctx context.Context, bt *ent.Backtest) error {
	plan, err := planOf(bt)
	if err != nil {
		return err
	}
	rv, err := l.cfg.DB.Reviewer.Query().Where(reviewer.HasInstallationWith(installation.ID(bt.Edges.Installation.ID)),
		reviewer.Name(bt.ReviewerName)).Only(ctx)
	if err != nil {
		return fmt.Errorf("find reviewer %s: %w", bt.ReviewerName, err)
	}
	shadow, err := l.shadowRuns(ctx, bt)
	if err != nil {
		return err
	}
	spent := 0.0
	for _, r := range shadow {
		spent += r.CostUsd
	}
	overCap := spent > bt.MaxCostUsd
	if overCap {
		err := cancelRuns(ctx, l.cfg.DB, bt.ID, func(r *ent.Run) string {
			if r.Status != run.StatusQueued {
				return ""
			}
			return fmt.Sprintf("The backtest's cost cap ($%.2f) was reached, so this shadow run was not started.", bt.MaxCostUsd)
		})
		if err != nil {
			return err
		}
		if shadow, err = l.shadowRuns(ctx, bt); err != nil {
			return err
		}
	}
	prs := make([]*progress, len(plan))
	byKey := map[[2]int]*progress{}
	for i, p := range plan {
		prs[i] = &progress{planned: p}
		byKey[[2]int{p.RepositoryID, p.Number}] = prs[i]
	}
	for _, r := range shadow {
		p := byKey[[2]int{repoID(r), r.PrNumber}]
		if p == nil {
			continue
		}
		switch r.BacktestSide {
		case run.BacktestSideOld:
			p.old = r // the latest of each side wins (ordered by id)
		case run.BacktestSideNew:
			p.new = r
		}
	}
	committed := 0.0
	for _, p := range prs {
		committed += p.cost()
	}
	pending, stopped := 0, overCap
	for _, p := range prs {
		switch {
		case p.old == nil:
			if stopped || committed+2*p.Estimate > bt.MaxCostUsd {
				stopped, p.skipped = true, skipCap // stop queueing: later pull requests are not started either
				continue
			}
			if _, err := l.queue(ctx, bt, rv, p, run.BacktestSideOld); err != nil {
				return err
			}
			committed += 2 * p.Estimate
			pending++
		case !runstate.Terminal(p.old.Status):
			pending++
		case p.old.Status != run.StatusSucceeded:
			p.skipped = skipFailed
		case p.new == nil:
			if overCap {
				p.skipped = skipCap
				continue
			}
			if _, err := l.queue(ctx, bt, rv, p, run.BacktestSideNew); err != nil {
				return err
			}
			pending++
		case !runstate.Terminal(p.new.Status):
			pending++
		case p.new.Status != run.StatusSucceeded:
			p.skipped = skipFailed
			if p.new.Status == run.StatusCancelled && overCap {
				p.skipped = skipCap
			}
		}
	}
	if pending > 0 {
		due := l.cfg.Now().Add(l.cfg.Recheck)
		_, err := l.letGo(ctx, bt, &due, func(u *ent.BacktestUpdate) { u.SetCostUsd(spent) })
		return err
	}
	return l.report(ctx, bt, rv, prs, spent)
}

// queue queues one side of a planned pull request as a shadow run: the
// reviewed run's repository, pull request, head and base, with that side's
// snapshot of the reviewer. Shadow runs are outside the one-active-review
// index (run_active_review), so a real review of that head never blocks it.
func (l *Loop) queue(ctx context.Context, bt *ent.Backtest, rv *ent.Reviewer, p *progress, side run.BacktestSide) (bool, error) {
	snap := bt.OldSnapshot
	if side == run.BacktestSideNew {
		snap = bt.NewSnapshot
	}
	cfg := reviewerconfig.ConfigOfSnapshot(snap)
	created, _, err := runstate.Enqueue(ctx, l.cfg.DB, l.cfg.Bus, runstate.Request{
		RepositoryID: p.RepositoryID, ReviewerIDs: []int{rv.ID}, PRNumber: p.Number, PRTitle: p.Title, PRURL: p.URL,
		HeadSHA: p.HeadSHA, HeadRef: p.HeadRef, BaseSHA: p.BaseSHA, BaseRef: p.BaseRef, Trigger: run.TriggerBacktest,
		Configure: func(_ int, c *ent.RunCreate) {
			c.SetShadow(true).SetBacktestID(bt.ID).SetBacktestSide(side).SetReviewerSnapshot(snap).
				SetModel(cfg.Model).SetMaxCostUsd(cfg.MaxCostUSD).SetFromFork(p.FromFork)
		},
	})
	if err != nil {
		return false, fmt.Errorf("queue the %s side of %s#%d: %w", side, p.Repo, p.Number, err)
	}
	return len(created) > 0, nil
}

// shadowRuns are bt's shadow runs, oldest first.
func (l *Loop) shadowRuns(ctx context.Context, bt *ent.Backtest) ([]*ent.Run, error) {
	rs, err := l.cfg.DB.Run.Query().Where(run.BacktestID(bt.ID), run.Shadow(true)).WithRepository().Order(ent.Asc(run.FieldID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("shadow runs of backtest %d: %w", bt.ID, err)
	}
	return rs, nil
}

func repoID(r *ent.Run) int {
	if r.Edges.Repository != nil {
		return r.Edges.Repository.ID
	}
	return 0
}
