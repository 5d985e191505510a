package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// SweepConfig builds a Sweeper.
type SweepConfig struct {
	DB  *store.DB
	Log *slog.Logger
	Bus wakeup.Bus
	// Interval between sweeps.
	Interval time.Duration
	// DeadAfter: a lease not heartbeated for this long belongs to a dead
	// worker and is taken back (90 s in production).
	DeadAfter time.Duration
	// ReportTimeout: a run dispatched this long ago without a result fails (45 min).
	ReportTimeout time.Duration
}

// Sweeper requeues the work of dead workers and fails runs that never
// reported (DESIGN §3).
type Sweeper struct{ cfg SweepConfig }

var _ Loop = (*Sweeper)(nil)

// NewSweeper validates cfg.
func NewSweeper(cfg SweepConfig) (*Sweeper, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.Bus == nil {
		return nil, errors.New("sweeper: DB, Log and Bus are required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	if cfg.DeadAfter <= 0 {
		cfg.DeadAfter = DeadAfter
	}
	if cfg.ReportTimeout <= 0 {
		cfg.ReportTimeout = 45 * time.Minute
	}
	return &Sweeper{cfg: cfg}, nil
}

// Name implements Loop.
func (s *Sweeper) Name() string { return "sweep" }

// Run implements Loop.
func (s *Sweeper) Run(ctx context.Context) error {
	ctx = logging.With(ctx, s.cfg.Log)
	return Repeat(ctx, "sweep", nil, s.cfg.Interval, func(ctx context.Context) error { return s.Sweep(ctx, time.Now()) })
}

// SweepResult counts what one sweep did.
type SweepResult struct {
	RunsRequeued, EventsRequeued, RunsTimedOut int
}

// Sweep does one pass.
func (s *Sweeper) Sweep(ctx context.Context, now time.Time) error {
	_, err := s.SweepCount(ctx, now)
	return err
}

// SweepCount does one pass and says what it did.
func (s *Sweeper) SweepCount(ctx context.Context, now time.Time) (SweepResult, error) {
	var res SweepResult
	db := s.cfg.DB
	// Work held by a worker that stopped heartbeating goes back to whoever claims next.
	back, err := queue.RequeueDead(ctx, db, now.Add(-s.cfg.DeadAfter))
	if err != nil {
		return res, err
	}
	res.RunsRequeued, res.EventsRequeued = back.Runs, back.Events
	if res.RunsRequeued > 0 {
		s.cfg.Log.Warn("requeued runs of a dead worker", "count", res.RunsRequeued)
		s.cfg.Bus.Notify(ctx, wakeup.TopicRuns)    //nolint:errcheck
		s.cfg.Bus.Notify(ctx, wakeup.TopicPublish) //nolint:errcheck
	}
	if res.EventsRequeued > 0 {
		s.cfg.Log.Warn("requeued webhook events of a dead worker", "count", res.EventsRequeued)
		s.cfg.Bus.Notify(ctx, wakeup.TopicEvents) //nolint:errcheck
	}
	// Runs that never reported back.
	stale, err := db.Run.Query().Where(run.StatusIn(run.StatusDispatched, run.StatusRunning),
		run.DispatchedAtLT(now.Add(-s.cfg.ReportTimeout))).IDs(ctx)
	if err != nil {
		return res, fmt.Errorf("find stale runs: %w", err)
	}
	for _, id := range stale {
		reason := fmt.Sprintf("The review did not report back within %s of starting, so Chakshu stopped waiting. Ask again to retry.", human(s.cfg.ReportTimeout))
		err := runstate.Fail(ctx, db.Client, id, reason, "no result reported before the report timeout")
		if err == nil {
			res.RunsTimedOut++
		} else if !errors.Is(err, runstate.ErrConflict) {
			return res, err
		}
	}
	if res.RunsTimedOut > 0 {
		s.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck
	}
	return res, nil
}

func human(d time.Duration) string {
	if d == time.Minute {
		return "1 minute"
	}
	if d > time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return d.String()
}
