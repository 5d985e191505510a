package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/spend"
)

// CapWait is how long a run held back by the concurrency cap waits before a
// worker looks at it again (a finishing run frees its slot sooner than most
// reviews take; the wait keeps the claim loop from spinning on it).
const CapWait = 5 * time.Second

// holdForCap puts run r back in the queue, still queued, when its
// installation already has MaxConcurrentRuns runs in flight; it reports
// whether it did. The first hold says so on the run's timeline.
func (d *Dispatcher) holdForCap(ctx context.Context, r *ent.Run, instID int) bool {
	log := logging.From(ctx)
	limit := d.cfg.MaxConcurrentRuns
	if limit <= 0 {
		return false
	}
	n, err := spend.InFlight(ctx, d.cfg.DB, instID, r.ID)
	if err != nil {
		log.Warn("dispatch: count runs in flight; dispatching anyway", "err", err)
		return false
	}
	if n < limit {
		return false
	}
	log.Info("dispatch: installation at its concurrency cap; the run stays queued", "in_flight", n, "cap", limit)
	if _, err := queue.Release(ctx, d.cfg.DB, queue.QueuedRuns, r.ID, d.cfg.WorkerID, time.Now().Add(CapWait)); err != nil {
		log.Error("dispatch: put the run back", "err", err)
	}
	if r.Attempts <= 1 {
		msg := fmt.Sprintf("Waiting: this installation already has %d reviews running (the cap is %d). The review starts when one finishes.", n, limit)
		if err := runstate.Note(ctx, d.cfg.DB.Client, r.ID, msg, ""); err != nil {
			log.Warn("dispatch: record the wait", "err", err)
		}
	}
	return true
}

// checkBudget refuses a run whose repository's or installation's spend
// budget is used up, naming the budget and when it resets.
func (d *Dispatcher) checkBudget(ctx context.Context, inst *ent.Installation, repo *ent.Repository) error {
	ex, err := spend.Check(ctx, d.cfg.DB, inst, repo, time.Now())
	if err != nil {
		return fmt.Errorf("check spend budgets: %w", err)
	}
	if ex != nil {
		return fault.New(fault.Forbidden, ex.Reason(), fmt.Errorf("%s budget of %s: limit %.4f, spent %.4f", ex.Period, ex.What, ex.Limit, ex.Spent))
	}
	return nil
}
