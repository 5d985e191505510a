package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/internal/retention"

	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// PruneConfig builds a Pruner.
type PruneConfig struct {
	DB  *store.DB
	Log *slog.Logger
	// Retention says what goes when (CHAKSHU_RETAIN_*); its Batch is the
	// most rows of a kind one batch removes (CHAKSHU_PRUNE_BATCH).
	Retention retention.Retention
	// Target is how long one pruning transaction may hold the database's
	// write lock: the batch is halved while its slowest transaction takes
	// longer, and grown while they take under half of it (batchSizer). On
	// SQLite the webhook intake's commits wait that long at most behind a
	// prune (they share its one write connection). 0 means 1 ms.
	Target time.Duration
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
// batches, each its own short transaction (retention.PruneBatch). Every worker
// runs one; two pruning at once delete disjoint or already-deleted rows.
type Pruner struct {
	cfg PruneConfig
	// payloadsAfter is how far payload clearing got (in memory: a restart
	// scans again from the row retention's cut-off).
	payloadsAfter time.Time
	size          *batchSizer
}

// batchSizer sizes pruning's batches by time rather than rows: how long a
// transaction of a given number of rows holds the write lock varies by
// database, disk, table and index sizes, and load, and what the webhook
// intake waits behind is that time.
type batchSizer struct {
	n, least, most int
	target         time.Duration
}

// firstBatch is where the sizer starts: the first batches find out what a
// row costs.
const firstBatch = 50

// leastBatch is the smallest batch: below it a transaction's fixed cost
// (begin, commit, the WAL's write) dominates and a smaller batch only slows
// pruning down.
//
// On SQLite it is smaller, because there the webhook intake waits behind
// every prune transaction for SQLite's one write lock: beside the intake at
// 2,000 deliveries/s and a million rows, a delete of 50 webhook events (the
// table and its four indexes) held the lock 3–8 ms, and the intake's p99
// while pruning was 5.6–7.4 ms (BenchmarkIntakeWhilePruning); with batches
// down to 10 rows the prune writes took 0.8 ms at the median and 2.7 ms at
// p99, and the intake's p99 4.5–5.8 ms, while pruning went a fifth as fast.
// On PostgreSQL a prune transaction holds only the rows it deletes, which
// the intake never waits for.
const (
	leastBatch       = 50
	leastBatchSQLite = 10
)

func newBatchSizer(most, least int, target time.Duration) *batchSizer {
	return &batchSizer{n: min(most, firstBatch), least: least, most: most, target: target}
}

// rows is the size of the next batch.
func (s *batchSizer) rows() int { return s.n }

// took adjusts the size by how long the last batch's slowest transaction
// held the write lock: halved when longer than the target (the next one is
// back under it at once), grown by a quarter when under half of it (slowly,
// so it settles below the target rather than oscillating across it).
func (s *batchSizer) took(slowest time.Duration) {
	switch {
	case slowest > s.target:
		s.n = max(min(s.least, s.most), s.n/2)
	case slowest < s.target/2:
		s.n = min(s.most, s.n+max(1, s.n/4))
	}
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
	if cfg.Target <= 0 {
		cfg.Target = time.Millisecond
	}
	most := cfg.Retention.Batch
	if most <= 0 {
		most = 500
	}
	least := leastBatch
	if !cfg.DB.Postgres() {
		least = leastBatchSQLite
	}
	return &Pruner{cfg: cfg, size: newBatchSizer(most, least, cfg.Target)}, nil
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
func (p *Pruner) Pass(ctx context.Context) (retention.Pruned, error) {
	var total retention.Pruned
	start := time.Now()
	batches := 0
	for ctx.Err() == nil {
		r := p.cfg.Retention
		r.Batch = p.size.rows()
		t0 := time.Now()
		got, after, err := retention.PruneBatch(ctx, p.cfg.DB, r, p.cfg.Now(), p.payloadsAfter)
		took := time.Since(t0)
		p.payloadsAfter = after
		total.Add(got)
		if err != nil {
			return total, err
		}
		if got.Slowest > 0 { // a batch that wrote nothing says nothing of the size
			p.size.took(got.Slowest)
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
			"workers", total.Workers, "batches", batches, "batch", p.size.rows(), "slowest_write", total.Slowest.Round(time.Microsecond),
			"took", time.Since(start).Round(time.Millisecond))
	}
	return total, ctx.Err()
}
