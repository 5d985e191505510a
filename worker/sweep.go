package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/notify"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runs"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// SweepConfig builds a Sweeper.
type SweepConfig struct {
	DB  *store.DB
	Log *slog.Logger
	Bus notify.Bus
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
	back, err := db.RequeueDead(ctx, now.Add(-s.cfg.DeadAfter))
	if err != nil {
		return res, err
	}
	res.RunsRequeued, res.EventsRequeued = back.Runs, back.Events
	if res.RunsRequeued > 0 {
		s.cfg.Log.Warn("requeued runs of a dead worker", "count", res.RunsRequeued)
		s.cfg.Bus.Notify(ctx, notify.TopicRuns)    //nolint:errcheck
		s.cfg.Bus.Notify(ctx, notify.TopicPublish) //nolint:errcheck
	}
	if res.EventsRequeued > 0 {
		s.cfg.Log.Warn("requeued webhook events of a dead worker", "count", res.EventsRequeued)
		s.cfg.Bus.Notify(ctx, notify.TopicEvents) //nolint:errcheck
	}
	// Runs that never reported back.
	stale, err := db.Run.Query().Where(run.StatusIn(run.StatusDispatched, run.StatusRunning),
		run.DispatchedAtLT(now.Add(-s.cfg.ReportTimeout))).IDs(ctx)
	if err != nil {
		return res, fmt.Errorf("find stale runs: %w", err)
	}
	for _, id := range stale {
		reason := fmt.Sprintf("The review did not report back within %s of starting, so Chakshu stopped waiting. Ask again to retry.", human(s.cfg.ReportTimeout))
		err := runs.Fail(ctx, db.Client, id, reason, "no result reported before the report timeout")
		if err == nil {
			res.RunsTimedOut++
		} else if !errors.Is(err, runs.ErrConflict) {
			return res, err
		}
	}
	if res.RunsTimedOut > 0 {
		s.cfg.Bus.Notify(ctx, notify.TopicFinish) //nolint:errcheck
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

// FinishConfig builds a Finisher.
type FinishConfig struct {
	DB     *store.DB
	Log    *slog.Logger
	Bus    notify.Bus
	GitHub GitHub
	// Write is the GitHub write port; nil builds one on GitHub.
	Write        FinishWriter
	PollInterval time.Duration
	// InfraFailureConclusion is the conclusion of a failed run's check run
	// (Chakshu failed, not a finding): "failure" (also when empty) or
	// "neutral" (CHAKSHU_INFRA_FAILURE_CONCLUSION).
	InfraFailureConclusion string
}

// FinishWriter is what the finisher writes to GitHub.
type FinishWriter interface {
	CompleteCheck(ctx context.Context, c ghwrite.Check, conclusion string, at time.Time, t ghwrite.Text) error
	CancelActionsRun(ctx context.Context, r ghwrite.Repo, id int64) (ghwrite.CancelOutcome, error)
}

var _ FinishWriter = (*ghwrite.Port)(nil)

// Finisher completes the check runs of runs that failed or were cancelled,
// wherever that happened (dispatch, job fetch, runner report, sweeps, the
// workflow_run event), with the run's safe reason. A run is finished on
// GitHub exactly once: check_completed records it.
type Finisher struct{ cfg FinishConfig }

var _ Loop = (*Finisher)(nil)

// NewFinisher validates cfg.
func NewFinisher(cfg FinishConfig) (*Finisher, error) {
	if cfg.DB == nil || cfg.Log == nil || cfg.Bus == nil || cfg.GitHub == nil {
		return nil, errors.New("finisher: DB, Log, Bus and GitHub are required")
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Write == nil {
		cfg.Write = ghwrite.New(cfg.GitHub, "")
	}
	return &Finisher{cfg: cfg}, nil
}

// Name implements Loop.
func (f *Finisher) Name() string { return "finish" }

// Run implements Loop.
func (f *Finisher) Run(ctx context.Context) error {
	wake, stop := f.cfg.Bus.Subscribe(notify.TopicFinish)
	defer stop()
	return Repeat(logging.With(ctx, f.cfg.Log), "finish", wake, f.cfg.PollInterval, f.FinishAll)
}

// FinishAll completes every pending check of a failed or cancelled run.
func (f *Finisher) FinishAll(ctx context.Context) error {
	now := time.Now()
	pending, err := f.cfg.DB.Run.Query().Where(
		run.StatusIn(run.StatusFailed, run.StatusCancelled), run.Or(run.CheckRunIDNEQ(0), run.Shadow(true)), run.CheckCompleted(false),
		run.Or(run.FinishNextAtIsNil(), run.FinishNextAtLTE(now)),
	).WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().Limit(50).All(ctx)
	if err != nil {
		return err
	}
	for _, r := range pending {
		ctx := logging.With(ctx, f.cfg.Log.With(logging.KeyRun, r.ID))
		if err := f.finish(ctx, r); err != nil {
			logging.From(ctx).Warn("complete check run", "err", redact.Error(err))
			// Back off, or until GitHub said.
			next := now.Add(30 * time.Second)
			if until, ok := gh.WaitFor(err, now); ok {
				next = until
				if n, ok := f.cfg.Write.(CheckNoter); ok {
					noteWait(ctx, f.cfg.DB, n, r.ID, until, err)
				}
			}
			f.cfg.DB.Run.UpdateOne(r).SetFinishNextAt(next).AddFinishAttempts(1).Exec(ctx) //nolint:errcheck
		}
	}
	return nil
}

func (f *Finisher) finish(ctx context.Context, r *ent.Run) error {
	ctx = ghwrite.ForRun(ctx, r)
	conclusion, title := "failure", "The review failed"
	if f.cfg.InfraFailureConclusion == "neutral" {
		conclusion = "neutral"
	}
	if r.Status == run.StatusCancelled {
		conclusion, title = "cancelled", "The review was cancelled"
	}
	// A run that ended while its runner had not reported (cancelled, timed
	// out, its dispatch or job refused) may still have an Actions run queued
	// or going, which would spend runner minutes only to be refused.
	if r.Status == run.StatusCancelled || r.ResultHash == "" {
		f.cancelActions(ctx, r)
	}
	if !ghwrite.WritesOnPR(ctx) {
		// A shadow run has no check run: cancelling its Actions run is all
		// there is to finish on GitHub (check_completed records it once).
		return f.cfg.DB.Run.UpdateOne(r).SetCheckCompleted(true).ClearFinishNextAt().Exec(ctx)
	}
	summary := r.FailureReason
	if summary == "" {
		summary = title + "."
	}
	if err := ghwrite.CompleteRunCheck(ctx, f.cfg.Write, r, conclusion, time.Now(), ghwrite.Text{Title: title, Summary: summary}); err != nil {
		return err
	}
	return f.cfg.DB.Run.UpdateOne(r).SetCheckCompleted(true).ClearFinishNextAt().Exec(ctx)
}

// cancelActions cancels the Actions run of an ended run that was dispatched,
// once: a portal cancel or a sweeper timeout changes only the database, and
// the runner would otherwise go on spending until it next calls. A failure is
// logged and does not hold up completing the check run (the runner's next call
// is refused anyway); it is not retried once the check run is completed.
func (f *Finisher) cancelActions(ctx context.Context, r *ent.Run) {
	if r.ActionsRunID == 0 {
		return // never started on Actions
	}
	log := logging.From(ctx).With("actions_run_id", r.ActionsRunID)
	if r.ActionsCancelledAt != nil {
		return // dealt with by an earlier attempt
	}
	outcome, err := f.cfg.Write.CancelActionsRun(ctx, ghwrite.RepoOf(r.Edges.Repository), r.ActionsRunID)
	if err != nil {
		log.Warn("cancel Actions run", "err", redact.Error(err))
		return
	}
	note := store.NoteActionsCancelled
	if outcome == ghwrite.AlreadyFinished { // it completed on its own
		note = store.NoteActionsFinished
	}
	log.Info("Actions run of an ended run", "outcome", note)
	if err := f.cfg.DB.Run.UpdateOne(r).SetActionsCancelledAt(time.Now()).Exec(ctx); err != nil {
		log.Warn("cancel Actions run: record it", "err", redact.Error(err))
	}
	if err := runs.Note(ctx, f.cfg.DB.Client, r.ID, note, ""); err != nil {
		log.Warn("cancel Actions run: record on the timeline", "err", redact.Error(err))
	}
}
