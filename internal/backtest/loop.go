package backtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/redact"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/worker"
)

// Writer is what a backtest writes to GitHub, all through the write port.
type Writer interface {
	OpenCheck(ctx context.Context, c ghwrite.Check, detailsURL string, t ghwrite.Text) (int64, bool, error)
	CompleteCheck(ctx context.Context, c ghwrite.Check, conclusion string, at time.Time, t ghwrite.Text) error
	Comment(ctx context.Context, r ghwrite.Repo, pr int, body string, mine ghwrite.Mine, lookFirst bool) (*github.IssueComment, error)
	EditComment(ctx context.Context, r ghwrite.Repo, id int64, body string) (*github.IssueComment, error)
}

var _ Writer = (*ghwrite.Port)(nil)

// Clients gives the REST client of an installation (reads: the change's
// files at its head); *gh.Apps satisfies it.
type Clients interface {
	Installation(githubID int64) (*gh.Installation, error)
}

var _ Clients = (*gh.Apps)(nil)

// Config builds a Loop.
type Config struct {
	DB     *store.DB
	Bus    wakeup.Bus
	Log    *slog.Logger
	GitHub Clients
	Write  Writer
	// WorkerID is the lease owner.
	WorkerID string
	// Models is the catalogue a changed reviewer's model is checked
	// against, as the sync does; nil means the built-in one.
	Models *models.Source
	// PublicURL is the portal's address: the check's Details link.
	PublicURL string
	// Poll is the safety-net poll; 0 means 1 s.
	Poll time.Duration
	// Recheck is how long a running backtest waits before a worker looks
	// at its shadow runs again; 0 means 10 s.
	Recheck time.Duration
	// RetryAfter is when a step that failed on GitHub or the database is
	// tried again; 0 means 1 minute.
	RetryAfter time.Duration
	// StaleAfter is how long a lease may go without a heartbeat before
	// another worker takes it; 0 means 90 s.
	StaleAfter time.Duration
	// GiveUpAfter is how old a backtest whose step keeps failing may get
	// before it is failed (its check says so); 0 means 24 hours.
	GiveUpAfter time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Loop is the worker loop of backtests. It implements worker.Loop.
type Loop struct{ cfg Config }

// New validates cfg.
func New(cfg Config) (*Loop, error) {
	if cfg.DB == nil || cfg.GitHub == nil || cfg.Write == nil || cfg.WorkerID == "" {
		return nil, errors.New("backtest: DB, GitHub, Write and WorkerID are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 || cfg.Poll > time.Second {
		cfg.Poll = time.Second
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = 10 * time.Second
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = time.Minute
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = config.DefaultDeadWorkerAfter
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Loop{cfg: cfg}, nil
}

// Name implements worker.Loop.
func (l *Loop) Name() string { return "backtests" }

// Run works on due backtests until ctx ends, woken by wakeup.TopicBacktests
// and the poll (a running backtest is looked at every Recheck).
func (l *Loop) Run(ctx context.Context) error {
	var wake <-chan struct{}
	if l.cfg.Bus != nil {
		ch, cancel := l.cfg.Bus.Subscribe(wakeup.TopicBacktests)
		defer cancel()
		wake = ch
	}
	return worker.Repeat(logging.With(ctx, l.cfg.Log), "backtests", wake, l.cfg.Poll, func(ctx context.Context) error {
		_, err := l.Drain(ctx)
		return err
	})
}

// maxPerDrain bounds the backtests one Drain works on.
const maxPerDrain = 100

// Drain works on every due backtest once: it starts the queued ones,
// advances or reports the running ones, and completes the check runs of
// cancelled ones. It returns how many it worked on; an error is one of the
// lease store's, each backtest's own failure is kept on it.
func (l *Loop) Drain(ctx context.Context) (int, error) {
	n := 0
	for _, st := range []struct {
		q    queue.Queue
		work func(context.Context, *ent.Backtest) error
	}{
		{queue.CancelledBacktests, l.completeCancelled},
		{queue.QueuedBacktests, l.start},
		{queue.RunningBacktests, l.advance},
	} {
		for range maxPerDrain {
			id, err := queue.Claim(ctx, l.cfg.DB, st.q, l.cfg.WorkerID, l.cfg.Now(), l.cfg.StaleAfter)
			if err != nil {
				return n, err
			}
			if id == 0 {
				break
			}
			n++
			l.one(ctx, id, st.work)
		}
	}
	return n, nil
}

// one works on backtest id, which this worker holds, and lets go of it.
func (l *Loop) one(ctx context.Context, id int, work func(context.Context, *ent.Backtest) error) {
	bt, err := l.cfg.DB.Backtest.Query().Where(backtest.ID(id)).WithInstallation().Only(ctx)
	if err == nil {
		err = work(ctx, bt)
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	if bt != nil && bt.Status != backtest.StatusCancelled && l.cfg.Now().Sub(bt.CreatedAt) > l.cfg.GiveUpAfter {
		l.giveUp(ctx, bt, err)
		return
	}
	due := l.cfg.Now().Add(l.cfg.RetryAfter)
	if until, wait := gh.WaitFor(err, l.cfg.Now()); wait {
		due = until
	}
	l.cfg.Log.Warn("backtest: will retry", "backtest_id", id, "at", due, "err", redact.Error(err))
	if _, uerr := l.cfg.DB.Backtest.Update().Where(queue.HeldBacktest(id, l.cfg.WorkerID)).
		SetLeaseOwner("").SetNextAttemptAt(due).Save(context.WithoutCancel(ctx)); uerr != nil {
		l.cfg.Log.Warn("backtest: let go", "backtest_id", id, "err", redact.Error(uerr))
	}
}

// giveUp fails a backtest whose step kept failing past GiveUpAfter: its
// check says so when GitHub takes it, and its open shadow runs are cancelled.
func (l *Loop) giveUp(ctx context.Context, bt *ent.Backtest, cause error) {
	bg := context.WithoutCancel(ctx)
	why := "Chakshu could not finish this backtest: GitHub or its database kept failing. Push again or re-run the check to try again."
	l.cfg.Log.Warn("backtest: gave up", "backtest_id", bt.ID, "err", redact.Error(cause))
	err := l.finish(bg, bt, backtest.StatusFailed, "failure", ghwrite.Text{Title: "Backtest failed", Summary: why},
		func(u *ent.BacktestUpdate) { u.SetFailureReason(why) })
	if err != nil { // GitHub refuses even that: record the end; the check stays as it is
		_, err = l.letGo(bg, bt, nil, func(u *ent.BacktestUpdate) {
			u.Where(backtest.StatusIn(Open...)).SetStatus(backtest.StatusFailed).SetFinishedAt(l.cfg.Now()).SetFailureReason(why)
		})
	}
	if err == nil {
		err = cancelRuns(bg, l.cfg.DB, bt.ID, func(*ent.Run) string { return "The backtest this shadow run belongs to failed." })
	}
	if err != nil {
		l.cfg.Log.Warn("backtest: record the failure", "backtest_id", bt.ID, "err", redact.Error(err))
	}
}

// letGo releases the lease on bt, due again at due (nil: not by time).
func (l *Loop) letGo(ctx context.Context, bt *ent.Backtest, due *time.Time, set func(*ent.BacktestUpdate)) (bool, error) {
	u := l.cfg.DB.Backtest.Update().Where(queue.HeldBacktest(bt.ID, l.cfg.WorkerID)).SetLeaseOwner("")
	if due != nil {
		u.SetNextAttemptAt(*due)
	}
	if set != nil {
		set(u)
	}
	n, err := u.Save(ctx)
	if err != nil {
		return false, fmt.Errorf("update backtest %d: %w", bt.ID, err)
	}
	return n > 0, nil
}

// check names bt's check run.
func check(bt *ent.Backtest) ghwrite.Check {
	return ghwrite.Check{Repo: repoOf(bt), Name: ghwrite.BacktestCheckName(bt.ReviewerName), HeadSHA: bt.HeadSha, RunID: bt.ID, ID: bt.CheckRunID}
}

func repoOf(bt *ent.Backtest) ghwrite.Repo {
	owner, name := splitRepo(bt.ReviewersRepo)
	return ghwrite.Repo{Installation: bt.Edges.Installation.GithubID, Owner: owner, Name: name}
}

// completeCancelled completes a cancelled backtest's check run, once.
func (l *Loop) completeCancelled(ctx context.Context, bt *ent.Backtest) error {
	if bt.CheckRunID != 0 {
		err := l.cfg.Write.CompleteCheck(ctx, check(bt), "cancelled", l.cfg.Now(),
			ghwrite.Text{Title: "Backtest cancelled", Summary: bt.FailureReason})
		if err != nil && !ghwrite.IsNotFound(err) {
			return err
		}
	}
	_, err := l.letGo(ctx, bt, nil, func(u *ent.BacktestUpdate) { u.SetCheckCompleted(true) })
	return err
}

// finish records bt's end (status, report, reason) and completes its check
// run with conclusion; the check is completed first, so a crash between the
// two completes it again, harmlessly.
func (l *Loop) finish(ctx context.Context, bt *ent.Backtest, status backtest.Status, conclusion string, t ghwrite.Text, set func(*ent.BacktestUpdate)) error {
	if bt.CheckRunID != 0 {
		if err := l.cfg.Write.CompleteCheck(ctx, check(bt), conclusion, l.cfg.Now(), t); err != nil {
			return err
		}
	}
	ok, err := l.letGo(ctx, bt, nil, func(u *ent.BacktestUpdate) {
		u.Where(backtest.StatusIn(Open...)).SetStatus(status).SetFinishedAt(l.cfg.Now()).SetCheckCompleted(true)
		if set != nil {
			set(u)
		}
	})
	if err == nil && !ok {
		// Cancelled meanwhile: let go; its check says it finished anyway.
		_, err = l.letGo(ctx, bt, nil, func(u *ent.BacktestUpdate) { u.SetCheckCompleted(true) })
	}
	return err
}

func splitRepo(full string) (string, string) {
	for i := 0; i < len(full); i++ {
		if full[i] == '/' {
			return full[:i], full[i+1:]
		}
	}
	return full, ""
}
