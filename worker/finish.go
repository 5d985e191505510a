package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// FinishConfig builds a Finisher.
type FinishConfig struct {
	DB     *store.DB
	Log    *slog.Logger
	Bus    wakeup.Bus
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
	wake, stop := f.cfg.Bus.Subscribe(wakeup.TopicFinish)
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
	err := f.cfg.Write.CompleteCheck(ctx, ghwrite.CheckOf(r), conclusion, time.Now(), ghwrite.Text{Title: title, Summary: summary})
	if err != nil && !ghwrite.IsNotFound(err) {
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
	if err := runstate.Note(ctx, f.cfg.DB.Client, r.ID, note, ""); err != nil {
		log.Warn("cancel Actions run: record on the timeline", "err", redact.Error(err))
	}
}
