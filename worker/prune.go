package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// PruneConfig builds a Pruner.
type PruneConfig struct {
	DB  *store.DB
	Log *slog.Logger
	// Retention says what goes when (CHAKSHU_RETAIN_*); Batch rows per statement.
	Retention store.Retention
	// Interval is the wait between passes; 0 means a minute.
	Interval time.Duration
	// Pause is the least wait between two batches of a pass, so the webhook
	// intake and the queue claims have the database between them; 0 means
	// 20 ms. A pass also waits DutyFactor times as long as its last batch
	// took, so pruning takes at most about 1/(1+DutyFactor) of the database's
	// (and, on SQLite, the process's) time however slow the batches get.
	Pause time.Duration
	// DutyFactor is that multiple; 0 means 4 (pruning at most ~20%).
	DutyFactor int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// maxPause caps the wait between batches a slow batch asks for.
const maxPause = 2 * time.Second

// Pruner deletes what the retention settings no longer keep, in small
// batches, each its own short transaction (store.PruneBatch). Every worker
// runs one; two pruning at once delete disjoint or already-deleted rows.
type Pruner struct {
	cfg PruneConfig
	// payloadsAfter is how far payload clearing got (in memory: a restart
	// scans again from the row retention's cut-off).
	payloadsAfter time.Time
}

var _ Loop = (*Pruner)(nil)

// NewPruner validates cfg.
func NewPruner(cfg PruneConfig) (*Pruner, error) {
	if cfg.DB == nil || cfg.Log == nil {
		return nil, errors.New("pruner: DB and Log are required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	if cfg.Pause <= 0 {
		cfg.Pause = 20 * time.Millisecond
	}
	if cfg.DutyFactor <= 0 {
		cfg.DutyFactor = 4
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Pruner{cfg: cfg}, nil
}

// Name implements Loop.
func (p *Pruner) Name() string { return "prune" }

// Run implements Loop.
func (p *Pruner) Run(ctx context.Context) error {
	return Repeat(logging.With(ctx, p.cfg.Log), "prune", nil, p.cfg.Interval, func(ctx context.Context) error {
		_, err := p.Pass(ctx)
		return err
	})
}

// Pass prunes batch after batch until a batch removes nothing, and returns
// what it removed.
func (p *Pruner) Pass(ctx context.Context) (store.Pruned, error) {
	var total store.Pruned
	start := time.Now()
	batches := 0
	for ctx.Err() == nil {
		t0 := time.Now()
		got, after, err := p.cfg.DB.PruneBatch(ctx, p.cfg.Retention, p.cfg.Now(), p.payloadsAfter)
		took := time.Since(t0)
		p.payloadsAfter = after
		total.Add(got)
		if err != nil {
			return total, err
		}
		batches++
		if got.Total() == 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(max(p.cfg.Pause, time.Duration(p.cfg.DutyFactor)*took), maxPause)):
		}
	}
	if total.Total() > 0 {
		p.cfg.Log.Info("pruned", "payloads", total.Payloads, "webhook_events", total.WebhookEvents,
			"failed_events", total.FailedEvents, "run_events", total.RunEvents, "runs", total.Runs,
			"workers", total.Workers, "batches", batches, "took", time.Since(start).Round(time.Millisecond))
	}
	return total, ctx.Err()
}
